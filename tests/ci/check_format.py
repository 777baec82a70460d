#!/usr/bin/env python3
"""The tree formatted by its .clang-format (clang-format 14).

    python3 tests/ci/check_format.py [--root DIR]      # exit 0 when every file is formatted
    python3 tests/ci/check_format.py --fix             # formats them in place (clang-format -i)
    python3 tests/ci/check_format.py --self-test       # the checker on embedded snippets

The files are the C++ sources and headers under include/, src/, models/, tests/ and bench/,
but for those whose lines other files name (EXCLUDED, with the reason): reformatting them
would move the lines that golden reports, compile-error tests and the headers' doc examples
quote. The check runs `clang-format --dry-run -Werror` on each file and, when some are not
formatted, says how many lines would change in each. Another major version formats some
constructs differently, so the check takes clang-format 14 only; without it, it is skipped
(exit 77, which ctest reports as skipped, not passed).
"""

import io
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from llvm_tool import ToolCheck, run_check_main

DIRECTORIES = ("include", "src", "models", "tests", "bench")
EXTENSIONS = (".cpp", ".hpp", ".h", ".cc")
CHECK = ToolCheck("check_format.py", __doc__, "clang-format", 14)
# path (a file, or a directory ending in /) -> why its lines must stay where they are
EXCLUDED = {
    "tests/compile_fail/": "duet_compile_fail's AT_LINE names lines of these files",
    "tests/unit/doc_examples_test.cpp": "the headers' doc examples, line for line "
                                        "(tests/unit/doc_examples_check.cmake)",
    "tests/golden/expected/": "drafts duet writes, compared byte for byte with its output",
    "tests/support/fiber_subjects.hpp": "golden reports quote its line numbers",
    "include/duet/testing/block_device.hpp": "golden reports quote its line numbers",
    "models/duet/models/spsc_ring.hpp": "golden reports quote its line numbers",
}


def is_excluded(path):
    return any(path == e or (e.endswith("/") and path.startswith(e)) for e in EXCLUDED)


def source_files(root):
    """The files the check covers, relative to root, sorted."""
    files = []
    for directory in DIRECTORIES:
        for dirpath, dirnames, filenames in os.walk(Path(root) / directory):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                path = (Path(dirpath) / name).relative_to(root).as_posix()
                if name.endswith(EXTENSIONS) and not is_excluded(path):
                    files.append(path)
    return sorted(files)


def changed_lines(clang_format, root, path):
    """How many of path's lines clang-format would change (0 when it is formatted)."""
    original = (Path(root) / path).read_text(errors="replace").splitlines()
    formatted = subprocess.run([clang_format, "--style=file", str(Path(root) / path)],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    matcher = difflib.SequenceMatcher(None, original, formatted, autojunk=False)
    return sum(i2 - i1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal")


def is_formatted(clang_format, root, path):
    result = subprocess.run([clang_format, "--style=file", "--dry-run", "-Werror", str(Path(root) / path)],
                            capture_output=True, text=True)
    return result.returncode == 0


def check(clang_format, root, out, jobs=2):
    files = source_files(root)
    with ThreadPoolExecutor(jobs) as pool:
        formatted = list(pool.map(lambda f: is_formatted(clang_format, root, f), files))
        unformatted = [f for f, ok in zip(files, formatted) if not ok]
        counts = list(pool.map(lambda f: changed_lines(clang_format, root, f), unformatted))
    if unformatted:
        for path, count in sorted(zip(unformatted, counts), key=lambda x: (-x[1], x[0])):
            out.write(f"  {path}: {count} lines to reformat\n")
        out.write(f"check_format.py: {len(unformatted)} of {len(files)} files are not formatted "
                  f"({sum(counts)} lines would change); `python3 tests/ci/check_format.py --fix` "
                  f"formats them\n")
        return 1
    out.write(f"check_format.py: ok: {len(files)} files formatted "
              f"({len(EXCLUDED)} paths excluded: their line numbers are quoted elsewhere)\n")
    return 0


def fix(clang_format, root, out):
    files = source_files(root)
    for start in range(0, len(files), 50):
        subprocess.run([clang_format, "--style=file", "-i", *[str(Path(root) / f) for f in files[start:start + 50]]],
                       check=True)
    out.write(f"check_format.py: formatted {len(files)} files in place\n")
    return 0


# ---------------------------------------------------------------- self-test

FORMATTED = "namespace demo {\n\nint twice(int x) { return 2 * x; }\n\n}  // namespace demo\n"
UNFORMATTED = "namespace demo {\nint  twice( int x )\n{\n    return 2*x;\n}\n}\n"


def self_test(clang_format):
    failures = []
    missing = [p for p in EXCLUDED if not (Path(__file__).resolve().parents[2] / p).exists()]
    if missing:
        failures.append(f"excluded paths that do not exist (renamed? update EXCLUDED): {missing}")
    with tempfile.TemporaryDirectory() as root:
        shutil.copy(Path(__file__).resolve().parents[2] / ".clang-format", Path(root) / ".clang-format")
        for path, text in {"src/good.cpp": FORMATTED, "include/bad.hpp": UNFORMATTED,
                           "tests/compile_fail/bad.cpp": UNFORMATTED, "docs/bad.cpp": UNFORMATTED}.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        report = io.StringIO()
        status = check(clang_format, root, report)
        if status != 1 or "include/bad.hpp: 5 lines" not in report.getvalue() or "1 of 2 files" not in report.getvalue():
            failures.append(f"one unformatted file of two: exit {status}, printed:\n{report.getvalue()}")
        fix(clang_format, root, io.StringIO())
        report = io.StringIO()
        status = check(clang_format, root, report)
        if status != 0:
            failures.append(f"after --fix: exit {status}, printed:\n{report.getvalue()}")
        if (Path(root) / "tests/compile_fail/bad.cpp").read_text() != UNFORMATTED:
            failures.append("--fix formatted an excluded file")
    if failures:
        print("check_format.py --self-test: FAILED\n  " + "\n  ".join(failures))
        return 1
    print("check_format.py --self-test: ok (an unformatted file found and fixed, excluded paths left alone)")
    return 0


def main(argv):
    def add_arguments(parser):
        parser.add_argument("--fix", action="store_true", help="format the files in place")

    def run(clang_format, args, _parser):
        return fix(clang_format, args.root, sys.stdout) if args.fix else check(clang_format, args.root, sys.stdout)

    return run_check_main(argv, CHECK, add_arguments, self_test, run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
