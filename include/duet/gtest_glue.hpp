// GoogleTest glue without the front ends: include it with the one front end a test file uses,
// which compiles faster than the umbrella duet/gtest.hpp.
//
//   #include <duet/state_machine.hpp>
//   #include <duet/gtest_glue.hpp>
//   TEST(Queue, AgreesWithModel) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
//
// - EXPECT_TRUE(duet::check_...()) fails with duet's report as its message.
// - EXPECT_* written inside a spec's run(), expected(), postcondition() or next() are
//   disagreements: duet intercepts them while it searches and shrinks, and reports the shrunk
//   case.
#pragma once

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "duet/check_result.hpp"
#include "duet/detail/engine.hpp"

namespace duet::detail {

/// Thread-specific data (pthread keys) whose destructor is `destructor` belongs to the test
/// framework, not to the subject: on a fiber such a key keeps the scheduling thread's value (so
/// that an assertion inside a call reaches the capture below), where every other key has one
/// value per fiber. Compiled once in the library (src/execute/fibers/thread_locals.cpp).
void share_thread_key_with_fibers(void (*destructor)(void*)) noexcept;

/// Appends one assertion failure to `out` as AssertionCapture::messages_since spells it:
/// "file:line: message" on one line, after a " | " when `out` is not empty. Compiled once in the
/// library (src/report/report.cpp), not in every test file.
void append_assertion_message(std::string& out, const char* file, int line, const char* message);

/// GoogleTest's fake reporter, intercepting this thread's results while the capture lives; the
/// failures among them go to the log (as a TestPartResultArray would hold them, without
/// compiling its vector of results in every test file).
class GtestAssertionCapture final : public AssertionCapture, private testing::ScopedFakeTestPartResultReporter {
 public:
  GtestAssertionCapture() : ScopedFakeTestPartResultReporter(INTERCEPT_ONLY_CURRENT_THREAD, nullptr) {}
  std::size_t count() const override { return log_.count(); }
  std::string messages_since(std::size_t first) const override { return log_.messages_since(first); }
  void ReportTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed()) log_.add(r.file_name(), r.line_number(), r.message());
  }

 private:
  AssertionLog log_;
};

inline std::unique_ptr<AssertionCapture> make_gtest_assertion_capture() {
  return std::unique_ptr<AssertionCapture>(new GtestAssertionCapture());
}

// Registered by including this header: any test file that uses duet with GoogleTest.
inline const bool gtest_assertion_capture_registered = (set_assertion_capture(&make_gtest_assertion_capture), true);
// GoogleTest's per-thread state (the assertion reporter the capture installs, SCOPED_TRACE)
// stays the scheduling thread's on fibers.
inline const bool gtest_thread_keys_shared =
    (share_thread_key_with_fibers(&testing::internal::DeleteThreadLocalValue), true);

}  // namespace duet::detail

namespace duet {

/// EXPECT_TRUE(duet::check_...()): CheckResult's conversion to testing::AssertionResult, the
/// report after a newline as the failure message (as the conversion streams it without this
/// header), through GoogleTest's out-of-line AssertionFailure.
inline testing::AssertionResult gtest_assertion_result(const CheckResult& r, testing::AssertionResult*) {
  if (r.passed()) return testing::AssertionSuccess();
  testing::Message message;
  message << static_cast<const char*>("\n") << r.report.c_str();
  return testing::AssertionFailure(message);
}

}  // namespace duet
