// Cases kept in files: DUET_REPLAY_FILE (one case, a token or a fuzzer's input) and the
// regression directory (DUET_REGRESSIONS: every case a check has failed on, replayed before its
// random cases, as FuzzTest replays testdata/).
#pragma once

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

/// Reads a case file. A file whose text starts with "duet1." is a token (one line; trailing
/// whitespace ignored); anything else is a fuzzer's input. Throws std::invalid_argument naming
/// the file when it cannot be read or is empty.
CaseFile read_case_file(const std::string& path);

/// The regression files of a check, sorted by name: <dir>/<identifier(name)>/*. None when the
/// directory does not exist. Throws std::invalid_argument when `dir` exists but is no directory.
std::vector<std::string> regression_files(const std::string& dir, const std::string& name);

/// Saves a failure's token as <dir>/<identifier(name)>/<hash of its choices>.token (once: the
/// same case is not saved twice); returns the path. Throws std::runtime_error if it cannot.
std::string save_regression(const std::string& dir, const std::string& name, const std::string& token);

}  // namespace duet::detail
