// Subjects written with duet/sync.hpp shared by the fiber tests and the golden reports: a
// counter whose increment may be a racy load-then-store, and two locks taken in opposite orders.
//
// Compiled with DUET_DRAFT_FIXED defined, the buggy ones are fixed: the golden draft tests
// (tests/golden/expected/*_draft.cpp) must fail against the subjects as they are and pass
// against the fixed ones.
#pragma once

#include <duet/gen.hpp>
#include <duet/result.hpp>
#include <duet/sync.hpp>

#include <mutex>
#include <string>
#include <variant>

namespace fiber_subjects {

// A counter whose increment is a load then a store: two increments can both read the old value.
template <bool Racy>
class Counter {
 public:
  int incr() {
#ifndef DUET_DRAFT_FIXED
    if constexpr (Racy) {
      const int x = value_.load();
      value_.store(x + 1);
      return x + 1;
    }
#endif
    return value_.fetch_add(1) + 1;
  }
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};

struct Incr {};
struct Get {};
inline std::string duet_show(const Incr&) { return "incr()"; }
inline std::string duet_show(const Get&) { return "get()"; }

template <bool Racy>
struct CounterSpec {
  using Sut = Counter<Racy>;
  using State = int;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::just(Cmd(Incr{})), duet::just(Cmd(Get{})));
  }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) return s.incr();
    return s.get();
  }
  static duet::Result expected(const Cmd& c, const State& n) {
    if (std::holds_alternative<Incr>(c)) return n + 1;
    return n;
  }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<Incr>(c)) ++n;
  }
};

class Accounts {
 public:
  int transfer_ab() {
    std::lock_guard<duet::mutex> a(a_);
    std::lock_guard<duet::mutex> b(b_);
    return 1;
  }
  int transfer_ba() {
#ifdef DUET_DRAFT_FIXED
    std::lock_guard<duet::mutex> a(a_);
    std::lock_guard<duet::mutex> b(b_);
#else
    std::lock_guard<duet::mutex> b(b_);
    std::lock_guard<duet::mutex> a(a_);
#endif
    return 1;
  }

 private:
  duet::mutex a_, b_;
};
struct Ab {};
struct Ba {};
inline std::string duet_show(const Ab&) { return "transfer_ab()"; }
inline std::string duet_show(const Ba&) { return "transfer_ba()"; }
struct AccountsSpec {
  using Sut = Accounts;
  using State = int;
  using Cmd = std::variant<Ab, Ba>;
  static constexpr const char* sut_name = "accounts";
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Ab{})), duet::just(Cmd(Ba{}))); }
  static duet::Result run(const Cmd& c, Sut& s) { return std::holds_alternative<Ab>(c) ? s.transfer_ab() : s.transfer_ba(); }
  static duet::Result expected(const Cmd&, const State&) { return 1; }
  static void next(const Cmd&, State&) {}
};

// Wrong whatever the interleaving: every increment returns one too many.
class OffByOneCounter {
 public:
#ifdef DUET_DRAFT_FIXED
  int incr() { return value_.fetch_add(1) + 1; }
#else
  int incr() { return value_.fetch_add(1) + 2; }
#endif
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};
struct OffByOneSpec : CounterSpec<false> {
  using Sut = OffByOneCounter;
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) return s.incr();
    return s.get();
  }
};

}  // namespace fiber_subjects

// Here, not above: the line numbers of the subjects above are in golden reports.
#include "outside_the_process.hpp"

namespace fiber_subjects {

// Nondeterministic: whether an increment yields first depends on a count kept across runs, and
// outside the process (a trial in a process of its own goes on counting), so a replay does not
// run as the failing run did.
inline int& moody_calls() { return duet_test::outside_the_process<int, struct MoodyCalls>(); }
class MoodyCounter {
 public:
  int incr() {
    if (++moody_calls() % 3 == 0) duet::yield();
    const int x = value_.load();
    value_.store(x + 1);
    return x + 1;
  }
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};
struct MoodyCounterSpec : CounterSpec<true> {
  using Sut = MoodyCounter;
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) return s.incr();
    return s.get();
  }
};

}  // namespace fiber_subjects
