// Comparing reports in tests: a run and its replay differ only in the timing line and the
// replay's own line ("  replayed:   DUET_REPLAY: failed as recorded, on its 3rd trial").
#pragma once

#include <sstream>
#include <string>

namespace duet_test {

/// The report without its "  time:" and "  replayed:" lines.
inline std::string without_time(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  time:", 0) != 0 && line.rfind("  replayed:", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace duet_test
