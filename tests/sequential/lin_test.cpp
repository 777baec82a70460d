// Signature-only descriptions: printing, and the sequential stress mode (no oracle).
#include <duet/gtest.hpp>

#include <stdexcept>
#include <vector>

namespace {

using duet::CheckResult;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

duet::Lin<std::vector<int>> vector_lin() {
  return duet::Lin<std::vector<int>>("vector", "v")
      .op(
          "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::small_int())
      .op("size", [](std::vector<int>& v) { return v.size(); })
      .op(
          "at", [](std::vector<int>& v, std::size_t i) { return v.at(i); }, duet::integers<std::size_t>(0, 4));
}

TEST(Lin, StressPassesWhenExceptionsAreDeclared) {
  const CheckResult r = vector_lin()
                            .may_throw()
                            .invariant([](const std::vector<int>& v) { return v.size() <= v.capacity(); })
                            .check_stress({.count = 5000});
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 5000u);
}

TEST(Lin, UndeclaredExceptionIsAFailureAndShrinks) {
  const CheckResult r = vector_lin().check_stress({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  EXPECT_TRUE(has(r.report, "std::vector<int> v;")) << r.report;
  EXPECT_TRUE(has(r.report, "v.at(0u);")) << r.report;
  EXPECT_TRUE(has(r.report, "<-- threw std::out_of_range(")) << r.report;
  EXPECT_TRUE(has(r.report, "declare the operation .may_throw()")) << r.report;
}

// A stack that should never hold more than 4 elements, but push forgets to check.
struct BoundedStack {
  std::vector<int> items;
  bool push(int x) {
    if (items.size() > 4) return false;  // off by one: lets a fifth element in
    items.push_back(x);
    return true;
  }
  std::optional<int> pop() {
    if (items.empty()) return std::nullopt;
    int x = items.back();
    items.pop_back();
    return x;
  }
};

TEST(Lin, BrokenInvariantIsFoundAndShrunk) {
  auto lin = duet::Lin<BoundedStack>("BoundedStack", "s")
                 .op(
                     "push", [](BoundedStack& s, int x) { return s.push(x); }, duet::small_int())
                 .op("pop", [](BoundedStack& s) { return s.pop(); })
                 .invariant([](const BoundedStack& s) {
                   return s.items.size() <= 4 ? duet::Verdict(true)
                                              : duet::Verdict::fail("holds " + std::to_string(s.items.size()));
                 });
  const CheckResult r = lin.check_stress({.seed = 2});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 5u) << r.report;  // five pushes of 0
  EXPECT_TRUE(has(r.report, "s.push(0);")) << r.report;
  EXPECT_TRUE(has(r.report, "the invariant fails: holds 5")) << r.report;
}

struct NoDefault {
  explicit NoDefault(int) {}
};

TEST(Lin, NotDefaultConstructibleWithoutInitIsAnError) {
  const CheckResult r = duet::Lin<NoDefault>().op("noop", [](NoDefault&) {}).check_stress();
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "Lin::init")) << r.report;
  const CheckResult ok = duet::Lin<NoDefault>()
                             .init([] { return std::make_unique<NoDefault>(3); }, "NoDefault t(3);")
                             .op("noop", [](NoDefault&) {})
                             .check_stress({.count = 100});
  EXPECT_TRUE(ok) << ok.report;
}

TEST(Lin, GeneratedCallsPrintAsCpp) {
  const auto lin = vector_lin();
  auto src = duet::Source::replay({0, 0, 5});  // push_back, small mode, 5
  duet::detail::LinCall call;
  duet::detail::StepVerdict failure;
  ASSERT_EQ(duet::detail::LinAccess::description(lin)->draw_call(src, call, failure),
            duet::detail::CaseSteps::Drawn::command);
  EXPECT_EQ(call.text, "v.push_back(5)");
  std::vector<int> v;
  EXPECT_TRUE(call.run(&v).is_void());
  EXPECT_EQ(v, std::vector<int>{5});
}

}  // namespace
