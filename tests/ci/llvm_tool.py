"""What the checks that run an LLVM tool (clang-format, clang-tidy) share: finding the one major
version of the tool a check is tuned for, and the command line around the check."""

import argparse
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SKIPPED = 77  # the exit status ctest reports as skipped (SKIP_RETURN_CODE), not passed


@dataclass(frozen=True)
class ToolCheck:
    """A check script that runs an LLVM tool."""
    script: str  # its file name, which begins its messages: "check_format.py"
    doc: str  # its docstring, whose first line describes it (--help)
    tool: str  # "clang-format"
    major_version: int  # the one version of the tool the check is tuned for


def find_llvm_tool(tool, major_version, given=None):
    """(path, None) of `tool` at `major_version` (tool-14, else tool), or (None, why it cannot be used).

    `given`: the program to take instead (a --clang-format or --clang-tidy argument)."""
    candidates = [given] if given else [f"{tool}-{major_version}", tool]
    for name in candidates:
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"version (\d+)\.", version)
        if match and int(match.group(1)) == major_version:
            return path, None
        return None, f"{path} is not {tool} {major_version} ({version.strip()})"
    return None, f"{tool} {major_version} is not installed (apt-get install {tool}-{major_version})"


def run_check_main(argv, check, add_arguments, self_test, run):
    """The main() of a check script that runs an LLVM tool, its exit status.

    Every such script takes --root, --<tool> (the program to run) and --self-test;
    add_arguments(parser) adds its own. Without the tool at check.major_version it says why and
    exits SKIPPED; else self_test(tool_path), or run(tool_path, args, parser)."""
    tool, major_version = check.tool, check.major_version
    parser = argparse.ArgumentParser(description=check.doc.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]),
                        help="the repository (default: the one holding this script)")
    add_arguments(parser)
    parser.add_argument(f"--{tool}", help=f"the {tool} {major_version} to run (default: {tool}-{major_version}, {tool})")
    parser.add_argument("--self-test", action="store_true", help="the checker on embedded snippets")
    args = parser.parse_args(argv)
    tool_path, why_not = find_llvm_tool(tool, major_version, getattr(args, tool.replace("-", "_")))
    if not tool_path:
        print(f"{check.script}: {why_not}: skipped")
        return SKIPPED
    if args.self_test:
        return self_test(tool_path)
    return run(tool_path, args, parser)
