// What the timeline page shows (timeline.cpp): the operations prepared once, and the window of
// them chosen when the whole history would not fit the page's size (timeline_window.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "duet/history.hpp"

namespace duet::history::timeline {

inline std::size_t digits(std::uint64_t v) {
  std::size_t d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

// Everything about the operations that does not depend on which of them are shown.
struct Prepared {
  std::vector<std::string> strings;  // labels and states, deduplicated, in first-use order
  std::vector<std::size_t> string_json_size;
  std::vector<std::size_t> label;      // per op: index in strings
  std::vector<std::int64_t> position;  // per op: index in the order, or -1
  std::vector<std::int64_t> state;     // per op: index in strings, or -1
  std::vector<std::size_t> row_size;   // per op: an upper bound of its row's JSON size
  std::optional<std::size_t> stuck;
  std::vector<bool> other_partition;  // per op: not in the partition that failed
  std::vector<bool> in_witness;       // per op: in the violation's witness (empty: no witness)
  std::vector<bool> witness_open;     // per op: open in a failing window (cut while running)
  std::string stuck_state;
  std::string model;
  std::size_t processes = 0;
};

// Which operations to show (sorted indices), and how many were left out on each side.
struct Selection {
  std::vector<std::size_t> ops;
  std::size_t before = 0;
  std::size_t after = 0;
};

/// Everything, if it fits in `budget` bytes of data, or a window: contiguous in invocation order
/// around the stuck operation (the beginning otherwise), then earlier operations still running
/// inside it.
Selection choose(const History& h, const Prepared& p, std::size_t budget);

}  // namespace duet::history::timeline
