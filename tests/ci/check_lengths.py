#!/usr/bin/env python3
"""No function over 80 lines, class over 300 or file over 600 in include/, src/ and models/
without a stated reason.

    python3 tests/ci/check_lengths.py [--root DIR] [--top 15]
                                      [--function-limit 80] [--class-limit 300] [--file-limit 600]
    python3 tests/ci/check_lengths.py --self-test

Functions (and lambdas), classes and structs are found by universal-ctags; each one's length
runs from the line of its name to its closing brace, a file's is its count of lines. One over
its limit passes only if it says why it must be one, in a comment of this form:

    // One function: <the reason, in words>   on the line before the definition (above any
    // One class: <the reason, in words>      template<...> line) or on its first body line
    // One file: <the reason, in words>       in the comment block the file begins with

It also prints the longest of each with their lengths (the lists in docs/design-notes.md).
Exit status: 0 when every long one states its reason, 1 when one does not, 77 when
universal-ctags is not installed (ctest reports the test as skipped, not passed).
"""

import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from source_check import run_source_check_main

DIRECTORIES = ("include", "src", "models")
SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc")
SKIPPED = 77
# Lines between a definition's comment and its name: template heads and attributes.
PREAMBLE_RE = re.compile(r"^\s*(template\s*<.*|requires\b.*|\[\[.*\]\]\s*)$")


def reason_re(kind):
    """The marker for a kind ("function", "class", "file"); the reason must be words."""
    return re.compile(r"//\s*One " + kind + r":\s*\S")


def ctags_command():
    """universal-ctags' path, or None (exuberant ctags lacks --_xformat and end lines)."""
    ctags = shutil.which("ctags") or shutil.which("universal-ctags")
    if not ctags:
        return None
    version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout
    return ctags if "Universal Ctags" in version else None


def present_directories(root):
    return [d for d in DIRECTORIES if (Path(root) / d).is_dir()]


def list_definitions(ctags, root, kinds):
    """(length, name, path, first line) of every definition of ctags' C++ `kinds` under root."""
    present = present_directories(root)
    if not present:
        return []
    result = subprocess.run(
        [ctags, "-R", "--languages=C++", f"--kinds-C++={kinds}", "--fields=+ne", "--extras=-q", "-x",
         "--_xformat=%{end} %{line} %N %F", *present],
        cwd=root, capture_output=True, text=True, check=True)
    found = []
    for row in result.stdout.splitlines():
        end, line, name, path = row.split(" ", 3)
        if not end.isdigit() or not line.isdigit():
            continue  # a declaration ctags could not close: not a definition
        if name.startswith("__anon"):
            name = "(lambda)" if kinds == "f" else "(unnamed)"
        found.append((int(end) - int(line) + 1, name, path, int(line)))
    found.sort(key=lambda f: (-f[0], f[2], f[3]))
    return found


