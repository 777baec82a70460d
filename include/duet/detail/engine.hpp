// What the front ends' headers need of the engine: a case's outcome and settings, the step a
// report prints, the capture of a test framework's assertions. The engine's Property is in
// duet/detail/property.hpp and a case's Trace in duet/detail/trace.hpp, which a test file
// compiles only when its front end's header needs their definitions (a sequential check's
// does not).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/detail/declarations.hpp"

namespace duet::detail {

/// One executed step, as the report prints it.
struct Step {
  std::string code;      // C++ statement without the trailing ';', e.g. "q.push(3)"
  std::string observed;  // C++ spelling of what the candidate did: "3", "" for void
  enum class Kind : unsigned char { none, value, exception } kind = Kind::none;
  std::string exception_type;  // when kind == exception
  // Filled only on the failing step:
  std::string expected;  // C++ spelling of what the model allows, when known
  bool expected_exception = false;
  std::string explanation;  // "candidate returned 0; the model allows 1"
  // A check duet ran after the step (an invariant, a well-formedness check) failed: the C++
  // expression a draft test re-runs ("v.size() <= v.capacity()", "duet_invariant(v)"), and the
  // declaration it needs when duet cannot spell the check itself (the user defines it).
  std::string check;
  std::string check_declaration;
  bool assertion = false;  // print the failing step as assert(code == expected)
  // A crash injected during the step: "crash at disk.write, sector 3 (block_device.hpp:98)".
  std::string crash;
  // What duet::run did during the step (crash steps and the failing step): the interleaving of
  // each run, as the report prints it under the step.
  std::string async_trace;
  // The process died during the step (isolation mode): how, e.g. "a segmentation fault
  // (SIGSEGV)", "a hang (still running after 200 ms)". The draft runs the step in a child.
  std::string died;
  // The state after the step as the spec prints it (a spec's show_state, Lin::state,
  // Api::state); empty when the spec does not print its state, and on the failing step.
  std::string state;
};

/// A case's record for its report (duet/detail/trace.hpp) and the engine-facing form of a check
/// (duet/detail/property.hpp).
struct Trace;
struct Property;

struct CaseOutcome {
  enum class Kind : unsigned char {
    pass,
    fail,       // a disagreement: shrink and report
    overrun,    // the choices ran out (byte input): not a failure
    abandoned,  // the candidate declared an operation unimplemented: not a failure
    error       // the spec cannot run (e.g. the candidate's constructor throws): report, no shrink
  } kind = Kind::pass;
  std::string message;  // for fail and error: one line, what went wrong
  std::uint64_t commands = 0;
  std::uint64_t attempts = 0;    // command generation attempts
  std::uint64_t rejected = 0;    // of which rejected by a precondition or a filter
  std::uint64_t trials = 0;      // parallel runner: runs of the case's program
  std::uint64_t overlapped = 0;  // of which trials where calls of different branches overlapped in time
  std::uint64_t cpus = 0;        // the most distinct CPUs the branches ran on in one trial
  /// A walk over every program found no program left to run: this was not a case, and the
  /// search ends (ParallelConfig::every_program).
  bool nothing_left = false;
  /// For a failure seen without a trace: the failing step as the trace would have recorded it
  /// (the last of `commands` steps). Kept so that a failure that does not come back when
  /// replayed can still be shown as first seen.
  std::optional<Step> failing_step;
};

class AssertionCapture;

/// What a case needs to know from the settings.
struct CaseParams {
  std::size_t max_length = 100;         // commands per case at most
  std::uint64_t continue_odds = 10;     // before each command, draw(continue_odds) == 0 stops
  AssertionCapture* capture = nullptr;  // assertion failures raised by spec code, if any
  /// How long one case may spend executing again to search its runs' schedules (half the case
  /// timeout, so that a search is never mistaken for a hang).
  double search_seconds = 30.0;
  /// The settings' shards: a walk over every program (ParallelConfig::every_program) runs the
  /// programs of its shard.
  std::uint32_t shards = 1, shard_index = 0;
};

/// FNV-1a, for spec ids.
constexpr std::uint32_t hash32(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// ---- GoogleTest (or other framework) assertion capture, installed by duet::gtest ----
/// Collects assertion failures raised inside spec code while a check runs, so that an
/// EXPECT_EQ inside a command is a disagreement like any other (and shrinks).
class AssertionCapture {
 public:
  virtual ~AssertionCapture() = default;
  virtual std::size_t count() const = 0;  // failures seen so far
  virtual std::string messages_since(std::size_t first) const = 0;
};
/// The assertion failures a capture has seen, each "file:line: message" on one line. Compiled
/// once in the library (src/report/report.cpp): the GoogleTest glue's capture keeps its failures
/// here, so that a test file compiles none of it.
class AssertionLog {
 public:
  void add(const char* file, int line, const char* message);
  std::size_t count() const { return lines_.size(); }
  /// The failures from the `first`th on, joined with " | ".
  std::string messages_since(std::size_t first) const;

 private:
  std::vector<std::string> lines_;
};

using AssertionCaptureFactory = std::unique_ptr<AssertionCapture> (*)();
void set_assertion_capture(AssertionCaptureFactory factory);
AssertionCaptureFactory assertion_capture();

}  // namespace duet::detail
