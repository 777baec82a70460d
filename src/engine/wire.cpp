#include "engine/wire.hpp"

namespace duet::detail {
namespace {

void write_step(WireWriter& w, const Step& s) {
  w.str(s.code);
  w.str(s.observed);
  w.u64(static_cast<std::uint64_t>(s.kind));
  w.str(s.exception_type);
  w.str(s.expected);
  w.boolean(s.expected_exception);
  w.str(s.explanation);
  w.str(s.check);
  w.str(s.check_declaration);
  w.boolean(s.assertion);
  w.str(s.crash);
  w.str(s.async_trace);
  w.str(s.died);
  w.str(s.state);
}

Step read_step(WireReader& r) {
  Step s;
  s.code = r.str();
  s.observed = r.str();
  const std::uint64_t kind = r.u64();
  if (kind > static_cast<std::uint64_t>(Step::Kind::exception)) throw std::runtime_error("isolation: a malformed step");
  s.kind = static_cast<Step::Kind>(kind);
  s.exception_type = r.str();
  s.expected = r.str();
  s.expected_exception = r.boolean();
  s.explanation = r.str();
  s.check = r.str();
  s.check_declaration = r.str();
  s.assertion = r.boolean();
  s.crash = r.str();
  s.async_trace = r.str();
  s.died = r.str();
  s.state = r.str();
  return s;
}

void write_fiber_parts(WireWriter& w, const Trace& t) {
  w.u64(t.interleaving_steps.size());
  for (const InterleavingStep& s : t.interleaving_steps) {
    w.u64(s.step);
    w.u64(s.fiber);
    for (const std::string* part : {&s.op, &s.object, &s.value, &s.location, &s.note}) w.str(*part);
  }
  w.u64(t.clock_reads.size());
  for (const ClockRead& c : t.clock_reads) {
    w.u64(c.time);
    w.u64(c.steps);
    w.u64(c.fiber);
  }
  w.u64(t.call_times.size());
  for (const auto& [invoke, response] : t.call_times) {
    w.u64(invoke);
    w.u64(response);
  }
}

void read_fiber_parts(WireReader& r, Trace& t) {
  const std::size_t steps = r.count();
  for (std::size_t i = 0; i < steps; ++i) {
    InterleavingStep s;
    s.step = static_cast<std::uint32_t>(r.u64());
    s.fiber = static_cast<std::uint32_t>(r.u64());
    for (std::string* part : {&s.op, &s.object, &s.value, &s.location, &s.note}) *part = r.str();
    t.interleaving_steps.push_back(std::move(s));
  }
  const std::size_t reads = r.count();
  for (std::size_t i = 0; i < reads; ++i) {
    ClockRead c;
    c.time = r.u64();
    c.steps = static_cast<std::uint32_t>(r.u64());
    c.fiber = static_cast<std::uint32_t>(r.u64());
    t.clock_reads.push_back(c);
  }
  const std::size_t calls = r.count();
  for (std::size_t i = 0; i < calls; ++i) {
    const std::uint64_t invoke = r.u64();
    t.call_times.emplace_back(invoke, r.u64());
  }
}

}  // namespace

void write_trace(WireWriter& w, const Trace& t) {
  w.str(t.setup);
  w.str(t.draft_setup);
  w.u64(t.steps.size());
  for (const Step& s : t.steps) write_step(w, s);
  w.boolean(t.failed);
  w.str(t.initial_state);
  w.str(t.diagram);
  w.strings(t.y_prefix);
  w.strings(t.y_suffix);
  w.u64(t.y_branches.size());
  for (const auto& b : t.y_branches) w.strings(b);
  w.strings(t.y_roles);
  w.str(t.verdict);
  w.u64(t.y_witness.size());
  for (std::size_t i : t.y_witness) w.u64(i);
  w.strings(t.y_witness_states);
  w.boolean(t.y_witness_after_prefix);
  w.strings(t.y_shown_results);
  w.str(t.y_subject_state);
  w.strings(t.y_results);
  w.strings(t.interleaving);
  w.strings(t.interleaving_columns);
  w.str(t.schedule);
  w.str(t.fiber_schedule);
  w.str(t.fiber_options);
  write_fiber_parts(w, t);
  w.str(t.uninstrumented);
  w.str(t.noise);
  w.str(t.no_draft);
  w.boolean(t.given_program);
  w.str(t.scenario.declarations);
  w.str(t.scenario.type);
  w.str(t.scenario.check);
  w.strings(t.scenario.calls);
  w.str(t.scenario.config);
  w.str(t.scenario.token);
  w.boolean(t.record_pass);
}

Trace read_trace(WireReader& r) {
  Trace t;
  t.setup = r.str();
  t.draft_setup = r.str();
  const std::uint64_t steps = r.u64();
  for (std::uint64_t i = 0; i < steps; ++i) t.steps.push_back(read_step(r));
  t.failed = r.boolean();
  t.initial_state = r.str();
  t.diagram = r.str();
  t.y_prefix = r.strings();
  t.y_suffix = r.strings();
  const std::uint64_t branches = r.u64();
  for (std::uint64_t i = 0; i < branches; ++i) t.y_branches.push_back(r.strings());
  t.y_roles = r.strings();
  t.verdict = r.str();
  const std::size_t witness = r.count();
  for (std::size_t i = 0; i < witness; ++i) t.y_witness.push_back(static_cast<std::size_t>(r.u64()));
  t.y_witness_states = r.strings();
  t.y_witness_after_prefix = r.boolean();
  t.y_shown_results = r.strings();
  t.y_subject_state = r.str();
  t.y_results = r.strings();
  t.interleaving = r.strings();
  t.interleaving_columns = r.strings();
  t.schedule = r.str();
  t.fiber_schedule = r.str();
  t.fiber_options = r.str();
  read_fiber_parts(r, t);
  t.uninstrumented = r.str();
  t.noise = r.str();
  t.no_draft = r.str();
  t.given_program = r.boolean();
  t.scenario.declarations = r.str();
  t.scenario.type = r.str();
  t.scenario.check = r.str();
  t.scenario.calls = r.strings();
  t.scenario.config = r.str();
  t.scenario.token = r.str();
  t.record_pass = r.boolean();
  return t;
}

void write_outcome(WireWriter& w, const CaseOutcome& o) {
  w.u64(static_cast<std::uint64_t>(o.kind));
  w.str(o.message);
  w.u64(o.commands);
  w.u64(o.attempts);
  w.u64(o.rejected);
  w.u64(o.trials);
  w.u64(o.overlapped);
  w.u64(o.cpus);
  w.boolean(o.failing_step.has_value());
  if (o.failing_step) write_step(w, *o.failing_step);
}

CaseOutcome read_outcome(WireReader& r) {
  CaseOutcome o;
  const std::uint64_t kind = r.u64();
  if (kind > static_cast<std::uint64_t>(CaseOutcome::Kind::error))
    throw std::runtime_error("isolation: a malformed outcome");
  o.kind = static_cast<CaseOutcome::Kind>(kind);
  o.message = r.str();
  o.commands = r.u64();
  o.attempts = r.u64();
  o.rejected = r.u64();
  o.trials = r.u64();
  o.overlapped = r.u64();
  o.cpus = r.u64();
  if (r.boolean()) o.failing_step = read_step(r);
  return o;
}

void write_spans(WireWriter& w, const std::vector<Source::Span>& spans) {
  w.u64(spans.size());
  for (const auto& s : spans) {
    w.u64(s.begin);
    w.u64(s.end);
  }
}

std::vector<Source::Span> read_spans(WireReader& r) {
  std::vector<Source::Span> spans(r.count());
  for (auto& s : spans) {
    s.begin = static_cast<std::size_t>(r.u64());
    s.end = static_cast<std::size_t>(r.u64());
  }
  return spans;
}

}  // namespace duet::detail
