// Verdicts a test of a correct subject on threads accepts.
#pragma once

#include <string>

#include <duet/check_result.hpp>

namespace test_verdicts {

/// Passed, or the honest "inconclusive" of a check on threads whose branches (almost) never
/// overlapped: on a machine busy with other work (ctest -j2 on 2 cores, a sanitizer build) a
/// small budget may see too little overlap. Never a failure, never another error.
inline bool passed_or_inconclusive(const duet::CheckResult& r) {
  return r.passed() ||
         (r.status == duet::CheckResult::Status::error && r.report.find(": inconclusive: ") != std::string::npos);
}

}  // namespace test_verdicts
