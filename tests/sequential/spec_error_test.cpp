// Mistakes in the spec's own code (a generator, a precondition or init_sut that throws) are
// errors, not failures of the candidate: the report names the function, the exception and the
// case's replay token, once; nothing is shrunk and no draft test is written.
#include <duet/gtest.hpp>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "ring_buffer.hpp"

namespace {

using duet::CheckResult;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// What every spec error must look like: an error naming `who` and the exception once, with the
// case's token, no draft, no shrinking; the token replays the same error.
template <class Check>
void expect_spec_error(const Check& check, const std::string& who, const std::string& exception) {
  const std::string dir = ::testing::TempDir() + "duet_spec_error_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(dir);
  const CheckResult r = check(duet::Config{.seed = 1, .output_dir = dir});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_EQ(count(r.report, who + " threw " + exception), 1u) << r.report;
  EXPECT_EQ(count(r.report, exception), 1u) << "the exception is named once:\n" << r.report;
  ASSERT_FALSE(r.replay_token.empty()) << r.report;
  EXPECT_EQ(count(r.report, "DUET_REPLAY=" + r.replay_token), 1u) << r.report;
  EXPECT_TRUE(r.draft_path.empty()) << r.report;
  EXPECT_FALSE(has(r.report, "draft test")) << r.report;
  EXPECT_FALSE(std::filesystem::exists(dir)) << "nothing is written for a spec error";
  EXPECT_EQ(r.shrink_tries, 0u) << r.report;
  EXPECT_FALSE(has(r.report, "shrunk")) << r.report;
  EXPECT_FALSE(has(r.report, "replays)")) << r.report;
  const CheckResult again = check(duet::Config{.replay = r.replay_token, .output_dir = dir});
  EXPECT_EQ(again.status, CheckResult::Status::error) << again.report;
  EXPECT_EQ(count(again.report, who + " threw " + exception), 1u) << again.report;
  std::filesystem::remove_all(dir);
}

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
        .op("push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, thrower)
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

}  // namespace
