// Cases kept in files: DUET_REPLAY_FILE (one case, a token or a fuzzer's input) and the
// regression directory (DUET_REGRESSIONS: every case a check has failed on, replayed before its
// random cases, as FuzzTest replays testdata/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

/// The replay token a case file's bytes hold, trimmed, or nullopt when they are a fuzzer's
/// input. A UTF-8 byte order mark and whitespace around the text are ignored, and so is the
/// report's "replay:" label; text that then starts with "duet1." is a token, and so is printable
/// text that starts with "duet" in any case ("DUET_REPLAY=duet1...", or a damaged token, which
/// decoding then refuses by name): never a fuzzer's input, which would run as some other case.
std::optional<std::string> token_text(std::string_view bytes);

/// Reads a case file: a token (token_text) or a fuzzer's input. Pipes, FIFOs and devices are read
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
/// None when the directories do not exist. Throws std::invalid_argument naming the path when
/// one of these directories is something else (a file, a FIFO, a broken link), or when a file
/// in them is no regular file (a FIFO, a device): found with stat() alone, never opened.
std::vector<RegressionFile> regression_files(const std::string& dir, const std::string& name, const std::string& executor);

/// Saves a failure's token as <dir>/<identifier(name)>/<identifier(executor)>/<hash of its
/// choices>.token (once: the same case is not saved twice); returns the path. Throws
/// std::runtime_error if it cannot.
std::string save_regression(const std::string& dir, const std::string& name, const std::string& executor,
                            const std::string& token);

}  // namespace duet::detail
