#!/usr/bin/env python3
"""The library free of the clang-tidy findings its .clang-tidy asks for (clang-tidy 14).

    python3 tests/ci/check_tidy.py --build build          # exit 0 when clang-tidy finds nothing
    python3 tests/ci/check_tidy.py --build build --jobs 2 # files checked at once (default 2)
    python3 tests/ci/check_tidy.py --self-test            # the checker on embedded snippets

The files are the library's sources, src/**/*.cpp, as the build compiles them (its
compile_commands.json, which the top-level build writes); the headers they include from
include/, src/ and models/ are checked with them (.clang-tidy's HeaderFilterRegex), and a
finding in a header that many files include is reported once. Each finding is printed as
clang-tidy words it, with the number of findings per check, and the check fails on any. Another
major version has other checks and other findings, so the check takes clang-tidy 14 only;
without it, it is skipped (exit 77, which ctest reports as skipped, not passed).
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from llvm_tool import ToolCheck, run_check_main

CHECK = ToolCheck("check_tidy.py", __doc__, "clang-tidy", 14)
# "path:line:col: warning: text [check-name]" (clang-tidy's own words; colours off).
FINDING = re.compile(r"^(?P<where>[^\s:][^:]*:\d+:\d+): (?P<kind>warning|error): (?P<text>.*?)(?: \[(?P<check>[\w.,-]+)\])?$")


def library_sources(root, build):
    """The src/ files that compile_commands.json compiles, sorted; or raises SystemExit."""
    database = Path(build) / "compile_commands.json"
    if not database.is_file():
        raise SystemExit(f"check_tidy.py: no {database}: configure the build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    src = (Path(root) / "src").resolve()
    files = set()
    for entry in json.loads(database.read_text()):
        path = (Path(entry["directory"]) / entry["file"]).resolve()
        if src in path.parents and path.suffix == ".cpp":
            files.add(path)
    return sorted(files)


def compiler_headers(build):
    """Arguments that let clang-tidy find the headers the build's compiler has of its own.

    GCC keeps some beside its built-in headers (libbacktrace's backtrace.h, which the
    instrumented mode's symbolizer includes); searched after everything else, they add what
    clang's own resource directory lacks without replacing any of its headers."""
    entries = json.loads((Path(build) / "compile_commands.json").read_text())
    if not entries:
        return []
    command = entries[0].get("arguments") or entries[0]["command"].split()
    try:
        found = subprocess.run([command[0], "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return []
    return [f"--extra-arg=-idirafter{found}"] if os.path.isabs(found) and os.path.isdir(found) else []


def findings_of(clang_tidy, build, path, extra):
    """The findings clang-tidy prints for one file (with the headers it includes)."""
    result = subprocess.run([clang_tidy, "-p", str(build), "--quiet", "--use-color=false", *extra, str(path)],
                            capture_output=True, text=True)
    found = []
    for line in result.stdout.splitlines():
        match = FINDING.match(line)
        if match:
            found.append((match["where"], match["kind"], match["text"], match["check"] or "clang-diagnostic"))
    if result.returncode != 0 and not found:  # clang-tidy failed without saying where
        found.append((str(path), "error", f"clang-tidy exited with status {result.returncode}: "
                      f"{(result.stderr.strip().splitlines() or ['no message'])[-1]}", "clang-tidy"))
    return found


def plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def check(clang_tidy, root, build, out, jobs=2):
    started = time.monotonic()
    files = library_sources(root, build)
    extra = compiler_headers(build)
    with ThreadPoolExecutor(jobs) as pool:
        per_file = list(pool.map(lambda f: findings_of(clang_tidy, build, f, extra), files))
    findings = sorted({finding for found in per_file for finding in found})
    seconds = time.monotonic() - started
    prefix = str(Path(root).resolve()) + os.sep
    for where, kind, text, name in findings:
        out.write(f"  {where.removeprefix(prefix)}: {kind}: {text} [{name}]\n")
    if findings:
        per_check = Counter(name for _, _, _, name in findings)
        summary = ", ".join(f"{name} {count}" for name, count in sorted(per_check.items(), key=lambda x: (-x[1], x[0])))
        out.write(f"check_tidy.py: {plural(len(findings), 'finding')} in {len(files)} files of src/ and the headers they "
                  f"include ({summary}), {seconds:.0f} s\n")
        return 1
    out.write(f"check_tidy.py: ok: no finding in {len(files)} files of src/ and the headers they include, "
              f"{seconds:.0f} s with {jobs} jobs\n")
    return 0


# ---------------------------------------------------------------- self-test

CLEAN = "#include <string>\n\nstd::size_t length(const std::string& text) { return text.size(); }\n"
# A string copied for each call and only read: performance-unnecessary-value-param.
COPIED = "#include <string>\n\nstd::size_t length(std::string text) { return text.size(); }\n"


def self_test(clang_tidy):
    failures = []
    with tempfile.TemporaryDirectory() as root:
        shutil.copy(Path(__file__).resolve().parents[2] / ".clang-tidy", Path(root) / ".clang-tidy")
        build = Path(root) / "build"
        build.mkdir()
        sources = {"src/clean.cpp": CLEAN, "src/copied.cpp": COPIED, "tests/copied_too.cpp": COPIED}
        entries = []
        for path, text in sources.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
            entries.append({"directory": str(build), "file": str(Path(root) / path),
                            "command": f"c++ -std=c++20 -c {Path(root) / path}"})
        (build / "compile_commands.json").write_text(json.dumps(entries))
        report = _run_check(clang_tidy, root, build)
        if report[0] != 1 or "src/copied.cpp:3:32: warning:" not in report[1] or \
                "[performance-unnecessary-value-param]" not in report[1] or "1 finding in 2 files" not in report[1]:
            failures.append(f"one file of two with a finding (tests/ not checked): exit {report[0]}, printed:\n{report[1]}")
        (Path(root) / "src/copied.cpp").write_text(CLEAN)
        report = _run_check(clang_tidy, root, build)
        if report[0] != 0:
            failures.append(f"after the fix: exit {report[0]}, printed:\n{report[1]}")
    if failures:
        print("check_tidy.py --self-test: FAILED\n  " + "\n  ".join(failures))
        return 1
    print("check_tidy.py --self-test: ok (a by-value parameter found in src/, nothing found once it is fixed)")
    return 0


def _run_check(clang_tidy, root, build):
    report = io.StringIO()
    status = check(clang_tidy, root, build, report)
    return status, report.getvalue()


def main(argv):
    def add_arguments(parser):
        parser.add_argument("--build", help="the build directory holding compile_commands.json")
        parser.add_argument("--jobs", type=int, default=2, help="files checked at once (default 2)")

    def run(clang_tidy, args, parser):
        if not args.build:
            parser.error("--build DIR is needed (the build whose compile_commands.json says how each file compiles)")
        return check(clang_tidy, args.root, args.build, sys.stdout, args.jobs)

    return run_check_main(argv, CHECK, add_arguments, self_test, run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
