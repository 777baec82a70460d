// Spec mistakes on the parallel paths are errors, as in the sequential engine
// (tests/sequential/spec_error_test.cpp): a generator, a precondition or init_sut that throws
// is named once with its exception and the case's token, on threads and on fibers alike.
#include <duet/gtest.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "support/spec_error.hpp"

namespace {

using duet_test::expect_spec_error;

class Counter {
 public:
  int incr() { return value_.fetch_add(1) + 1; }
  void add(int x) { value_.fetch_add(x); }
  int get() const { return value_.load(); }

 private:
  std::atomic<int> value_{0};
};

struct Incr {};
struct Get {};
std::string duet_show(const Incr&) { return "incr()"; }
std::string duet_show(const Get&) { return "get()"; }

struct CounterSpec {
  using Sut = Counter;
  using State = int;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Incr{})), duet::just(Cmd(Get{}))); }
  static duet::Result run(const Cmd& c, Sut& s) { return std::holds_alternative<Incr>(c) ? s.incr() : s.get(); }
  static duet::Result expected(const Cmd& c, const State& n) { return std::holds_alternative<Incr>(c) ? n + 1 : n; }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<Incr>(c)) ++n;
  }
};

// The generator throws once the model's count reaches 2 (never in the first calls).
struct ThrowingGeneratorSpec : CounterSpec {
  static duet::Gen<Cmd> command(const State& n) {
    if (n >= 2) throw std::runtime_error("no more counting");
    return CounterSpec::command(n);
  }
};

struct ThrowingPreconditionSpec : CounterSpec {
  static bool precondition(const Cmd& c, const State&) {
    if (std::holds_alternative<Get>(c)) throw std::logic_error("get has no precondition yet");
    return true;
  }
};

struct ThrowingInitSpec : CounterSpec {
  static Sut init_sut() { throw std::runtime_error("no counter today"); }
};

struct ThrowingInitStateSpec : CounterSpec {
  static State init_state() { throw std::runtime_error("no model today"); }
};

// Each test runs on threads (the default executor, isolated in a child) and on fibers.
class ParallelSpecError : public ::testing::TestWithParam<const char*> {
 protected:
  duet::ParallelConfig shape() const {
    duet::ParallelConfig pc;
    if (std::string(GetParam()) == "fibers") pc.executor = duet::fibers();
    return pc;
  }
};

INSTANTIATE_TEST_SUITE_P(Executors, ParallelSpecError, ::testing::Values("threads", "fibers"),
                         [](const auto& info) { return std::string(info.param); });

TEST_P(ParallelSpecError, GeneratorThrows) {
  expect_spec_error([&](const duet::Config& c) { return duet::check_parallel<ThrowingGeneratorSpec>(shape(), c); },
                    "the spec's generator `command`", "std::runtime_error(\"no more counting\")");
}

TEST_P(ParallelSpecError, PreconditionThrows) {
  expect_spec_error([&](const duet::Config& c) { return duet::check_parallel<ThrowingPreconditionSpec>(shape(), c); },
                    "the spec's `precondition`", "std::logic_error(\"get has no precondition yet\")");
}

TEST_P(ParallelSpecError, InitSutThrows) {
  expect_spec_error([&](const duet::Config& c) { return duet::check_parallel<ThrowingInitSpec>(shape(), c); },
                    "the spec's `init_sut`", "std::runtime_error(\"no counter today\")");
}

TEST_P(ParallelSpecError, InitStateThrows) {
  expect_spec_error([&](const duet::Config& c) { return duet::check_parallel<ThrowingInitStateSpec>(shape(), c); },
                    "the model's initial state", "std::runtime_error(\"no model today\")");
}

TEST_P(ParallelSpecError, ExpectUnsafeGeneratorThrows) {
  // A negative test must not pass on the spec's mistake either.
  expect_spec_error([&](const duet::Config& c) { return duet::expect_unsafe<ThrowingGeneratorSpec>(shape(), c); },
                    "the spec's generator `command`", "std::runtime_error(\"no more counting\")");
}

// ---- duet::Api ----

using Handle = std::shared_ptr<std::atomic<long>>;
long ref_open() { return 0; }
Handle open() { return std::make_shared<std::atomic<long>>(0); }
void ref_add(long& v, int x) { v += x; }
void add(const Handle& h, int x) { h->fetch_add(x); }
long ref_read(const long& v) { return v; }
long read(const Handle& h) { return h->load(); }

