// Replay tokens: one line that re-runs exactly one case (DUET_REPLAY=...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace duet::detail {

struct ReplayRecord {
  std::uint32_t spec_id = 0;  // which spec recorded it
  std::uint64_t seed = 0;     // the run that found it, and what it took, so that the
  std::uint64_t cases = 0;    // replayed report reads the same
  std::uint64_t shrink_steps = 0;
  // The generation settings the case was drawn under, so that the token replays the same
  // case whatever the current settings.
  std::uint64_t max_length = 100;
  std::uint64_t continue_odds = 10;
  std::vector<std::uint64_t> choices;
  /// Set instead of choices when the case could not be recorded (it hung): regenerate it
  /// from this case seed.
  std::optional<std::uint64_t> case_seed;
  /// Where the case ran ("threads", "fibers:pct(3)", "fibers:random,memory_model=sc"): empty
  /// for a sequential check, and in tokens of earlier duet versions (they did not record it).
  std::string executor;
  /// With an executor: the trials of the search that found the case (and how many had their
  /// branches overlapping, on how many CPUs), so that a replay's report reads the same.
  std::uint64_t trials = 0, overlapped = 0, cpus = 0;
};

/// What a fiber executor's tag adds after its strategy when its runs follow MemoryModel::sc
/// ("fibers:random,memory_model=sc"): a schedule's reads mean another run under another model,
/// so the tag, which binds a token to its check, names it. A fiber tag without it (as in every
/// token written before the model was recorded) means MemoryModel::cpp, the default.
inline constexpr std::string_view kMemoryModelTag = ",memory_model=";

/// What a fiber executor's tag ends with when the check ran each trial in a process of its own
/// because a failure did not replay otherwise (Execution::take_trial_processes): its replay runs
/// them so too.
inline constexpr std::string_view kTrialProcessesTag = ",trial_processes";

/// The memory model an executor tag names ("cpp", "sc"); empty for one not on fibers.
std::string tagged_memory_model(std::string_view executor);

/// "duet1." followed by base64url of varint fields and a checksum.
std::string encode_token(const ReplayRecord& record);

/// The token of a case known by its seed (no choices), written into out without allocating
/// (for the crash handler). Returns its length, or 0 if cap is too small.
std::size_t write_seed_token(char* out, std::size_t cap, const ReplayRecord& header, std::uint64_t case_seed);

/// Throws std::invalid_argument saying what is wrong with the token.
ReplayRecord decode_token(const std::string& token);

}  // namespace duet::detail
