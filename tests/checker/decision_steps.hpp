// Shared by the decisions' step tests (tests/checker/*_decision_steps_test.cpp): small
// histories with one process per operation, and what a step made or where it stopped.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "check/decided_order.hpp"

namespace duet_test {

/// Each operation on a process of its own, [invoke, response] (kPending: never returned).
inline std::vector<duet::detail::TimedOp> times(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans) {
  std::vector<duet::detail::TimedOp> timed;
  for (const auto& [invoke, response] : spans) timed.push_back({static_cast<std::uint32_t>(timed.size()), invoke, response});
  return timed;
}

/// What a step made; a test failure (and an empty product) when it stopped.
template <class T>
T product(duet::history::detail::Step<T> step) {
  if (!std::holds_alternative<T>(step)) {
    ADD_FAILURE() << "the step stopped";
    return T{};
  }
  return std::get<T>(std::move(step));
}

/// Where a step stopped: the violation's witness; nothing when it did not stop or stopped
/// undecided.
template <class T>
std::optional<std::vector<std::uint32_t>> violation(const duet::history::detail::Step<T>& step) {
  if (!std::holds_alternative<duet::history::detail::Stop>(step)) return std::nullopt;
  return std::get<duet::history::detail::Stop>(step).witness;
}

}  // namespace duet_test
