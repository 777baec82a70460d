// Shared by the decisions' tests (tests/checker/*_decision_test.cpp, differential_test.cpp):
// random executions to build histories from, the sub-history a witness names, and the ways a
// failing window with open operations can be taken.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <duet/history.hpp>

namespace duet_test {

/// One operation of a random execution: invoked, takes effect at `point`, returns.
struct PlannedCall {
  std::uint64_t invoke, point, response;
  std::uint32_t process;
};

/// `n` calls spread over `processes` processes (one at a time each, short gaps), and the order
/// in which they take effect (indices, by point).
inline std::vector<PlannedCall> random_execution(std::mt19937_64& rng, int n, int processes,
                                                 std::vector<std::size_t>& by_point) {
  std::vector<PlannedCall> plan;
  std::vector<std::uint64_t> busy_until(static_cast<std::size_t>(processes), 0);
  for (int i = 0; i < n; ++i) {
    const std::uint32_t p = static_cast<std::uint32_t>(rng() % busy_until.size());
    const std::uint64_t invoke = busy_until[p] + rng() % 6;
    const std::uint64_t response = invoke + 1 + rng() % 14;
    busy_until[p] = response + 1;
    plan.push_back({invoke, invoke + rng() % (response - invoke + 1), response, p});
  }
  by_point.resize(plan.size());
  std::iota(by_point.begin(), by_point.end(), std::size_t{0});
  std::stable_sort(by_point.begin(), by_point.end(),
                   [&](std::size_t a, std::size_t b) { return plan[a].point < plan[b].point; });
  return plan;
}

/// The history of just the operations a witness names (indices into h.ops).
inline duet::history::History sub_history(const duet::history::History& h, const std::vector<std::size_t>& ops) {
  duet::history::History window = h;
  window.ops.clear();
  for (std::size_t i : ops) window.ops.push_back(h.ops[i]);
  return window;
}

/// Each way a report's witness can be taken, as a re-check must try them all: its operations
/// (indices into History::ops) with each subset of the open ones (a failing window's,
/// CheckReport::witness_open: they took effect with their recorded result, or not at all) kept.
/// A decision's witness, with none open, has one reading: itself.
inline std::vector<std::vector<std::size_t>> witness_readings(const duet::history::CheckReport& r) {
  const std::vector<std::size_t>& open = r.witness_open;
  std::vector<std::vector<std::size_t>> readings;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << open.size()); ++mask) {
    std::vector<std::size_t> kept;
    for (std::size_t i : r.witness) {
      const auto at = std::find(open.begin(), open.end(), i);
      if (at == open.end() || ((mask >> (at - open.begin())) & 1)) kept.push_back(i);
    }
    readings.push_back(std::move(kept));
  }
  return readings;
}

}  // namespace duet_test
