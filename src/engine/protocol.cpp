#include "engine/protocol.hpp"

#include <stdexcept>
#include <type_traits>

namespace duet::detail {
namespace {

// Request kinds, the first number of a request.
constexpr std::uint64_t kRunKind = 'R';
constexpr std::uint64_t kShrinkKind = 'K';
constexpr std::uint64_t kSearchKind = 'S';
constexpr std::uint64_t kTrialProcessesKind = 'T';

std::size_t read_size(WireReader& in) { return static_cast<std::size_t>(in.u64()); }

void write_case_run(WireWriter& out, const CaseRun& run, bool with_trace) {
  write_outcome(out, run.outcome);
  out.u64s(run.choices);
  write_spans(out, run.spans);
  out.u64(run.concurrent_start);
  if (with_trace) write_trace(out, run.trace);
}

CaseRun read_case_run(WireReader& in, bool with_trace) {
  CaseRun run;
  run.outcome = read_outcome(in);
  run.choices = in.u64s();
  run.spans = read_spans(in);
  run.concurrent_start = read_size(in);
  if (with_trace) run.trace = read_trace(in);
  return run;
}

void write_known_death(WireWriter& out, const KnownDeath& death) {
  out.u64s(death.candidate);
  out.u64s(death.choices);
  write_spans(out, death.spans);
  out.u64(death.concurrent_start);
}

KnownDeath read_known_death(WireReader& in) {
  KnownDeath death;
  death.candidate = in.u64s();
  death.choices = in.u64s();
  death.spans = read_spans(in);
  death.concurrent_start = read_size(in);
  return death;
}

}  // namespace

void RunRequest::write(WireWriter& out) const {
  out.boolean(seed.has_value());
  out.u64(seed.value_or(0));
  out.u64s(choices);
  out.boolean(bytes.has_value());
  out.str(bytes.value_or(std::string()));
  out.boolean(traced);
  out.boolean(record_pass);
}

RunRequest RunRequest::read(WireReader& in) {
  RunRequest request;
  const bool has_seed = in.boolean();
  const std::uint64_t seed = in.u64();
  if (has_seed) request.seed = seed;
  request.choices = in.u64s();
  const bool has_bytes = in.boolean();
  std::string bytes = in.str();
  if (has_bytes) request.bytes = std::move(bytes);
  request.traced = in.boolean();
  request.record_pass = in.boolean();
  return request;
}

void RunAnswer::write(WireWriter& out) const {
  out.boolean(with_trace);
  write_case_run(out, run, with_trace);
}

RunAnswer RunAnswer::read(WireReader& in) {
  RunAnswer answer;
  answer.with_trace = in.boolean();
  answer.run = read_case_run(in, answer.with_trace);
  return answer;
}

void ShrinkRequest::write(WireWriter& out) const {
  out.u64s(choices);
  write_spans(out, spans);
  out.u64(concurrent_start);
  out.u64(max_tries);
  out.u64(static_cast<std::uint64_t>(max_time.count()));
  out.u64(deaths.size());
  for (const KnownDeath& death : deaths) write_known_death(out, death);
}

ShrinkRequest ShrinkRequest::read(WireReader& in) {
  ShrinkRequest request;
  request.choices = in.u64s();
  request.spans = read_spans(in);
  request.concurrent_start = read_size(in);
  request.max_tries = in.u64();
  request.max_time = std::chrono::nanoseconds(static_cast<std::int64_t>(in.u64()));
  request.deaths.resize(in.count());
  for (KnownDeath& death : request.deaths) death = read_known_death(in);
  return request;
}

void ShrinkAnswer::write(WireWriter& out) const {
  out.u64s(choices);
  out.u64(accepted);
  out.u64(tried);
  out.u64(static_cast<std::uint64_t>(stop));
  out.boolean(failure.has_value());
  if (failure) {
    write_trace(out, failure->trace);
    write_outcome(out, failure->outcome);
  }
}

ShrinkAnswer ShrinkAnswer::read(WireReader& in) {
  ShrinkAnswer answer;
  answer.choices = in.u64s();
  answer.accepted = in.u64();
  answer.tried = in.u64();
  const std::uint64_t stop = in.u64();
  if (stop > static_cast<std::uint64_t>(ShrinkStop::time_budget))
    throw std::runtime_error("isolation: a malformed shrink answer");
  answer.stop = static_cast<ShrinkStop>(stop);
  if (in.boolean()) {
    FailureRecord failure;
    failure.trace = read_trace(in);
    failure.outcome = read_outcome(in);
    answer.failure = std::move(failure);
  }
  return answer;
}

void SearchRequest::write(WireWriter& out) const {
  out.u64(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count()));
  out.u64(count);
}

SearchRequest SearchRequest::read(WireReader& in) {
  const auto start_ns = std::chrono::nanoseconds(static_cast<std::int64_t>(in.u64()));
  SearchRequest request{Clock::time_point{std::chrono::duration_cast<Clock::duration>(start_ns)}};
  request.count = in.u64();
  return request;
}

void SearchAnswer::write(WireWriter& out) const {
  out.boolean(end.failed);
  out.u64(end.case_seed);
  out.str(end.abandon_reason);
  out.boolean(end.nothing_generated);
  out.str(end.coverage.value_or(std::string()));
  out.str(end.unexercised);
  out.str(end.unfinished);
  out.str(end.certificate);
  out.boolean(with_trace);
  out.str(totals);
  if (end.failed) write_case_run(out, end.run, with_trace);
}

SearchAnswer SearchAnswer::read(WireReader& in) {
  SearchAnswer answer;
  answer.end.failed = in.boolean();
  answer.end.case_seed = in.u64();
  answer.end.abandon_reason = in.str();
  answer.end.nothing_generated = in.boolean();
  answer.end.coverage = in.str();
  answer.end.unexercised = in.str();
  answer.end.unfinished = in.str();
  answer.end.certificate = in.str();
  answer.with_trace = in.boolean();
  answer.totals = in.str();
  if (answer.end.failed) answer.end.run = read_case_run(in, answer.with_trace);
  return answer;
}

std::string encode_request(const Request& request) {
  WireWriter out;
  std::visit(
      [&out](const auto& message) {
        using Message = std::decay_t<decltype(message)>;
        out.u64(std::is_same_v<Message, RunRequest>      ? kRunKind
                : std::is_same_v<Message, ShrinkRequest> ? kShrinkKind
                : std::is_same_v<Message, SearchRequest> ? kSearchKind
                                                         : kTrialProcessesKind);
        message.write(out);
      },
      request);
  return out.take();
}

Request decode_request(const std::string& bytes) {
  WireReader in(bytes);
  Request request;
  switch (in.u64()) {
    case kRunKind: request = RunRequest::read(in); break;
    case kShrinkKind: request = ShrinkRequest::read(in); break;
    case kSearchKind: request = SearchRequest::read(in); break;
    case kTrialProcessesKind: request = TrialProcessesRequest::read(in); break;
    default: throw std::runtime_error("isolation: a request of an unknown kind");
  }
  in.expect_end();
  return request;
}

}  // namespace duet::detail
