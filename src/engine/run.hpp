// The engine's entry below run_property: a check under settings already resolved.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "duet/check_result.hpp"
#include "engine/run_context.hpp"

namespace duet::detail {

/// The check under context.settings: its cases put on a backend (in process, or in isolation's
/// child), then a fuzzer's input, a replay, the regression cases or a search, and the verdict.
/// Prints nothing but progress lines (per settings.verbose); the caller prints the result.
CheckResult run_resolved(RunContext& context, std::optional<std::span<const std::uint8_t>> bytes);

}  // namespace duet::detail