TEST_P(ParallelSpecError, ApiArgumentGeneratorThrows) {
  auto check = [&](const duet::Config& c) {
    duet::Api api("Cell");
    auto cell = api.abstract<long, Handle>("cell");
    auto thrower = duet::integers(0, 9).map([](int x) -> int {
      if (x == 7) throw std::runtime_error("seven");
      return x;
    });
    api.op("open", duet::args(), cell, ref_open, open);
    api.op("add", duet::args(cell, thrower), duet::unit(), ref_add, add);
    api.op("read", duet::args(cell), duet::value<long>(), ref_read, read);
    return api.check_parallel(shape(), c);
  };
  expect_spec_error(check, "the spec's argument generator for add", "std::runtime_error(\"seven\")");
}

// ---- duet::Lin ----

TEST_P(ParallelSpecError, LinArgumentGeneratorThrows) {
  auto check = [&](const duet::Config& c) {
    auto thrower = duet::integers(0, 9).map([](int x) -> int {
      if (x == 7) throw std::runtime_error("seven");
      return x;
    });
    auto lin = duet::Lin<Counter>("counter", "c")
                   .op(
                       "add", [](Counter& k, int x) { k.add(x); }, thrower)
                   .op("get", [](Counter& k) { return k.get(); });
    return duet::check_parallel(lin, shape(), c);
  };
  expect_spec_error(check, "the spec's argument generator for add", "std::runtime_error(\"seven\")");
}

TEST_P(ParallelSpecError, LinInitThrows) {
  auto check = [&](const duet::Config& c) {
    auto lin = duet::Lin<Counter>("counter", "c")
                   .init([]() -> std::unique_ptr<Counter> { throw std::runtime_error("no counter today"); }, "Counter c;")
                   .op("get", [](Counter& k) { return k.get(); });
    return duet::check_parallel(lin, shape(), c);
  };
  expect_spec_error(check, "the spec's `init`", "std::runtime_error(\"no counter today\")");
}

// ---- mistakes that are not exceptions: the check ends with an error before it runs anything ----

// The error's status and words, on every Lin entry point (a negative test must not pass on it).
template <class T>
void expect_lin_error(const duet::Lin<T>& lin, const duet::ParallelConfig& pc, const std::string& why) {
  const duet::Config config{.seed = 1, .count = 20};
  const duet::CheckResult results[] = {duet::check_parallel(lin, pc, config), duet::expect_unsafe(lin, pc, config),
                                       duet::stress_parallel(lin, pc, config)};
  for (const duet::CheckResult& r : results) {
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    EXPECT_NE(r.report.find("duet: " + lin.name() + ": error: " + why), std::string::npos) << r.report;
    EXPECT_EQ(r.cases, 0u) << r.report;
  }
}

TEST_P(ParallelSpecError, LinWithoutOperations) {
  expect_lin_error(duet::Lin<Counter>("empty", "c"), shape(), "no operation declared");
}

TEST_P(ParallelSpecError, LinOperationsOfOneName) {
  auto lin = duet::Lin<Counter>("counter", "c")
                 .op("incr", [](Counter& k) { return k.incr(); })
                 .op("get", [](Counter& k) { return k.get(); })
                 .op("incr", [](Counter& k) { return k.incr() + 1; });
  expect_lin_error(lin, shape(), "operations 1 and 3 are both named \"incr\": give each its own name");
}

TEST_P(ParallelSpecError, LinNamesAReportCannotPrint) {
  expect_lin_error(duet::Lin<Counter>("counter", "c").op("", [](Counter& k) { return k.incr(); }), shape(),
                   "the name of operation 1 is empty");
  expect_lin_error(duet::Lin<Counter>("counter", "c")
                       .op("get", [](Counter& k) { return k.get(); })
                       .op("in\ncr", [](Counter& k) { return k.incr(); }),
                   shape(), "the name of operation 2 \"in\\x0acr\" has a control character");
  expect_lin_error(duet::Lin<Counter>("counter", "").op("get", [](Counter& k) { return k.get(); }), shape(),
                   "the subject's variable name is empty");
}

TEST_P(ParallelSpecError, LinInitMakingNothing) {
  auto lin = duet::Lin<Counter>("counter", "c")
                 .init([]() -> std::unique_ptr<Counter> { return nullptr; }, "Counter c;")
                 .op("get", [](Counter& k) { return k.get(); });
  const duet::CheckResult r = duet::check_parallel(lin, shape(), {.seed = 1, .count = 20});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the spec's `init` returned a null pointer: there is no candidate to test"), std::string::npos)
      << r.report;
}

struct NullInitSpec : CounterSpec {
  static std::unique_ptr<Sut> init_sut() { return nullptr; }
};

TEST_P(ParallelSpecError, InitSutMakingNothing) {
  const duet::CheckResult r = duet::check_parallel<NullInitSpec>(shape(), {.seed = 1, .count = 20});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the spec's `init_sut` returned a null pointer: there is no candidate to test"), std::string::npos)
      << r.report;
}

}  // namespace
