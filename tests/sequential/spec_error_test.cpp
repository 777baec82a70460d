// Mistakes in the spec's own code (a generator, a precondition or init_sut that throws) are
// errors, not failures of the candidate: the report names the function, the exception and the
// case's replay token, once; nothing is shrunk and no draft test is written.
#include <duet/gtest.hpp>

#include <stdexcept>
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

}  // namespace
