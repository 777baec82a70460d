// The outcome of a check: passed or not, with the report that explains it.
//
//   auto r = duet::check_sequential<QueueSpec>();
//   if (!r) std::cerr << r.report;
//   EXPECT_TRUE(r);           // with duet/gtest.hpp the report becomes the failure message
#pragma once

#include <concepts>
#include <cstdint>
#include <string>

namespace duet {

namespace detail {
// Matches testing::AssertionResult without including GoogleTest here, so the core
// library does not depend on it.
template <class A>
concept AssertionResultLike = requires(A a, const char* s) {
  a << s;
  { a.message() } -> std::convertible_to<const char*>;
  { a.failure_message() } -> std::convertible_to<const char*>;
};
}  // namespace detail

// [[nodiscard]]: a check whose result is dropped passes silently whatever it found, so every
// function returning one warns when its result is unused (an error under -Werror).
struct [[nodiscard(
    "a check's result says whether it passed: EXPECT_TRUE(check), or read .passed() and .report")]] CheckResult {
  enum class Status {
    passed,  // every case agreed
    failed,  // a disagreement (or a crash of the spec's code) was found: see report
    error    // nothing meaningful was tested: bad token, unsatisfiable spec, bad setting
  };
  /// How shrinking ended, for a failed check: the case is minimal for every shrink pass
  /// (fixed_point), or a budget stopped it first, or the failure did not come back when
  /// replayed, so there was nothing to shrink.
  enum class ShrinkEnd { none, fixed_point, step_budget, time_budget, not_reproduced };
  Status status = Status::error;
  std::string report;                   // the whole text printed for a failure or error
  std::string name;                     // the check's name
  std::uint64_t seed = 0;               // the run's seed
  std::uint64_t cases = 0;              // cases run
  std::uint64_t discarded = 0;          // generation attempts rejected (precondition, filter)
  std::uint64_t commands = 0;           // commands run in all cases
  std::uint64_t trials = 0;             // parallel runner: program runs in all cases
  std::uint64_t overlapped_trials = 0;  // of which branches' calls overlapped in time
  std::uint64_t cpus = 0;               // the most distinct CPUs a trial's branches ran on (0: not measured)
  std::uint64_t shrink_steps = 0;       // replays the shrinker accepted
  std::uint64_t shrink_tries = 0;       // replays the shrinker tried
  ShrinkEnd shrink_end = ShrinkEnd::none;
  std::size_t failing_length = 0;  // steps in the shrunk scenario
  std::string replay_token;        // DUET_REPLAY value for the shrunk case
  std::string draft_path;          // file holding the draft TEST
  /// What a pass covered beyond the counts, when the executor can say (an exhaustive search on
  /// fibers: how many schedules, and whether every program's were all explored). Also printed
  /// on the pass line.
  std::string coverage;
  double seconds = 0;

  // Out of line (src/engine/verdicts.cpp): a test file compiles none of the members' copies and
  // destructions.
  CheckResult() = default;
  CheckResult(const CheckResult&);
  CheckResult(CheckResult &&) noexcept;
  CheckResult& operator=(const CheckResult&);
  CheckResult& operator=(CheckResult&&) noexcept;
  ~CheckResult();

  bool passed() const { return status == Status::passed; }
  explicit operator bool() const { return passed(); }

  /// Converts to testing::AssertionResult carrying the report (include duet/gtest.hpp).
  /// With the GoogleTest glue, through its gtest_assertion_result (found by argument-dependent
  /// lookup): the same result, made by GoogleTest's compiled AssertionFailure rather than by
  /// streaming into the result, whose code every test file compiled. Whether the glue was seen
  /// is a template argument, so that a file with it and a file without instantiate two
  /// conversions, not one conversion with two bodies.
  template <detail::AssertionResultLike A, bool with_glue = requires(const CheckResult& r) {
    gtest_assertion_result(r, static_cast<A*>(nullptr));
  }
  > operator A() const {  // NOLINT: implicit, for EXPECT_TRUE(duet::check_...())
    if constexpr (with_glue) {
      return gtest_assertion_result(*this, static_cast<A*>(nullptr));
    } else {
      A a(passed());
      if (!passed()) a << "\n" << report.c_str();
      return a;
    }
  }
};

}  // namespace duet
