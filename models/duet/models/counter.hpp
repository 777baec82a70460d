// A counter model: incr() and get(). Bind a subject by giving its type and two functions:
//
//   struct AtomicCounter {
//     using Sut = std::atomic<long>;
//     static void incr(Sut& c) { c.fetch_add(1); }
//     static long get(Sut& c) { return c.load(); }
//   };
//   duet::check_parallel<duet::models::Counter<AtomicCounter>>();
//
// StaleCounter<Binding, max_lag>: get() may lag behind the count by up to max_lag increments.
#pragma once

#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct Incr {};
struct Get {};
inline std::string duet_show(const Incr&) { return "incr()"; }
inline std::string duet_show(const Get&) { return "get()"; }

namespace detail {
/// What the counter models share: the commands, how they run on the binding, the count.
template <class Binding>
struct CounterBase {
  using Sut = typename Binding::Sut;
  using State = long;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " c{};"; }
  static std::string draft_setup_cpp() {
    return models::detail::draft_subject<Binding>(
        sut_name, {"void incr() { B::incr(s); }", "long get() { return static_cast<long>(B::get(s)); }"});
  }

  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = one_of(just(Cmd(Incr{})), just(Cmd(Get{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) {
      Binding::incr(s);
      return {};
    }
    return static_cast<long>(Binding::get(s));
  }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<Incr>(c)) ++n;
  }
};
}  // namespace detail

template <class Binding>
struct Counter : detail::CounterBase<Binding> {
  using typename detail::CounterBase<Binding>::Cmd;
  static Result expected(const Cmd& c, const long& n) {
    if (std::holds_alternative<Incr>(c)) return {};
    return n;
  }
};

/// A counter whose get() may be stale within a bound: it returns a count the counter had at
/// most `max_lag` incr()s before (never more than the count, never less than count - max_lag).
/// For counters whose reads skip what threads have not flushed yet (per-CPU or batched ones).
///
///   duet::check_parallel<duet::models::StaleCounter<MyBatchedCounter, 8>>();
template <class Binding, long max_lag>
struct StaleCounter : detail::CounterBase<Binding> {
  static_assert(max_lag >= 0, "duet: StaleCounter's max_lag is a number of increments (0: exact)");
  using typename detail::CounterBase<Binding>::Cmd;
  static Verdict postcondition(const Cmd& c, const long& n, const Result& got) {
    if (std::holds_alternative<Incr>(c)) return got == Result();
    for (long v = n - max_lag < 0 ? 0 : n - max_lag; v <= n; ++v)
      if (got == Result(v)) return true;
    return Verdict::fail("get() may return " +
                         std::string(n > 0 && max_lag > 0 ? std::to_string(n - max_lag < 0 ? 0 : n - max_lag) + ".." : "") +
                         std::to_string(n) + " after " + std::to_string(n) + " incr() (stale by at most " +
                         std::to_string(max_lag) + ")");
  }
};

}  // namespace duet::models
