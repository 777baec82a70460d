// An order of sequences of words (choice sequences, precedence bit sets) for ordered containers.
// Use it, not std::vector's operator<: in C++20 mode GCC 12's libstdc++ compares vectors of
// unsigned integers with memcmp on big-endian targets and passes it the element count instead
// of the byte count, so {0, 0, 3} < {0, 0, 5} is false on s390x (found by make multiarch, twice:
// the shrinker's choice sequences, then the calls' precedences of call_order_check.cpp, where a
// set that took two precedences for one let a failing order of the calls go unjudged).
//
//   std::set<std::vector<std::uint64_t>, WordsLess> seen;
//
// Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace duet::detail {

/// a comes before b in lexicographic order, element by element.
inline bool lex_less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i];
  return a.size() < b.size();
}

/// lex_less as an ordered container's comparator.
struct WordsLess {
  bool operator()(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) const { return lex_less(a, b); }
};

}  // namespace duet::detail
