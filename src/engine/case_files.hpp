// Cases kept in files: DUET_REPLAY_FILE (one case, a token or a fuzzer's input) and the
// regression directory (DUET_REGRESSIONS: every case a check has failed on, replayed before its
// random cases, as FuzzTest replays testdata/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace duet::detail {

struct CaseFile {
  std::string path;
  bool is_token = false;
  std::string token;  // is_token: the replay token, trimmed
  std::string bytes;  // else: the raw bytes, read as a choice stream
};

/// The most a case file may hold, and how long reading one may take (a pipe, a device).
inline constexpr std::size_t kCaseFileCap = std::size_t{16} << 20;
inline constexpr double kCaseFileSeconds = 10;

/// Reads a case file. A file whose text starts with "duet1." is a token (one line; trailing
/// whitespace ignored); anything else is a fuzzer's input. Pipes, FIFOs and devices are read
/// too, never blocking: up to `cap` bytes within `seconds`. Throws std::invalid_argument naming
/// the file when it cannot be read, is empty, is larger than `cap` or does not end in time.
CaseFile read_case_file(const std::string& path, std::size_t cap = kCaseFileCap, double seconds = kCaseFileSeconds);

struct RegressionFile {
  std::string path;
  /// In <dir>/<check>/ itself, the layout before cases were kept per executor: the checks of
  /// every executor share it, so a token another executor recorded there is not this check's.
  bool shared = false;
};

/// The regression files of a check on an executor, sorted by name: <dir>/<identifier(name)>/
/// <identifier(executor)>/*, then the shared ones of the older layout, <dir>/<identifier(name)>/*.
/// None when the directories do not exist. Throws std::invalid_argument when `dir` exists but
/// is no directory.
std::vector<RegressionFile> regression_files(const std::string& dir, const std::string& name, const std::string& executor);

/// Saves a failure's token as <dir>/<identifier(name)>/<identifier(executor)>/<hash of its
/// choices>.token (once: the same case is not saved twice); returns the path. Throws
/// std::runtime_error if it cannot.
std::string save_regression(const std::string& dir, const std::string& name, const std::string& executor,
                            const std::string& token);

}  // namespace duet::detail
