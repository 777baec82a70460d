// make demo: duet finds and shrinks a real bug, and passes a correct implementation.
#include <cstdio>
#include <string>

#include "ring_buffer.hpp"

int main() {
  std::printf("== duet demo: a bounded ring-buffer queue against a std::deque model ==\n\n");
  std::printf("-- 1. the buggy queue (read index wraps to 1 instead of 0) --\n");
  const duet::CheckResult buggy = duet::check_sequential<ring::BuggyRingBufferSpec>({.name = "BuggyRingBuffer"});
  std::printf("%s\n", buggy.report.c_str());

  std::printf("-- 2. the correct queue --\n");
  const duet::CheckResult correct = duet::check_sequential<ring::CorrectRingBufferSpec>({.name = "CorrectRingBuffer"});
  if (!correct) std::printf("%s\n", correct.report.c_str());

  std::printf("\n== summary ==\n");
  std::printf("  buggy ring buffer:   %s after %llu cases, shrunk to %zu steps in %llu shrink steps\n",
              buggy.status == duet::CheckResult::Status::failed ? "bug found" : "NOT FOUND",
              static_cast<unsigned long long>(buggy.cases), buggy.failing_length,
              static_cast<unsigned long long>(buggy.shrink_steps));
  std::printf("  correct ring buffer: %s (%llu cases, %llu commands)\n", correct ? "passed" : "FAILED",
              static_cast<unsigned long long>(correct.cases), static_cast<unsigned long long>(correct.commands));
  const bool as_expected = buggy.status == duet::CheckResult::Status::failed && correct.passed();
  std::printf("  demo %s\n", as_expected ? "ok" : "did not go as expected");
  return as_expected ? 0 : 1;
}
