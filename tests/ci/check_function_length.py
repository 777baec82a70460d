#!/usr/bin/env python3
"""No function in include/, src/ or models/ over 80 lines without a stated reason.

    python3 tests/ci/check_function_length.py [--root DIR] [--limit 80] [--top 15]
    python3 tests/ci/check_function_length.py --self-test

Functions (and lambdas) are found by universal-ctags; a function's length runs from the line
of its name to its closing brace. A function over the limit passes only if it says why it must
be one function, in a comment of this form either on the line before its definition (above
any template<...> line) or on its first body line (or after its opening brace):

    // One function: <the reason, in words>

It also prints the longest functions with their lengths (the list in docs/design-notes.md).
Exit status: 0 when every long function states its reason, 1 when one does not, 77 when
universal-ctags is not installed (ctest reports the test as skipped, not passed).
"""

import argparse
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DIRECTORIES = ("include", "src", "models")
SKIPPED = 77
# The reason must be words, not just the marker.
REASON_RE = re.compile(r"//\s*One function:\s*\S")
# Lines between a function's comment and its name: template heads and attributes.
PREAMBLE_RE = re.compile(r"^\s*(template\s*<.*|requires\b.*|\[\[.*\]\]\s*)$")


def ctags_command():
    """universal-ctags' path, or None (exuberant ctags lacks --_xformat and end lines)."""
    ctags = shutil.which("ctags") or shutil.which("universal-ctags")
    if not ctags:
        return None
    version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout
    return ctags if "Universal Ctags" in version else None


def list_functions(ctags, root, directories):
    """(length, name, path, first line) of every function defined under root's directories."""
    present = [d for d in directories if (Path(root) / d).is_dir()]
    if not present:
        return []
    result = subprocess.run(
        [ctags, "-R", "--languages=C++", "--kinds-C++=f", "--fields=+ne", "--extras=-q", "-x",
         "--_xformat=%{end} %{line} %N %F", *present],
        cwd=root, capture_output=True, text=True, check=True)
    functions = []
    for row in result.stdout.splitlines():
        end, line, name, path = row.split(" ", 3)
        if not end.isdigit() or not line.isdigit():
            continue  # a declaration ctags could not close: not a definition
        if name.startswith("__anon"):
            name = "(lambda)"
        functions.append((int(end) - int(line) + 1, name, path, int(line)))
    functions.sort(key=lambda f: (-f[0], f[2], f[3]))
    return functions


def states_reason(lines, first):
    """Whether the function whose name is on line `first` (1-based) says why it is one function:
    in the comment block just above it, or on the line of its opening brace or the next."""
    at = first - 2
    while at >= 0 and PREAMBLE_RE.match(lines[at]):
        at -= 1
    while at >= 0 and lines[at].lstrip().startswith("//"):
        if REASON_RE.search(lines[at]):
            return True
        at -= 1
    brace = first - 1
    while brace < len(lines) and "{" not in lines[brace]:
        brace += 1
    body = lines[brace:brace + 2]
    return any(REASON_RE.search(line) for line in body)


def check(root, limit, top, out):
    """Prints the longest functions and the long ones without a reason; the exit status."""
    ctags = ctags_command()
    if not ctags:
        out.write("check_function_length.py: universal-ctags is not installed "
                  "(apt-get install universal-ctags): skipped\n")
        return SKIPPED
    functions = list_functions(ctags, root, DIRECTORIES)
    out.write(f"The {min(top, len(functions))} longest functions in {', '.join(DIRECTORIES)}:\n")
    for length, name, path, line in functions[:top]:
        out.write(f"  {length:5d}  {name}  ({path}:{line})\n")
    sources = {}
    unexplained = []
    for length, name, path, line in functions:
        if length <= limit:
            break
        if path not in sources:
            sources[path] = (Path(root) / path).read_text(errors="replace").splitlines()
        if not states_reason(sources[path], line):
            unexplained.append((length, name, path, line))
    long_ones = sum(1 for f in functions if f[0] > limit)
    if unexplained:
        out.write(f"\n{len(unexplained)} of {long_ones} functions over {limit} lines do not say why "
                  f"they must be one (a comment '// One function: <why>' on the line before the "
                  f"definition or on its first body line):\n")
        for length, name, path, line in unexplained:
            out.write(f"  {path}:{line}: {name} is {length} lines\n")
        return 1
    out.write(f"\ncheck_function_length.py: ok: {len(functions)} functions, {long_ones} over "
              f"{limit} lines, each with its reason\n")
    return 0


