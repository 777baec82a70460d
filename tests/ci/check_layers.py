#!/usr/bin/env python3
"""The public headers sit above include/duet/detail/: no detail header includes a public one.

    python3 tests/ci/check_layers.py [--root DIR]
    python3 tests/ci/check_layers.py --self-test

A public header (include/duet/*.hpp, include/duet/testing/*.hpp) holds what users write and its
doc comments; what implements it is in detail headers and the library. A detail header that
included a public one made the two layers one (a change to a public header recompiled the
engine's internals, and a cycle was one include away). A detail header names a public type
through duet/detail/declarations.hpp; one that needs its definition is a part of the public
header that includes it, after that definition. Exit status: 0 when no detail header includes a
public one, 1 otherwise.
"""

import re
import sys
from pathlib import Path

from source_check import check_files, run_source_check_main, self_test_verdict

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](duet/[^">]+)[">]', re.M)


def public(header):
    """True for a public header's include path ("duet/gen.hpp"), false for a detail one."""
    return not header.startswith("duet/detail/")


def check(root, out):
    found = []
    detail = Path(root) / "include" / "duet" / "detail"
    for path in sorted(detail.rglob("*.hpp")):
        text = path.read_text(errors="replace")
        for m in INCLUDE.finditer(text):
            if public(m.group(1)):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(root)}:{line}: a detail header includes the public "
                             f"{m.group(1)}: name its types through duet/detail/declarations.hpp, or "
                             f"let the public header include this one after their definitions")
    if found:
        out.write("\n".join(found) + "\n")
        return 1
    out.write("check_layers.py: ok: no detail header includes a public one\n")
    return 0


# ---------------------------------------------------------------- self-test

SELF_TEST_FILES = {
    "include/duet/detail/bad.hpp": """#pragma once
#include "duet/gen.hpp"
#include <duet/testing/fake.hpp>
#include "duet/detail/declarations.hpp"
""",
    "include/duet/detail/api/also_bad.hpp": """#pragma once
#  include "duet/result.hpp"
""",
    "include/duet/detail/good.hpp": """#pragma once
#include <vector>
#include "duet/detail/property.hpp"
#include "duet/detail/api/environment.hpp"
""",
    "include/duet/public.hpp": """#pragma once
#include "duet/gen.hpp"
#include "duet/detail/good.hpp"
""",
}


def self_test():
    status, report = check_files(SELF_TEST_FILES, check)
    flagged = sorted(re.findall(r"^(include/\S+:\d+):", report, flags=re.M))
    expected = ["include/duet/detail/api/also_bad.hpp:2", "include/duet/detail/bad.hpp:2",
                "include/duet/detail/bad.hpp:3"]
    failures = []
    if status != 1:
        failures.append(f"exit status {status}, expected 1")
    if flagged != expected:
        failures.append(f"flagged {flagged}, expected {expected}")
    return self_test_verdict("check_layers.py", failures, report, "3 includes flagged, the detail and public headers' own left alone")


def main(argv):
    return run_source_check_main(argv, __doc__, self_test, lambda args: check(args.root, sys.stdout))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
