#!/usr/bin/env python3
"""No ordered container in include/, src/ or models/ keyed by vectors of unsigned integers with
the standard library's order.

    python3 tests/ci/check_word_order.py [--root DIR]
    python3 tests/ci/check_word_order.py --self-test

In C++20 mode GCC 12's libstdc++ compares std::vector of unsigned integers with memcmp on
big-endian targets and passes it the element count instead of the byte count: {0, 0, 3} <
{0, 0, 5} is false on s390x. A std::set or std::map keyed by such vectors (or by a pair or
tuple holding one) then takes distinct keys for one, silently: twice a bug of duet's that only
an emulated s390x run showed (the shrinker's choice sequences, the calls' precedences of
src/execute/call_order_check.cpp). Such a container must name its comparator
(duet::detail::WordsLess, src/engine/word_order.hpp); this check finds those that do not, on
any host. Exit status: 0 when none is found, 1 otherwise.
"""

import re
import sys
from pathlib import Path

from source_check import check_files, run_source_check_main, self_test_verdict

DIRECTORIES = ("include", "src", "models")
SUFFIXES = (".hpp", ".cpp", ".h", ".cc")
ORDERED = re.compile(r"\bstd::(set|map|multiset|multimap)\s*<")
# How many template arguments name the key (and, for maps, the value) before the comparator.
KEY_ARGS = {"set": 1, "multiset": 1, "map": 2, "multimap": 2}
UNSIGNED_VECTOR = re.compile(
    r"\bstd::vector\s*<\s*(?:std::)?(?:uint(?:8|16|32|64)_t|size_t|uintptr_t|unsigned\b[\w ]*)\s*[,>]")


def template_arguments(text, start):
    """The top-level template arguments of the list whose '<' is at text[start - 1], and where it
    ends; None when the list does not close."""
    depth, args, current, i = 1, [], [], start
    while i < len(text):
        c = text[i]
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return args, i
        elif c == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    return None


def findings_in(text):
    """(line, container) for each ordered container whose key holds a vector of unsigned
    integers and that names no comparator."""
    found = []
    for m in ORDERED.finditer(text):
        parsed = template_arguments(text, m.end())
        if parsed is None:
            continue
        args, _ = parsed
        if len(args) > KEY_ARGS[m.group(1)]:
            continue  # a comparator is named
        if UNSIGNED_VECTOR.search(args[0] + ">"):
            found.append((text.count("\n", 0, m.start()) + 1, "std::" + m.group(1)))
    return found


def without_comments(text):
    """The text with // and /* */ comments blanked (line numbers kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def check(root, out):
    found = []
    for directory in DIRECTORIES:
        for path in sorted((Path(root) / directory).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            text = without_comments(path.read_text(errors="replace"))
            for line, container in findings_in(text):
                found.append(f"{path.relative_to(root)}:{line}: a {container} keyed by vectors of unsigned "
                             f"integers with std::vector's order (wrong on s390x): name a comparator, "
                             f"duet::detail::WordsLess (src/engine/word_order.hpp)")
    if found:
        out.write("\n".join(found) + "\n")
        return 1
    out.write("check_word_order.py: ok: no ordered container keyed by vectors of unsigned integers "
              "with std::vector's order\n")
    return 0


# ---------------------------------------------------------------- self-test

SELF_TEST_FILES = {
    "src/bad.cpp": """
std::set<std::vector<std::uint64_t>> a;
std::map<std::vector<unsigned>, int> b;
std::set<std::pair<std::uint64_t, std::vector<std::uint32_t>>> c;
std::multimap<std::tuple<int, std::vector<std::size_t>>, std::string> d;
""",
    "include/good.hpp": """
std::set<std::vector<std::uint64_t>, WordsLess> a;
std::map<std::vector<std::uint64_t>, Seen, ChoicesLess> b;
std::set<std::vector<int>> c;  // signed: compared element by element
std::map<std::string, std::vector<std::uint64_t>> d;  // the value, not the key
// std::set<std::vector<std::uint64_t>> in a comment
std::unordered_set<std::vector<std::uint64_t>, Hash> e;
""",
}


def self_test():
    status, report = check_files(SELF_TEST_FILES, check)
    flagged = sorted(int(m) for m in re.findall(r"^src/bad\.cpp:(\d+):", report, flags=re.M))
    failures = []
    if status != 1:
        failures.append(f"exit status {status}, expected 1")
    if flagged != [2, 3, 4, 5]:
        failures.append(f"flagged lines {flagged} of src/bad.cpp, expected [2, 3, 4, 5]")
    if "good.hpp" in report:
        failures.append("flagged include/good.hpp, which names comparators or keys no such vector")
    return self_test_verdict("check_word_order.py", failures, report, "4 containers flagged, 6 left alone")


def main(argv):
    return run_source_check_main(argv, __doc__, self_test, lambda args: check(args.root, sys.stdout))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
