// Mistakes in the spec's own code (a generator, a precondition or init_sut that throws) are
// errors, not failures of the candidate: the report names the function, the exception and the
// case's replay token, once; nothing is shrunk and no draft test is written.
#include <duet/gtest.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ring_buffer.hpp"
#include "support/spec_error.hpp"

namespace {

using duet_test::expect_spec_error;

// ---- check_sequential ----

struct ThrowingGeneratorSpec : ring::CorrectRingBufferSpec {
  static duet::Gen<Cmd> command(const State& s) {
    return ring::CorrectRingBufferSpec::command(s).map([](Cmd c) {
      if (std::holds_alternative<ring::Size>(c)) throw std::runtime_error("no size today");
      return c;
    });
  }
};

TEST(SpecError, SequentialGeneratorThrows) {
  expect_spec_error([](const duet::Config& c) { return duet::check_sequential<ThrowingGeneratorSpec>(c); },
                    "the spec's generator `command`", "std::runtime_error(\"no size today\")");
}

struct ThrowingPreconditionSpec : ring::CorrectRingBufferSpec {
  static bool precondition(const Cmd& c, const State&) {
    if (std::holds_alternative<ring::Pop>(c)) throw std::logic_error("pop has no precondition yet");
    return true;
  }
};

TEST(SpecError, SequentialPreconditionThrows) {
  expect_spec_error([](const duet::Config& c) { return duet::check_sequential<ThrowingPreconditionSpec>(c); },
                    "the spec's `precondition`", "std::logic_error(\"pop has no precondition yet\")");
}

struct ThrowingInitSpec : ring::CorrectRingBufferSpec {
  static Sut init_sut() { throw std::runtime_error("no memory for the queue"); }
};

TEST(SpecError, SequentialInitSutThrows) {
  expect_spec_error([](const duet::Config& c) { return duet::check_sequential<ThrowingInitSpec>(c); },
                    "the spec's `init_sut`", "std::runtime_error(\"no memory for the queue\")");
}

struct ThrowingInitStateSpec : ring::CorrectRingBufferSpec {
  static State init_state() { throw std::runtime_error("no model today"); }
};

TEST(SpecError, SequentialInitStateThrows) {
  expect_spec_error([](const duet::Config& c) { return duet::check_sequential<ThrowingInitStateSpec>(c); },
                    "the model's initial state", "std::runtime_error(\"no model today\")");
}

// init_sut returning a null pointer has made no candidate: an error naming it, in process and in
// a child process alike (never a crash, nor a failure shrunk to the first command).
struct NullInitSpec : ring::CorrectRingBufferSpec {
  static std::unique_ptr<Sut> init_sut() { return nullptr; }
};

TEST(SpecError, SequentialInitSutMakingNothing) {
  for (const bool isolate : {false, true}) {
    const duet::CheckResult r = duet::check_sequential<NullInitSpec>({.seed = 1, .count = 20, .isolate = isolate});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    EXPECT_NE(r.report.find("the spec's `init_sut` returned a null pointer: there is no candidate to test"),
              std::string::npos)
        << r.report;
    EXPECT_EQ(r.shrink_tries, 0u) << r.report;
  }
}

// ---- duet::Api ----

using Stack = std::vector<int>;
Stack make() { return {}; }
Stack push(const Stack& s, int x) {
  Stack t = s;
  t.push_back(x);
  return t;
}
std::size_t size(const Stack& s) { return s.size(); }

TEST(SpecError, ApiArgumentGeneratorThrows) {
  auto check = [](const duet::Config& c) {
    duet::Api api("Stack");
    auto stack = api.abstract<Stack, Stack>("s");
    auto thrower = duet::integers(0, 9).map([](int x) -> int {
      if (x == 7) throw std::runtime_error("seven");
      return x;
    });
    api.op("make", duet::args(), stack, make, make);
    api.op("push", duet::args(stack, thrower), stack, push, push);
    api.op("size", duet::args(stack), duet::value<std::size_t>(), size, size);
    return api.check(c);
  };
  expect_spec_error(check, "the spec's argument generator for push", "std::runtime_error(\"seven\")");
}

TEST(SpecError, ApiWherePredicateThrows) {
  auto check = [](const duet::Config& c) {
    duet::Api api("Stack");
    auto stack = api.abstract<Stack, Stack>("s");
    auto short_enough = [](const Stack& s) {
      if (s.size() > 1) throw std::length_error("too long to judge");
      return true;
    };
    api.op("make", duet::args(), stack, make, make);
    api.op("push", duet::args(stack.where(short_enough), duet::integers(0, 9)), stack, push, push);
    return api.check(c);
  };
  expect_spec_error(check, "the spec's argument generator for push", "std::length_error(\"too long to judge\")");
}

// ---- duet::Lin (stress mode) ----

TEST(SpecError, LinArgumentGeneratorThrows) {
  auto check = [](const duet::Config& c) {
    auto thrower = duet::integers(0, 9).map([](int x) -> int {
      if (x == 7) throw std::runtime_error("seven");
      return x;
    });
    return duet::Lin<std::vector<int>>("vector", "v")
        .op(
            "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, thrower)
        .op("size", [](std::vector<int>& v) { return v.size(); })
        .check_stress(c);
  };
  expect_spec_error(check, "the spec's argument generator for push_back", "std::runtime_error(\"seven\")");
}

TEST(SpecError, LinInitThrows) {
  auto check = [](const duet::Config& c) {
    return duet::Lin<std::vector<int>>("vector", "v")
        .init([]() -> std::unique_ptr<std::vector<int>> { throw std::runtime_error("no vector today"); },
              "std::vector<int> v;")
        .op("size", [](std::vector<int>& v) { return v.size(); })
        .check_stress(c);
  };
  expect_spec_error(check, "the spec's `init`", "std::runtime_error(\"no vector today\")");
}

TEST(SpecError, LinInitMakingNothing) {
  const duet::CheckResult r = duet::Lin<std::vector<int>>("vector", "v")
                                  .init([]() -> std::unique_ptr<std::vector<int>> { return nullptr; }, "std::vector<int> v;")
                                  .op("size", [](std::vector<int>& v) { return v.size(); })
                                  .check_stress({.seed = 1, .count = 20});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the spec's `init` returned a null pointer"), std::string::npos) << r.report;
}

// Mistakes in the description itself end check_stress before any case, as on the parallel paths
// (tests/parallel/spec_error_test.cpp).
TEST(SpecError, LinDescriptionMistakes) {
  auto size = [](std::vector<int>& v) { return v.size(); };
  auto empty = [](std::vector<int>& v) { return v.empty(); };
  using VectorLin = duet::Lin<std::vector<int>>;
  const std::pair<VectorLin, std::string> mistakes[] = {
      {VectorLin("vector", "v"), "no operation declared"},
      {VectorLin("vector", "v").op("size", size).op("size", empty),
       "operations 1 and 2 are both named \"size\": give each its own name"},
      {VectorLin("vector", "v").op("size", size).op("", empty), "the name of operation 2 is empty"},
      {VectorLin("vector", "v").op("si\nze", size), "the name of operation 1 \"si\\x0aze\" has a control character"},
      {VectorLin("vector", "v\n").op("size", size), "the subject's variable name \"v\\x0a\" has a control character"}};
  for (const auto& [lin, why] : mistakes) {
    const duet::CheckResult r = lin.check_stress({.seed = 1, .count = 20});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    EXPECT_NE(r.report.find("duet: vector: error: " + why), std::string::npos) << r.report;
    EXPECT_EQ(r.cases, 0u) << r.report;
  }
}

}  // namespace
