// Comparing reports in tests: a run and its replay differ only in the timing line.
#pragma once

#include <sstream>
#include <string>

namespace duet_test {

/// The report without its "  time:" line.
inline std::string without_time(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  time:", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace duet_test