def list_files(root):
    """(length, name, path, 1) of every source file under root's directories."""
    found = []
    for directory in present_directories(root):
        for path in sorted((Path(root) / directory).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                relative = str(path.relative_to(root))
                count = len(path.read_text(errors="replace").splitlines())
                found.append((count, path.name, relative, 1))
    found.sort(key=lambda f: (-f[0], f[2]))
    return found


def states_reason(lines, first, kind):
    """Whether the definition whose name is on line `first` (1-based) says why it is one: in the
    comment block just above it, or on the line of its opening brace or the next."""
    marker = reason_re(kind)
    at = first - 2
    while at >= 0 and PREAMBLE_RE.match(lines[at]):
        at -= 1
    while at >= 0 and lines[at].lstrip().startswith("//"):
        if marker.search(lines[at]):
            return True
        at -= 1
    brace = first - 1
    while brace < len(lines) and "{" not in lines[brace]:
        brace += 1
    return any(marker.search(line) for line in lines[brace:brace + 2])


def file_states_reason(lines):
    """Whether a file's leading comment block says why it is one file."""
    marker = reason_re("file")
    for line in lines:
        if not line.lstrip().startswith("//"):
            return False
        if marker.search(line):
            return True
    return False


def unexplained_of(root, kind, found, limit):
    """The definitions (or files) over the limit that do not state their reason."""
    sources = {}
    unexplained = []
    for length, name, path, line in found:
        if length <= limit:
            break
        if path not in sources:
            sources[path] = (Path(root) / path).read_text(errors="replace").splitlines()
        ok = file_states_reason(sources[path]) if kind == "file" else states_reason(sources[path], line, kind)
        if not ok:
            unexplained.append((length, name, path, line))
    return unexplained


def check(root, limits, top, out):
    """Prints the longest of each kind and the long ones without a reason; the exit status."""
    ctags = ctags_command()
    if not ctags:
        out.write("check_lengths.py: universal-ctags is not installed (apt-get install universal-ctags): skipped\n")
        return SKIPPED
    kinds = {"function": list_definitions(ctags, root, "f"), "class": list_definitions(ctags, root, "cs"),
             "file": list_files(root)}
    status = 0
    summary = []
    for kind, found in kinds.items():
        limit = limits[kind]
        kinds_word = "classes" if kind == "class" else kind + "s"
        out.write(f"The {min(top, len(found))} longest {kinds_word} in {', '.join(DIRECTORIES)}:\n")
        for length, name, path, line in found[:top]:
            out.write(f"  {length:5d}  {name}  ({path}:{line})\n" if kind != "file" else f"  {length:5d}  {path}\n")
        unexplained = unexplained_of(root, kind, found, limit)
        long_ones = sum(1 for f in found if f[0] > limit)
        if unexplained:
            out.write(f"\n{len(unexplained)} of {long_ones} {kinds_word} over {limit} lines do not say why they must be "
                      f"one (a comment '// One {kind}: <why>' "
                      + ("in the comment block the file begins with" if kind == "file" else
                         "on the line before the definition or on its first body line") + "):\n")
            for length, name, path, line in unexplained:
                out.write(f"  {path} is {length} lines\n" if kind == "file" else f"  {path}:{line}: {name} is {length} lines\n")
            status = 1
        out.write("\n")
        summary.append(f"{len(found)} {kinds_word}, {long_ones} over {limit} lines")
    if status == 0:
        out.write(f"check_lengths.py: ok: {'; '.join(summary)}, each with its reason\n")
    return status


# ---------------------------------------------------------------- self-test

def long_body(lines):
    return "".join(f"  total += {i};\n" for i in range(lines))


def long_class(name, lines, before="", first_body=""):
    return f"{before}struct {name} {{\n{first_body}" + "".join(f"  int m{i};\n" for i in range(lines)) + "};\n"


SELF_TEST_FILES = {
    # (file, text): what the check must reject is named rejected_*.
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
    "src/class_plain.hpp": long_class("rejected_class", 310) + "\n" + long_class("small_class", 20),
    "src/class_above.hpp": long_class("class_said_above", 310, before="// One class: its members are one record\n"),
    "src/class_inside.hpp":
        long_class("class_said_inside", 310, first_body="  // One class: said on its first body line\n"),
    "src/class_marker.hpp":
        long_class("rejected_function_marker", 310, before="// One function: the wrong marker\n"),
    "src/long_file.cpp": "// A long file.\n" + "int long_value = 0;\n" * 610,
    "src/long_file_said.cpp":
        "// A long file.\n// One file: said in its leading comment\n" + "int said_value = 0;\n" * 610,
    "src/long_file_said_late.cpp":
        "// A long file.\nint late_value = 0;\n// One file: too late, after code\n" + "int v = 0;\n" * 610,
    "tests/ignored.cpp": "int outside(int total) {\n" + long_body(90) + "  return total;\n}\n",
}


def self_test():
    ctags = ctags_command()
    if not ctags:
        print("check_lengths.py --self-test: universal-ctags is not installed: skipped")
        return SKIPPED
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST_FILES.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        output = io.StringIO()
        status = check(root, {"function": 80, "class": 300, "file": 600}, 3, output)
    report = output.getvalue()
    failures = []
    if status != 1:
        failures.append(f"exit status {status}, expected 1")
    expected = sorted(n for t in SELF_TEST_FILES.values() for n in re.findall(r"int (rejected_\w+)\(", t))
    expected += ["rejected_class", "rejected_function_marker"]
    rejected = sorted(re.findall(r": (\w+) is \d+ lines", report))
    files = sorted(re.findall(r"^  (src/\S+) is \d+ lines", report, re.M))
    if rejected != sorted(expected):
        failures.append(f"rejected {rejected}, expected {sorted(expected)}")
    if files != ["src/long_file.cpp", "src/long_file_said_late.cpp"]:
        failures.append(f"long files rejected: {files}, expected src/long_file.cpp and src/long_file_said_late.cpp")
    if "outside" in report:
        failures.append("a function under tests/ was checked")
    top = re.findall(r"^\s+(\d+)\s+(\w+)\s+\(", report, re.M)[:3]
    if len(top) != 3 or any(int(a[0]) < int(b[0]) for a, b in zip(top, top[1:])) or int(top[0][0]) != 95:
        failures.append(f"the longest functions are not listed longest first: {top}")
    if failures:
        print("check_lengths.py --self-test: FAILED\n  " + "\n  ".join(failures))
        print(report)
        return 1
    print(f"check_lengths.py --self-test: ok ({len(expected)} long functions and classes and 2 long files "
          f"without a reason rejected, the others accepted)")
    return 0


def main(argv):
    def add_arguments(parser):
        parser.add_argument("--function-limit", type=int, default=80, help="longest function without a reason")
        parser.add_argument("--class-limit", type=int, default=300, help="longest class without a reason")
        parser.add_argument("--file-limit", type=int, default=600, help="longest file without a reason")
        parser.add_argument("--top", type=int, default=15, help="how many of the longest of each to print")

    def run(args):
        limits = {"function": args.function_limit, "class": args.class_limit, "file": args.file_limit}
        return check(args.root, limits, args.top, sys.stdout)

    return run_source_check_main(argv, __doc__, self_test, run, add_arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
