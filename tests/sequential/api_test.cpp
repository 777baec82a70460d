// The reference-vs-candidate front end's features, one by one, on small stacks.
#include <duet/gtest.hpp>

#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <vector>

namespace {

using duet::CheckResult;
using Stack = std::vector<int>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Stack make() { return {}; }
Stack push(const Stack& s, int x) {
  Stack t = s;
  t.push_back(x);
  return t;
}
int top(const Stack& s) {
  if (s.empty()) throw std::out_of_range("top of an empty stack");
  return s.back();
}
std::optional<int> peek(const Stack& s) { return s.empty() ? std::nullopt : std::optional<int>(s.back()); }

// A base API over the given top, with push/make always present.
template <class Top, class Res>
duet::Api stack_api(Res result, Top cand_top) {
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  api.op("top", duet::args(stack), result, top, cand_top);
  return api;
}

TEST(Api, EquivalentExceptionsAgree) {
  const CheckResult r = stack_api(duet::may_throw(duet::value<int>()), top).check({.count = 2000});
  EXPECT_TRUE(r) << r.report;
}

TEST(Api, ExceptionOnOneSideOnlyIsADisagreement) {
  auto lenient_top = [](const Stack& s) { return s.empty() ? -1 : s.back(); };
  const CheckResult r = stack_api(duet::may_throw(duet::value<int>()), lenient_top).check({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 2u) << r.report;  // make, top
  EXPECT_TRUE(has(r.report, "top(s0);")) << r.report;
  EXPECT_TRUE(has(r.report, "candidate finds -1; the reference finds that it throws std::out_of_range")) << r.report;
}

TEST(Api, ExceptionsOfDifferentTypesDisagree) {
  auto other_top = [](const Stack& s) {
    if (s.empty()) throw std::logic_error("empty");
    return s.back();
  };
  const CheckResult r = stack_api(duet::may_throw(duet::value<int>()), other_top).check({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_TRUE(has(r.report, "candidate throws std::logic_error(\"empty\"); the reference throws std::out_of_range"))
      << r.report;
  // A custom equivalence accepts any exception for any exception.
  const CheckResult lenient =
      stack_api(duet::may_throw(duet::value<int>(), [](const duet::Result&, const duet::Result&) { return true; }),
                other_top)
          .check({.count = 2000});
  EXPECT_TRUE(lenient) << lenient.report;
}

TEST(Api, UndeclaredCandidateExceptionIsAFailure) {
  const CheckResult r = stack_api(duet::value<int>(), top).check({.seed = 1});
  // The reference throws too, which is a spec error: the report says which side.
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_TRUE(has(r.report, "the reference implementation of top threw std::out_of_range")) << r.report;
}

TEST(Api, BackOffDeclinesAndAnotherOperationRuns) {
  auto careful_top = [](const Stack& s) {
    if (s.empty()) throw duet::BackOff{};
    return s.back();
  };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  api.op("top", duet::args(stack), duet::value<int>(), careful_top, top);  // the candidate would throw
  const CheckResult r = api.check({.count = 3000});
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.discarded, 0u);
}

// Declining is the reference's, before the candidate runs: the case loop has taken the call as
// a command by then, so a BackOff from the candidate (or from a nondet reference, which judges
// the candidate's result) is an error of the spec, naming the call.
TEST(Api, BackOffAfterTheCandidateRanIsASpecError) {
  auto declining_top = [](const Stack& s) {
    if (s.empty()) throw duet::BackOff{};
    return s.back();
  };
  const CheckResult from_candidate = stack_api(duet::value<int>(), declining_top).check({.seed = 1});
  ASSERT_EQ(from_candidate.status, CheckResult::Status::error) << from_candidate.report;
  EXPECT_TRUE(has(from_candidate.report, "duet::BackOff thrown while top(s")) << from_candidate.report;

  duet::Api api("Counter");
  auto counter = api.abstract<int, int>("c");
  api.op(
      "make", duet::args(), counter, [] { return 0; }, [] { return 0; });
  api.op(
      "read", duet::args(counter), duet::nondet(duet::value<int>()),
      [](const int&, const int&) -> duet::Diagnostic<int> { throw duet::BackOff{}; }, [](const int& c) { return c; });
  const CheckResult from_judge = api.check({.seed = 1});
  ASSERT_EQ(from_judge.status, CheckResult::Status::error) << from_judge.report;
  EXPECT_TRUE(has(from_judge.report, "a nondet reference judges the candidate's result and cannot decline it"))
      << from_judge.report;
}

TEST(Api, UnimplementedAbandonsTheScenario) {
  auto unsupported = [](const Stack&) -> int { throw duet::Unimplemented{}; };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("top", duet::args(stack.where([](const Stack& s) { return !s.empty(); })), duet::value<int>(), top, unsupported);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  const CheckResult some = api.check({.count = 2000});
  EXPECT_TRUE(some) << some.report;  // abandoned scenarios are not failures

  duet::Api all("OnlyUnsupported");
  auto s2 = all.abstract<Stack, Stack>("s");
  all.op("make", duet::args(), s2, make, [](void) -> Stack { throw duet::Unimplemented{}; });
  const CheckResult none = all.check({.count = 500, .mean_length = 20});
  EXPECT_EQ(none.status, CheckResult::Status::error) << none.report;
  EXPECT_TRUE(has(none.report, "every scenario was abandoned")) << none.report;
}

TEST(Api, CompositeResultsAreDeconstructed) {
  // pop returns the new stack and the popped value: the value is compared, the stack bound.
  auto pop = [](const Stack& s) {
    return std::pair<Stack, std::optional<int>>(s.empty() ? s : Stack(s.begin(), s.end() - 1), peek(s));
  };
  auto bad_pop = [](const Stack& s) { return std::pair<Stack, std::optional<int>>(s, peek(s)); };  // forgets to pop
  auto build = [&](auto cand_pop) {
    duet::Api api("Stack");
    auto stack = api.abstract<Stack, Stack>("s");
    api.op("make", duet::args(), stack, make, make);
    api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
    api.op("pop", duet::args(stack), duet::pair_of(stack, duet::optional_of(duet::value<int>())), pop, cand_pop);
    return api;
  };
  EXPECT_TRUE(build(pop).check({.count = 3000}));
  const CheckResult r = build(bad_pop).check({.seed = 3});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_TRUE(has(r.report, "auto r3 = pop(s1);")) << r.report;  // a composite binding
  EXPECT_TRUE(has(r.report, "// {s2, 0}")) << r.report;          // and what it holds
  EXPECT_TRUE(has(r.report, "candidate finds 0; the reference finds std::nullopt")) << r.report;
}

TEST(Api, VectorsAndVariantsCompareShapeFirst) {
  auto elements = [](const Stack& s) { return s; };
  auto one_short = [](const Stack& s) { return s.empty() ? s : Stack(s.begin() + 1, s.end()); };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  api.op("elements", duet::args(stack), duet::vector_of(duet::value<int>()), elements, one_short);
  const CheckResult r = api.check({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_TRUE(has(r.report, "assert(elements(s1) == {0});  // <-- candidate finds {}")) << r.report;

  using Either = std::variant<int, std::string>;
  auto describe = [](const Stack& s) -> Either { return s.empty() ? Either(std::string("empty")) : Either(s.back()); };
  auto wrong = [](const Stack& s) -> Either { return s.size() < 2 ? Either(std::string("empty")) : Either(s.back()); };
  duet::Api v("Variant");
  auto st = v.abstract<Stack, Stack>("s");
  v.op("make", duet::args(), st, make, make);
  v.op("push", duet::args(st, duet::integers(0, 9)), st, push, push);
  v.op("describe", duet::args(st), duet::variant_of(duet::value<int>(), duet::value<std::string>()), describe, wrong);
  const CheckResult rv = v.check({.seed = 1});
  ASSERT_EQ(rv.status, CheckResult::Status::failed);
  EXPECT_TRUE(has(rv.report, "candidate finds \"empty\"")) << rv.report;
}

TEST(Api, MapIntoAndMapOutofTransform) {
  // The reference counts with int, the candidate with a string of digits: compare as ints.
  auto ref_size = [](const Stack& s) { return static_cast<int>(s.size()); };
  auto cand_size = [](const Stack& s) { return std::to_string(s.size()); };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("push",
         duet::args(stack, duet::map_outof(
                               duet::integers(0, 9), [](int x) { return x; }, [](int x) { return x; })),
         stack, push, push);
  api.op("size", duet::args(stack),
         duet::map_into(
             duet::value<int>(), [](int n) { return n; }, [](const std::string& t) { return std::stoi(t); }),
         ref_size, cand_size);
  EXPECT_TRUE(api.check({.count = 2000}));
}

TEST(Api, FlipChoosesTheSetFirst) {
  // remove(x, s) with x chosen among the elements of s.
  auto remove = [](int x, const Stack& s) {
    Stack t;
    for (int y : s)
      if (y != x) t.push_back(y);
    return t;
  };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, make);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  api.op(
      "remove",
      duet::args(stack.where([](const Stack& s) { return !s.empty(); }), [](const Stack& s) { return duet::element_of(s); }),
      stack, duet::flip(remove), duet::flip(remove));
  const CheckResult r = api.check({.count = 2000});
  EXPECT_TRUE(r) << r.report;
}

TEST(Api, LiveHandlesAreBounded) {
  std::size_t most = 0;
  auto counting_make = [&most]() {
    ++most;
    return Stack{};
  };
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s");
  api.op("make", duet::args(), stack, make, counting_make);
  const CheckResult r = api.check({.count = 200, .max_length = 100, .mean_length = 90}, {.max_handles = 3});
  EXPECT_TRUE(r) << r.report;
  EXPECT_LE(most, 200u * 3u);  // never more than 3 handles per scenario
  EXPECT_GT(most, 200u);
}

TEST(Api, WellFormednessFailureNamesTheValue) {
  duet::Api api("Stack");
  auto stack = api.abstract<Stack, Stack>("s", [](const Stack& r, const Stack& c) {
    return r.size() < 3 ? duet::Verdict(true) : duet::Verdict::fail("too tall: " + std::to_string(c.size()));
  });
  api.op("make", duet::args(), stack, make, make);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, push, push);
  // A directory of its own: another test's "Stack" draft, written at the same time by a test
  // running beside it, would be read here instead.
  const CheckResult r = api.check({.seed = 1, .output_dir = "duet-output/well_formed"});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 4u) << r.report;  // make, push, push, push
  EXPECT_TRUE(has(r.report, "the well-formedness check fails on s3: too tall: 3")) << r.report;
  // The draft re-runs the check on that value (through a function the user defines), instead of
  // failing whatever the candidate does.
  std::ifstream draft_file(r.draft_path);
  const std::string draft((std::istreambuf_iterator<char>(draft_file)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(draft, "EXPECT_TRUE(duet_well_formed(s3)) << \"the well-formedness check fails on s3: too tall: 3\";"))
      << draft;
  EXPECT_TRUE(has(draft, "bool duet_well_formed(const ")) << draft;
  EXPECT_FALSE(has(draft, "ADD_FAILURE")) << draft;
}

TEST(Api, EmptyApiIsAnError) {
  const CheckResult r = duet::Api("Nothing").check();
  EXPECT_EQ(r.status, CheckResult::Status::error);
}

// A candidate that is wrong once in the life of the process: the report shows the failing call as
// first seen, with the reference's value, and the draft asserts that value.
bool top_failed_once = false;
TEST(Api, FailureThatDoesNotComeBackIsShownAsFirstSeen) {
  top_failed_once = false;
  auto flaky_top = [](const Stack& s) {
    if (s.size() >= 2 && !top_failed_once) {
      top_failed_once = true;
      return s.back() + 1;
    }
    return top(s);
  };
  const CheckResult r =
      stack_api(duet::may_throw(duet::value<int>()), flaky_top).check({.seed = 1, .output_dir = "duet-output/flaky_top"});
  ASSERT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.shrink_end, CheckResult::ShrinkEnd::not_reproduced) << r.report;
  EXPECT_TRUE(has(r.report, "Shown: the failing step as\n  first seen")) << r.report;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.report, m,
                                std::regex("assert\\((top\\(s[0-9]+\\)) == ([0-9])\\);\\s+// <-- candidate finds ([0-9])")))
      << r.report;
  EXPECT_EQ(std::stoi(m[3]), std::stoi(m[2]) + 1) << r.report;
  std::ifstream draft(r.draft_path);
  const std::string text((std::istreambuf_iterator<char>(draft)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(text, "EXPECT_EQ(" + m[1].str() + ", " + m[2].str() + ")")) << text;
}

}  // namespace
