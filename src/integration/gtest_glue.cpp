// The GoogleTest glue (duet/gtest_glue.hpp), compiled once into duet::gtest against the
// GoogleTest the project links, rather than in every test file that includes the header.
#include "duet/gtest_glue.hpp"

#include <gtest/gtest-spi.h>

#include <memory>
#include <string>

#include "duet/detail/property.hpp"
#include "execute/fibers/thread_locals.hpp"

namespace duet::detail {
namespace {

/// GoogleTest's fake reporter, intercepting this thread's results while the capture lives; the
/// failures among them go to the log.
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

std::unique_ptr<AssertionCapture> make_gtest_assertion_capture() { return std::make_unique<GtestAssertionCapture>(); }

}  // namespace

bool register_gtest_glue() noexcept {
  set_assertion_capture(&make_gtest_assertion_capture);
  // GoogleTest's per-thread state (the assertion reporter the capture installs, SCOPED_TRACE)
  // stays the scheduling thread's on fibers.
  share_thread_key_with_fibers(&testing::internal::DeleteThreadLocalValue);
  return true;
}

}  // namespace duet::detail

namespace duet {

testing::AssertionResult gtest_assertion_result(const CheckResult& r, testing::AssertionResult*) {
  if (r.passed()) return testing::AssertionSuccess();
  testing::Message message;
  message << "\n" << r.report.c_str();
  return testing::AssertionFailure(message);
}

}  // namespace duet