# ---------------------------------------------------------------- self-test

def long_body(lines):
    return "".join(f"  total += {i};\n" for i in range(lines))


SELF_TEST_FILES = {
    # (file, text): the functions the check must reject are named rejected_*.
    "src/short.cpp": "int short_one(int total) {\n" + long_body(5) + "  return total;\n}\n",
    "src/rejected.cpp": "int rejected_plain(int total) {\n" + long_body(90) + "  return total;\n}\n",
    "src/marker_without_reason.cpp":
        "// One function:\nint rejected_empty_reason(int total) {\n" + long_body(90) + "  return total;\n}\n",
    "src/far_comment.cpp":
        "// One function: too far above, a blank line between\n\n"
        "int rejected_far(int total) {\n" + long_body(90) + "  return total;\n}\n",
    "src/above.cpp":
        "// Sums.\n// One function: the steps share every local\nint above(int total) {\n"
        + long_body(90) + "  return total;\n}\n",
    "include/x/template.hpp":
        "// One function: a template's reason above its template line\ntemplate <class T>\n"
        "T templated(T total) {\n" + long_body(90) + "  return total;\n}\n",
    "models/body.hpp":
        "inline int first_body_line(int total) {\n  // One function: said on the first body line\n"
        + long_body(90) + "  return total;\n}\n",
    "src/brace.cpp":
        "int after_brace(int total) {  // One function: said after the opening brace\n"
        + long_body(90) + "  return total;\n}\n",
    "src/late.cpp":
        "int rejected_late(int total) {\n  total += 1;\n  // One function: on the second body line\n"
        + long_body(90) + "  return total;\n}\n",
    "tests/ignored.cpp": "int outside(int total) {\n" + long_body(90) + "  return total;\n}\n",
}


def self_test():
    ctags = ctags_command()
    if not ctags:
        print("check_function_length.py --self-test: universal-ctags is not installed: skipped")
        return SKIPPED
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST_FILES.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        output = io.StringIO()
        status = check(root, 80, 3, output)
    report = output.getvalue()
    failures = []
    if status != 1:
        failures.append(f"exit status {status}, expected 1")
    expected = sorted(n for t in SELF_TEST_FILES.values() for n in re.findall(r"int (rejected_\w+)", t))
    rejected = sorted(re.findall(r": (\w+) is \d+ lines", report))
    if rejected != expected:
        failures.append(f"rejected {rejected}, expected {expected}")
    if "outside" in report:
        failures.append("a function under tests/ was checked")
    top = re.findall(r"^\s+(\d+)\s+(\w+)\s+\(", report, re.M)
    if len(top) != 3 or any(int(a[0]) < int(b[0]) for a, b in zip(top, top[1:])) or int(top[0][0]) != 95:
        failures.append(f"the longest functions are not listed longest first: {top}")
    if failures:
        print("check_function_length.py --self-test: FAILED\n  " + "\n  ".join(failures))
        print(report)
        return 1
    print(f"check_function_length.py --self-test: ok ({len(expected)} long functions without a reason "
          f"rejected, {len(SELF_TEST_FILES) - len(expected) - 2} with one accepted)")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]),
                        help="the repository (default: the one holding this script)")
    parser.add_argument("--limit", type=int, default=80, help="longest function without a reason")
    parser.add_argument("--top", type=int, default=15, help="how many of the longest to print")
    parser.add_argument("--self-test", action="store_true", help="the checker on embedded snippets")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    return check(args.root, args.limit, args.top, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
