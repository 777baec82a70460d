// Isolation's messages (src/engine/protocol.cpp): each round-trips field for field, and a
// message cut short, with bytes left over or with a value out of range throws, never crashes.
#include "engine/protocol.hpp"
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace duet::detail;
using duet::Source;

Trace sample_trace() {
  Trace t;
  t.setup = "Queue q;";
  Step step;
  step.code = "q.push(3)";
  step.observed = "3";
  step.kind = Step::Kind::value;
  step.explanation = "candidate returned 3; the model allows 4";
  step.died = "a segmentation fault (SIGSEGV)";
  t.steps = {step, step};
  t.failed = true;
  t.y_prefix = {"push(1)"};
  t.y_branches = {{"pop()"}, {"push(2)", "size()"}};
  t.y_results = {"1", "2"};
  t.interleaving = {"f0 load"};
  t.no_draft = "the process died";
  return t;
}

CaseOutcome sample_outcome() {
  CaseOutcome o;
  o.kind = CaseOutcome::Kind::fail;
  o.message = "candidate returned 3";
  o.commands = 7;
  o.attempts = 9;
  o.rejected = 2;
  o.trials = 100;
  o.overlapped = 40;
  o.cpus = 2;
  Step failing;
  failing.code = "q.pop()";
  o.failing_step = failing;
  return o;
}

CaseRun sample_run() {
  CaseRun run;
  run.outcome = sample_outcome();
  run.choices = {0, 1, 127, 128, ~0ULL};
  run.spans = {{0, 2}, {2, 5}};
  run.concurrent_start = 3;
  run.trace = sample_trace();
  return run;
}

void expect_same_trace(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.setup, b.setup);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  EXPECT_EQ(a.steps[0].code, b.steps[0].code);
  EXPECT_EQ(a.steps[0].kind, b.steps[0].kind);
  EXPECT_EQ(a.steps[1].died, b.steps[1].died);
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.y_prefix, b.y_prefix);
  EXPECT_EQ(a.y_branches, b.y_branches);
  EXPECT_EQ(a.y_results, b.y_results);
  EXPECT_EQ(a.interleaving, b.interleaving);
  EXPECT_EQ(a.no_draft, b.no_draft);
}

void expect_same_outcome(const CaseOutcome& a, const CaseOutcome& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.commands, b.commands);
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.trials, b.trials);
  EXPECT_EQ(a.overlapped, b.overlapped);
  EXPECT_EQ(a.cpus, b.cpus);
  ASSERT_EQ(a.failing_step.has_value(), b.failing_step.has_value());
  if (a.failing_step) EXPECT_EQ(a.failing_step->code, b.failing_step->code);
}

void expect_same_run(const CaseRun& a, const CaseRun& b, bool with_trace) {
  expect_same_outcome(a.outcome, b.outcome);
  EXPECT_EQ(a.choices, b.choices);
  ASSERT_EQ(a.spans.size(), b.spans.size());
  for (std::size_t i = 0; i < a.spans.size(); ++i) {
    EXPECT_EQ(a.spans[i].begin, b.spans[i].begin);
    EXPECT_EQ(a.spans[i].end, b.spans[i].end);
  }
  EXPECT_EQ(a.concurrent_start, b.concurrent_start);
  if (with_trace) expect_same_trace(a.trace, b.trace);
  else EXPECT_TRUE(b.trace.steps.empty());
}

// Every strict prefix of a message's bytes is refused with std::runtime_error.
void expect_every_prefix_throws(const std::string& bytes, const std::function<void(const std::string&)>& decode) {
  ASSERT_FALSE(bytes.empty());
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(decode(bytes.substr(0, n)), std::runtime_error) << "prefix of " << n << " of " << bytes.size() << " bytes";
  EXPECT_THROW(decode(bytes + 'x'), std::runtime_error) << "a byte left over";
}

