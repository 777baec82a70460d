// The thread subjects of tests/negative (a load-then-store counter, a check-then-write
// compare-and-set, std::vector, std::unordered_map, the Float.Array example), plain std:: code
// with the same specs (a model where tests/negative has one, else the candidate as its own
// oracle), on the fiber scheduler through duet_instrument: found on every seed with every
// strategy, shrunk, and replayed to the same interleaving (the containers' races as data races
// on their plain fields, before any wrong result). Each correct twin (a proper atomic, or the
// container behind a std::mutex) passes. On threads the same bugs need a generous time budget,
// and tests/negative runs alone (SERIAL) for them.
#include <duet/lin.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/register.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "support/negative_subjects.hpp"

namespace {

using instrumented_test::found_on_every_seed;
using instrumented_test::Model;
using instrumented_test::twin_passes;

// ---- a counter (tests/negative/counter_test.cpp) ----

// The increment is a load then a store: two increments at once can lose one.
using negative_subjects::RacyCounter;

// One read-modify-write.
struct AtomicCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load(); }
};

TEST(InstrumentedNegative, CounterLoadThenStoreFound) {
  found_on_every_seed(Model<duet::models::Counter<RacyCounter>>{"RacyCounter"}, 5);
}

TEST(InstrumentedNegative, CounterFetchAddPasses) {
  twin_passes(Model<duet::models::Counter<AtomicCounter>>{"AtomicCounter"});
}

// ---- a register with compare-and-set (tests/negative/register_test.cpp) ----

// The compare-and-set checks, then writes, under no lock.
using negative_subjects::RacyCasRegister;

// One compare-exchange.
struct CasRegister {
  using Sut = std::atomic<int>;
  static void write(Sut& r, int v) { r.store(v); }
  static int read(Sut& r) { return r.load(); }
  static bool cas(Sut& r, int expected, int v) { return r.compare_exchange_strong(expected, v); }
};

// Two branches: on threads tests/negative needs four to raise the odds that two calls overlap;
// the scheduler needs no such help (and four take twice as long here). The twin is checked with
// four, for the interleavings a pass then covers.
TEST(InstrumentedNegative, RegisterCheckThenWriteCasFound) {
  found_on_every_seed(Model<duet::models::Register<RacyCasRegister>>{"RacyCasRegister"}, 7);
}

duet::ParallelConfig four_branches() {
  duet::ParallelConfig pc;
  pc.branches = 4;
  return pc;
}

TEST(InstrumentedNegative, RegisterCompareExchangePasses) {
  twin_passes(Model<duet::models::Register<CasRegister>>{"CasRegister"}, four_branches());
}

// ---- standard containers (tests/negative/std_containers_test.cpp, the Float.Array example of
// tests/negative/tbb_and_float_array_test.cpp) ----

// The fix the standard asks for: the container behind one std::mutex, every call under it.
template <class C>
struct Locked {
  std::mutex m;
  C c;
};

// Runs `f` on the container: directly (the racy original), or under its lock.
template <class C, class F>
auto with(C& c, F f) {
  return f(c);
}
template <class C, class F>
auto with(Locked<C>& l, F f) {
  std::lock_guard<std::mutex> hold(l.m);
  return f(l.c);
}

template <class C>
constexpr bool kLocked = false;
template <class C>
constexpr bool kLocked<Locked<C>> = true;

// The draft test's setup: the subject's declaration, then `call` on its container.
template <class S>
std::string setup(const std::string& type, const std::string& var, const std::string& call) {
  if constexpr (kLocked<S>) return "Locked<" + type + "> " + var + "; " + var + ".c." + call;
  else return type + " " + var + "; " + var + "." + call;
}

// Capacity reserved, so that the race gives a wrong result rather than a reallocation under a
// reader (as on threads; on fibers the plain accesses race first either way).
template <class S>
duet::Lin<S> vector_spec(const char* name) {
  using V = std::vector<int>;
  return duet::Lin<S>(name, "v")
      .init(
          [] {
            auto s = std::make_unique<S>();
            with(*s, [](V& v) { v.reserve(1024); });
            return s;
          },
          setup<S>("std::vector<int>", "v", "reserve(1024);"))
      .op(
          "push_back", [](S& s, int x) { with(s, [&](V& v) { v.push_back(x); }); }, duet::integers(0, 9))
      .op("size", [](S& s) { return with(s, [](V& v) { return v.size(); }); })
      .op("back", [](S& s) { return with(s, [](V& v) { return v.empty() ? -1 : v.back(); }); });
}

template <class S>
duet::Lin<S> map_spec(const char* name) {
  using M = std::unordered_map<int, int>;
  return duet::Lin<S>(name, "m")
      .init(
          [] {
            auto s = std::make_unique<S>();
            with(*s, [](M& m) { m.reserve(1024); });
            return s;
          },
          setup<S>("std::unordered_map<int, int>", "m", "reserve(1024);"))
      .op(
          "insert", [](S& s, int k, int v) { return with(s, [&](M& m) {
                                               return m.insert({k, v}).second;
                                             }); },
          duet::integers(0, 3), duet::integers(0, 9))
      .op(
          "find",
          [](S& s, int k) {
            return with(s, [&](M& m) {
              auto it = m.find(k);
              return it == m.end() ? std::optional<int>() : std::optional<int>(it->second);
            });
          },
          duet::integers(0, 3))
      .op("size", [](S& s) { return with(s, [](M& m) { return m.size(); }); });
}

// Sorts a copy, then writes it back element by element: racy like OCaml's Float.Array.sort, but
// bounds-safe.
void sort_in_place(std::vector<double>& a) {
  std::vector<double> sorted(a.begin(), a.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size() && i < a.size(); ++i) a[i] = sorted[i];
}

template <class S>
duet::Lin<S> float_array_spec(const char* name) {
  using A = std::vector<double>;
  return duet::Lin<S>(name, "fa")
      .init(
          [] {
            auto s = std::make_unique<S>();
            with(*s, [](A& a) { a.assign(12, 1.0); });
            return s;
          },
          setup<S>("std::vector<double>", "fa", "assign(12, 1.0);"))
      .op(
          "set", [](S& s, std::size_t i, double x) { with(s, [&](A& a) { a.at(i) = x; }); },
          duet::integers<std::size_t>(0, 11), duet::reals(-10, 10))
      .op("sort", [](S& s) { with(s, [](A& a) { sort_in_place(a); }); })
      .op("to_list", [](S& s) { return with(s, [](A& a) { return a; }); });
}

TEST(InstrumentedNegative, VectorPushBackFound) { found_on_every_seed(vector_spec<std::vector<int>>("std::vector"), 2); }
TEST(InstrumentedNegative, VectorUnderAMutexPasses) {
  twin_passes(vector_spec<Locked<std::vector<int>>>("std::vector under a std::mutex"));
}

TEST(InstrumentedNegative, UnorderedMapInsertFound) {
  found_on_every_seed(map_spec<std::unordered_map<int, int>>("std::unordered_map"), 2);
}
TEST(InstrumentedNegative, UnorderedMapUnderAMutexPasses) {
  twin_passes(map_spec<Locked<std::unordered_map<int, int>>>("std::unordered_map under a std::mutex"));
}

TEST(InstrumentedNegative, FloatArraySetSortToListFound) {
  found_on_every_seed(float_array_spec<std::vector<double>>("Float.Array"), 2);
}
TEST(InstrumentedNegative, FloatArrayUnderAMutexPasses) {
  twin_passes(float_array_spec<Locked<std::vector<double>>>("Float.Array under a std::mutex"));
}

}  // namespace
