// State-machine front end (qcheck-stm shape): a model state, commands generated from it,
// run in lockstep on the model and the real object; the first disagreement is shrunk and
// printed as C++.
//
//   struct Push { int x; };  struct Pop {};
//   std::string duet_show(const Push& p) { return "push(" + duet::show(p.x) + ")"; }
//   std::string duet_show(const Pop&) { return "pop()"; }
//
//   struct QueueSpec {
//     using Sut = MyQueue;                    // the candidate
//     using State = std::deque<int>;          // the model
//     using Cmd = std::variant<Push, Pop>;
//     static constexpr const char* sut_name = "q";            // optional ("sut")
//     static Sut init_sut() { return MyQueue(3); }            // optional (default-constructed)
//     static std::string setup_cpp() { return "MyQueue q(3);"; }  // optional, for the draft test
//     static std::string draft_setup_cpp();  // optional: the draft's instead (several lines may)
//     static duet::Gen<Cmd> command(const State& s);          // may depend on the state
//     static bool precondition(const Cmd&, const State&);     // optional
//     static duet::Result run(const Cmd&, Sut&);              // exceptions are captured
//     static duet::Result expected(const Cmd&, const State&);  // what the model returns, or:
//     // static duet::Verdict postcondition(const Cmd&, const State& before, const duet::Result&);
//     static State next(const Cmd&, State);                    // or void next(const Cmd&, State&)
//     // Relaxed instead (several results allowed): the states the model allows after seeing the
//     // result, none if it is wrong; replaces expected, postcondition and (for judging) next.
//     // static std::vector<State> next_states(const Cmd&, const State& before, const duet::Result&);
//     // ... or with a fourth parameter, duet::Caller, when the rules depend on who called
//     // (FIFO per producer): the thread of the call in a parallel program.
//     // Crash injection (duet/faults.hpp), optional: with recover, every duet::fault_point the
//     // candidate passes may crash it; recover rebuilds it from what persisted, and the model
//     // goes on with the interrupted command taken effect or not, whichever explains what follows.
//     static void recover(Sut&);
//     static constexpr std::uint64_t crash_one_in = 25;          // optional
//     // Reports, optional: the model's state after each step (and along a parallel failure's
//     // closest sequential witness); the candidate where a parallel program's run ended.
//     static std::string show_state(const State& s) { return duet::show(s); }
//     static std::string show_sut(const Sut& q) { return duet::show(q.size()); }
//   };
//   TEST(Queue, Agrees) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/faults.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"

namespace duet {

/// A postcondition's answer: a bool, or a failure with an explanation for the report.
///   return r == duet::Result(3) ? duet::Verdict(true) : duet::Verdict::fail("expected 3");
struct Verdict {
  Verdict(bool ok) : ok(ok) {}  // NOLINT: implicit, so postconditions may return bool
  static Verdict fail(std::string why) {
    Verdict v(false);
    v.why = std::move(why);
    return v;
  }
  bool ok;
  std::string why;
};

/// Who made a call, for a relaxed spec whose rules depend on it (a queue that is FIFO per
/// producer): next_states may take it as a fourth parameter.
///
///   static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& r,
///                                         duet::Caller who);   // who.thread: 0, 1, 2...
struct Caller {
  /// A sequential check's calls, and a parallel program's prefix and suffix (they run on the
  /// thread that runs the check).
  static constexpr std::size_t main_thread = 0;
  /// Branch b of a parallel program is thread b + 1 (a thread, or a fiber).
  std::size_t thread = main_thread;
  friend bool operator==(const Caller&, const Caller&) = default;
};

}  // namespace duet

// The machinery under check_sequential (not public; it uses the vocabulary above): how the
// engine reads a spec, the engine of one case, and the spec's own calls under it.
#include "duet/detail/state_machine_spec.hpp"
#include "duet/detail/state_machine_engine.hpp"
#include "duet/detail/state_machine_steps.hpp"

namespace duet {

/// Runs the state-machine spec in lockstep against the candidate: random command sequences
/// until the budget runs out (about a second by default), shrinking and reporting the first
/// disagreement.
///
///   TEST(RingBuffer, AgreesWithDeque) {
///     EXPECT_TRUE(duet::check_sequential<RingBufferSpec>({.count = 10000}));
///   }
template <class Spec>
CheckResult check_sequential(const Config& config) {
  detail::check_state_machine_spec<Spec>();
  return detail::check_state_machine(type_name<Spec>(), &detail::make_state_machine_steps<Spec>, detail::spec_domain<Spec>(),
                                     config);
}
/// The same under the default settings (the test file then builds no Config of its own).
template <class Spec>
CheckResult check_sequential() {
  detail::check_state_machine_spec<Spec>();
  return detail::check_state_machine(type_name<Spec>(), &detail::make_state_machine_steps<Spec>,
                                     detail::spec_domain<Spec>());
}

/// Runs the one case that `bytes` describe: the entry point for coverage-guided fuzzers
/// (libFuzzer, AFL++), which then steer generation. Running out of bytes ends the case
/// cleanly; a failure is shrunk and reported as usual, with a replay token.
///
///   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
///     auto r = duet::check_sequential_bytes<QueueSpec>({data, size});
///     if (r.status != duet::CheckResult::Status::passed) { std::fputs(r.report.c_str(), stderr); std::abort(); }
///     return 0;
///   }
template <class Spec>
CheckResult check_sequential_bytes(std::span<const std::uint8_t> bytes, const Config& config = {}) {
  detail::check_state_machine_spec<Spec>();
  return detail::check_state_machine(type_name<Spec>(), &detail::make_state_machine_steps<Spec>, detail::spec_domain<Spec>(),
                                     config, bytes);
}

}  // namespace duet