TEST(Protocol, RunRequestRoundTrips) {
  RunRequest seeded{0x1234567890abcdefULL, {}, std::nullopt, true, true};
  RunRequest replayed{std::nullopt, {5, 0, 300}, std::nullopt, false, false};
  RunRequest from_bytes{std::nullopt, {}, std::string("\0\x01\xff", 3), true, false};
  for (const RunRequest& sent : {seeded, replayed, from_bytes}) {
    const Request back = decode_request(encode_request(sent));
    ASSERT_TRUE(std::holds_alternative<RunRequest>(back));
    const auto& got = std::get<RunRequest>(back);
    EXPECT_EQ(got.seed, sent.seed);
    EXPECT_EQ(got.choices, sent.choices);
    EXPECT_EQ(got.bytes, sent.bytes);
    EXPECT_EQ(got.traced, sent.traced);
    EXPECT_EQ(got.record_pass, sent.record_pass);
  }
}

TEST(Protocol, RunAnswerRoundTrips) {
  for (bool with_trace : {true, false}) {
    const RunAnswer back = decode_answer<RunAnswer>(encode_answer(RunAnswer{sample_run(), with_trace}));
    EXPECT_EQ(back.with_trace, with_trace);
    expect_same_run(sample_run(), back.run, with_trace);
  }
}

TEST(Protocol, ShrinkRequestRoundTrips) {
  ShrinkRequest sent{{9, 8, 7}, {{0, 1}, {1, 3}}, 2, 5000, std::chrono::nanoseconds(123456789), {}};
  sent.deaths.push_back(KnownDeath{{1, 2}, {1, 2, 3}, {{0, 3}}, Source::kNoMark});
  sent.deaths.push_back(KnownDeath{{4}, {4, 0}, {}, 1});
  const Request back = decode_request(encode_request(sent));
  ASSERT_TRUE(std::holds_alternative<ShrinkRequest>(back));
  const auto& got = std::get<ShrinkRequest>(back);
  EXPECT_EQ(got.choices, sent.choices);
  ASSERT_EQ(got.spans.size(), 2u);
  EXPECT_EQ(got.spans[1].end, 3u);
  EXPECT_EQ(got.concurrent_start, 2u);
  EXPECT_EQ(got.max_tries, 5000u);
  EXPECT_EQ(got.max_time, std::chrono::nanoseconds(123456789));
  ASSERT_EQ(got.deaths.size(), 2u);
  EXPECT_EQ(got.deaths[0].candidate, sent.deaths[0].candidate);
  EXPECT_EQ(got.deaths[0].choices, sent.deaths[0].choices);
  EXPECT_EQ(got.deaths[0].spans.size(), 1u);
  EXPECT_EQ(got.deaths[0].concurrent_start, Source::kNoMark);
  EXPECT_EQ(got.deaths[1].choices, sent.deaths[1].choices);
  EXPECT_EQ(got.deaths[1].concurrent_start, 1u);
}

TEST(Protocol, ShrinkAnswerRoundTrips) {
  ShrinkAnswer sent{{3, 1}, 12, 340, ShrinkStop::step_budget, FailureRecord{sample_trace(), sample_outcome()}};
  const auto back = decode_answer<ShrinkAnswer>(encode_answer(sent));
  EXPECT_EQ(back.choices, sent.choices);
  EXPECT_EQ(back.accepted, 12u);
  EXPECT_EQ(back.tried, 340u);
  EXPECT_EQ(back.stop, ShrinkStop::step_budget);
  ASSERT_TRUE(back.failure.has_value());
  expect_same_trace(sent.failure->trace, back.failure->trace);
  expect_same_outcome(sent.failure->outcome, back.failure->outcome);
  sent.failure.reset();
  sent.stop = ShrinkStop::time_budget;
  const auto without = decode_answer<ShrinkAnswer>(encode_answer(sent));
  EXPECT_FALSE(without.failure.has_value());
  EXPECT_EQ(without.stop, ShrinkStop::time_budget);
}

TEST(Protocol, SearchRequestRoundTrips) {
  const SearchRequest sent{Clock::now(), 52};
  const Request back = decode_request(encode_request(sent));
  ASSERT_TRUE(std::holds_alternative<SearchRequest>(back));
  EXPECT_EQ(std::get<SearchRequest>(back).start, sent.start);
  EXPECT_EQ(std::get<SearchRequest>(back).count, 52u);
}

TEST(Protocol, TrialProcessesRequestRoundTrips) {
  const Request back = decode_request(encode_request(TrialProcessesRequest{}));
  EXPECT_TRUE(std::holds_alternative<TrialProcessesRequest>(back));
}

