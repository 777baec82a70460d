// Replays: a token (DUET_REPLAY, DUET_REPLAY_FILE holding one, a regression case), a fuzzer's
// input (the bytes a fuzzer gives, DUET_REPLAY_FILE holding them, a regression case), and the
// regression directory (DUET_REGRESSIONS) before any random case.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "engine/run_context.hpp"

namespace duet::detail {

/// Replays a token. `from`: where it came from, for errors ("DUET_REPLAY or --duet_replay", a
/// file); `label`: what the one line of its outcome calls it ("DUET_REPLAY"). A regression
/// case that passes prints nothing (the caller sums them up).
CheckResult replay_token(RunContext& context, const std::string& token, const std::string& from, const std::string& label,
                         bool regression = false);

/// One case from raw bytes (a fuzzer's input). Running out of bytes is not a failure.
/// `replayed`: what a file's bytes replayed (DUET_REPLAY_FILE, a regression case) are called
/// in the one line of their outcome; such bytes are no valid input when they checked nothing.
CheckResult bytes_case(RunContext& context, std::span<const std::uint8_t> bytes, const std::string* replayed = nullptr,
                       bool quiet = false);

/// DUET_REPLAY_FILE: a token, or a fuzzer's input run as the choice stream.
CheckResult replay_file(RunContext& context);

/// The regression cases under DUET_REGRESSIONS, before any random case: the first that fails
/// (or cannot be read) is the check's result; none: nullopt, and the search goes on, after a
/// line saying how many passed.
std::optional<CheckResult> replay_regressions(RunContext& context);

}  // namespace duet::detail
