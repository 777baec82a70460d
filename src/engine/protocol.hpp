// The messages of isolation mode: what the test process asks its child (run a case, shrink a
// failing case, search) and what the child answers. Each is a struct that lists its fields once
// (wire_fields, engine/wire.hpp): encode() and decode() write and read them in that order; a
// message cut short, with bytes left over or with a value out of range throws std::runtime_error.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/clock.hpp"
#include "engine/case_wire.hpp"
#include "engine/isolation/death.hpp"
#include "engine/wire.hpp"
#include "shrink/shrink.hpp"

namespace duet::detail {

/// One run of one case, in this process or in isolation's child.
struct CaseRun {
  CaseOutcome outcome;
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
  Trace trace;                 // empty when the run was not traced
  std::optional<Death> death;  // the child died running it (the parent's own record: never sent)
};
template <WireSelf<CaseRun> Self, class Visit>
auto wire_fields(Self& r, Visit&& visit) {
  return visit(r.outcome, r.choices, r.spans, r.concurrent_start, r.trace, not_sent(r.death));
}

/// How a search ended.
struct SearchEnd {
  bool failed = false;  // a case failed or erred: `run` holds it
  std::uint64_t case_seed = 0;
  CaseRun run;
  std::string abandon_reason;
  bool nothing_generated = false;  // every attempt so far rejected (see InProcessBackend::search_cases)
  /// Where the search ran in isolation's child: Property::coverage as the child saw it (where its
  /// branches ran); the parent's Property saw no case.
  std::optional<std::string> coverage;
  /// Likewise Execution::unexercised as the child saw it: why its cases tested nothing, or empty.
  std::string unexercised;
  /// Likewise Property::unfinished as the child saw it.
  std::string unfinished;
  /// Likewise Property::certificate as the child saw it.
  std::string certificate;
  /// The failing case ran in another process (a walk's worker): it runs again only from its
  /// choices, never from its seed (which would walk from the start here).
  bool by_choices = false;
};
template <WireSelf<SearchEnd> Self, class Visit>
auto wire_fields(Self& e, Visit&& visit) {
  return visit(e.failed, e.case_seed, e.run, e.abandon_reason, e.nothing_generated, e.coverage, e.unexercised, e.unfinished,
               e.certificate,
               not_sent(e.by_choices));  // the receiver's to say: it knows where the case ran
}

/// Run one case: of `seed`, of the recorded `choices`, or of a fuzzer's `bytes`. Answer: RunAnswer.
struct RunRequest {
  std::optional<std::uint64_t> seed;
  std::vector<std::uint64_t> choices;  // without a seed or bytes
  std::optional<std::string> bytes;
  bool traced = false;       // the answer carries the case's trace
  bool record_pass = false;  // Trace::record_pass
};
template <WireSelf<RunRequest> Self, class Visit>
auto wire_fields(Self& r, Visit&& visit) {
  return visit(r.seed, r.choices, r.bytes, r.traced, r.record_pass);
}

struct RunAnswer {
  CaseRun run;
};
template <WireSelf<RunAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.run);
}

/// A shrink candidate that killed an earlier child: a failing case, with what it drew.
struct KnownDeath {
  std::vector<std::uint64_t> candidate;
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
};
template <WireSelf<KnownDeath> Self, class Visit>
auto wire_fields(Self& d, Visit&& visit) {
  return visit(d.candidate, d.choices, d.spans, d.concurrent_start);
}

/// Shrink the failing case of `choices` in the child, within the budget. Answer: ShrinkAnswer.
struct ShrinkRequest {
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
  std::uint64_t max_tries = 0;
  std::chrono::nanoseconds max_time{0};
  std::vector<KnownDeath> deaths;  // answered without running them again
};
template <WireSelf<ShrinkRequest> Self, class Visit>
auto wire_fields(Self& r, Visit&& visit) {
  return visit(r.choices, r.spans, r.concurrent_start, r.max_tries, r.max_time, r.deaths);
}

/// The child's record of a failing run (thread timing: it may not come back when replayed).
struct FailureRecord {
  Trace trace;
  CaseOutcome outcome;
};
template <WireSelf<FailureRecord> Self, class Visit>
auto wire_fields(Self& f, Visit&& visit) {
  return visit(f.trace, f.outcome);
}

constexpr ShrinkStop wire_last(ShrinkStop) { return ShrinkStop::time_budget; }

struct ShrinkAnswer {
  std::vector<std::uint64_t> choices;  // the smallest failing case found
  std::uint64_t accepted = 0, tried = 0;
  ShrinkStop stop = ShrinkStop::fixed_point;
  std::optional<FailureRecord> failure;  // of `choices`, when the child saw it fail
};
template <WireSelf<ShrinkAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.choices, a.accepted, a.tried, a.stop, a.failure);
}

/// Search in the child, timed from `start` (the parent's clock: the same across fork).
/// Answer: SearchAnswer; the counts are in shared memory.
struct SearchRequest {
  Clock::time_point start;
  /// Cases at most: the parent's Settings::count, which a search again lowers (engine/search.cpp).
  std::uint64_t count = ~std::uint64_t{0};
};
template <WireSelf<SearchRequest> Self, class Visit>
auto wire_fields(Self& r, Visit&& visit) {
  return visit(r.start, r.count);
}

struct SearchAnswer {
  SearchEnd end;  // end.run only when end.failed
  /// From a worker of the clean child that searched: Property::save_totals of its process, which
  /// the check's process adds to its own (what the trials left, the libraries they ran). Empty
  /// from isolation's child, whose search the check's process does not take for its own.
  std::string totals;
};
template <WireSelf<SearchAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.end, a.totals);
}

/// From now on each trial in a process of its own (Execution::take_trial_processes), in the
/// child and in the workers it forks. Answer: TrialProcessesAnswer.
struct TrialProcessesRequest {};
template <WireSelf<TrialProcessesRequest> Self, class Visit>
auto wire_fields(Self&, Visit&& visit) {
  return visit();
}
struct TrialProcessesAnswer {
  bool taken = false;  // the child's execution took them
};
template <WireSelf<TrialProcessesAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.taken);
}

/// What the parent may ask: each request is sent behind its kind (its index here).
using Request = std::variant<RunRequest, ShrinkRequest, SearchRequest, TrialProcessesRequest>;

std::string encode_request(const Request& request);
Request decode_request(const std::string& bytes);

}  // namespace duet::detail
