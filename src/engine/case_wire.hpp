// The field lists (engine/wire.hpp) of a case's record as it crosses between duet's processes:
// its steps, trace and outcome, and a walk's progress.
#pragma once

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/wire.hpp"

namespace duet::detail {

constexpr Step::Kind wire_last(Step::Kind) { return Step::Kind::exception; }
constexpr CaseOutcome::Kind wire_last(CaseOutcome::Kind) { return CaseOutcome::Kind::error; }

template <WireSelf<Step> Self, class Visit>
auto wire_fields(Self& s, Visit&& visit) {
  return visit(s.code, s.observed, s.kind, s.exception_type, s.expected, s.expected_exception, s.explanation, s.check,
               s.check_declaration, s.assertion, s.crash, s.async_trace, s.died, s.state);
}

template <WireSelf<InterleavingStep> Self, class Visit>
auto wire_fields(Self& s, Visit&& visit) {
  return visit(s.step, s.fiber, s.op, s.object, s.value, s.location, s.note);
}

template <WireSelf<ClockRead> Self, class Visit>
auto wire_fields(Self& c, Visit&& visit) {
  return visit(c.time, c.steps, c.fiber);
}

template <WireSelf<Trace::ScenarioDraft> Self, class Visit>
auto wire_fields(Self& s, Visit&& visit) {
  return visit(s.declarations, s.type, s.check, s.calls, s.config, s.token);
}

template <WireSelf<Trace> Self, class Visit>
auto wire_fields(Self& t, Visit&& visit) {
  return visit(t.setup, t.draft_setup, t.steps, t.failed, t.initial_state, t.diagram, t.y_prefix, t.y_suffix, t.y_branches,
               t.y_roles, t.verdict, t.y_witness, t.y_witness_states, t.y_witness_after_prefix, t.y_shown_results,
               t.y_subject_state, t.y_results, t.interleaving, t.interleaving_columns, t.schedule, t.fiber_schedule,
               t.fiber_options, t.interleaving_steps, t.clock_reads, t.call_times, t.uninstrumented, t.noise, t.no_draft,
               t.given_program, t.scenario, t.record_pass,
               not_sent(t.observer));  // the process's own: told of the calls where they run
}

template <WireSelf<CaseOutcome> Self, class Visit>
auto wire_fields(Self& o, Visit&& visit) {
  return visit(o.kind, o.message, o.commands, o.attempts, o.rejected, o.trials, o.overlapped, o.cpus,
               not_sent(o.nothing_left),  // a walk's end, seen by the search that runs it: never a case's to send
               o.failing_step);
}

template <WireSelf<WalkProgress> Self, class Visit>
auto wire_fields(Self& w, Visit&& visit) {
  return visit(w.position, w.ran, w.exhausted, w.done, w.fingerprint, w.total, w.searches_every_run,
               not_sent(w.shards),  // the shard is the check's: a walk's worker counts a share of it
               not_sent(w.shard));
}

}  // namespace duet::detail
