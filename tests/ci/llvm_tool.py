"""Finding the one major version of an LLVM tool (clang-format, clang-tidy) that a check is tuned for."""

import re
import shutil
import subprocess


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
