// The steps of a kv key's translation onto the unique-value register (kv_decision.cpp),
// tested alone (tests/checker/kv_decision_test.cpp): what can make each value, and which
// operation makes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/model.hpp"

namespace duet::history::detail::kv_decision {

/// What can make a value: the puts and the appends that did not fail, by the text they carry,
/// and the lengths of the appended texts (sorted, each once).
struct KvMakers {
  std::unordered_map<std::string, std::vector<std::uint32_t>> puts, appends;
  std::vector<std::size_t> lengths;
};
KvMakers kv_makers(const std::vector<KvOp>& ops, const Interner& values);

/// How a value can be made: by how many operations, one of them, and (an append) the value
/// before it.
struct Making {
  std::size_t makers = 0;
  std::optional<std::uint32_t> made_by;
  std::string before;
};
Making making_of(const KvMakers& makers, const std::string& value);

}  // namespace duet::history::detail::kv_decision