TEST(Protocol, SearchAnswerRoundTrips) {
  SearchAnswer failed;
  failed.end.failed = true;
  failed.end.case_seed = 77;
  failed.end.run = sample_run();
  failed.end.abandon_reason = "unimplemented";
  failed.end.coverage = "branches on 2 CPUs";
  failed.end.unfinished = "the walk stopped";
  failed.end.certificate = "scope: 2 branches\nshard: 1\n";
  failed.with_trace = true;
  failed.totals = std::string("\0totals\xff", 8);
  const auto back = decode_answer<SearchAnswer>(encode_answer(failed));
  EXPECT_TRUE(back.end.failed);
  EXPECT_EQ(back.end.case_seed, 77u);
  EXPECT_EQ(back.end.abandon_reason, "unimplemented");
  EXPECT_FALSE(back.end.nothing_generated);
  EXPECT_EQ(back.end.coverage, "branches on 2 CPUs");
  EXPECT_EQ(back.end.unfinished, "the walk stopped");
  EXPECT_EQ(back.end.certificate, "scope: 2 branches\nshard: 1\n");
  EXPECT_EQ(back.totals, failed.totals);
  expect_same_run(failed.end.run, back.end.run, true);
  SearchAnswer passed;
  passed.end.nothing_generated = true;
  const auto back_passed = decode_answer<SearchAnswer>(encode_answer(passed));
  EXPECT_FALSE(back_passed.end.failed);
  EXPECT_TRUE(back_passed.end.nothing_generated);
  EXPECT_EQ(back_passed.end.coverage, "");
  EXPECT_EQ(back_passed.totals, "");
  EXPECT_TRUE(back_passed.end.run.choices.empty());
}

TEST(Protocol, CutShortOrOverlongMessagesThrow) {
  const auto request = [](const std::string& bytes) { decode_request(bytes); };
  expect_every_prefix_throws(encode_request(RunRequest{7, {1, 2}, std::string("ab"), true, false}), request);
  ShrinkRequest shrink{{9, 8}, {{0, 2}}, 1, 10, std::chrono::nanoseconds(5), {KnownDeath{{1}, {1, 2}, {}, 0}}};
  expect_every_prefix_throws(encode_request(shrink), request);
  expect_every_prefix_throws(encode_request(SearchRequest{Clock::now()}), request);
  expect_every_prefix_throws(encode_answer(RunAnswer{sample_run(), true}),
                             [](const std::string& bytes) { decode_answer<RunAnswer>(bytes); });
  expect_every_prefix_throws(
      encode_answer(ShrinkAnswer{{1}, 1, 2, ShrinkStop::fixed_point, FailureRecord{sample_trace(), sample_outcome()}}),
      [](const std::string& bytes) { decode_answer<ShrinkAnswer>(bytes); });
  SearchAnswer search;
  search.end.failed = true;
  search.end.run = sample_run();
  expect_every_prefix_throws(encode_answer(search), [](const std::string& bytes) { decode_answer<SearchAnswer>(bytes); });
}

TEST(Protocol, MalformedMessagesThrow) {
  WireWriter unknown;
  unknown.u64('Z');
  EXPECT_THROW(decode_request(unknown.bytes()), std::runtime_error);
  // A shrink answer whose reason to stop is out of range.
  WireWriter bad_stop;
  bad_stop.u64s({1});
  bad_stop.u64(0);
  bad_stop.u64(0);
  bad_stop.u64(9);
  bad_stop.boolean(false);
  EXPECT_THROW(decode_answer<ShrinkAnswer>(bad_stop.bytes()), std::runtime_error);
  // A run answer whose outcome kind is out of range.
  WireWriter bad_kind;
  bad_kind.boolean(false);
  bad_kind.u64(200);
  EXPECT_THROW(decode_answer<RunAnswer>(bad_kind.bytes()), std::runtime_error);
  // A count larger than the bytes that follow, and a number that never ends.
  WireWriter huge_count;
  huge_count.u64('R');
  huge_count.boolean(false);
  huge_count.u64(0);
  huge_count.u64(~0ULL);
  EXPECT_THROW(decode_request(huge_count.bytes()), std::runtime_error);
  EXPECT_THROW(decode_request(std::string(11, '\xff')), std::runtime_error);
}

}  // namespace
