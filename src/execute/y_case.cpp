// One Y-program case, the loop every parallel front end runs its programs through (run_y_case):
// the program drawn part by part from the stream (or taken from a scenario) and its noise,
// accepted or rejected by the front end as a whole, then run; in a walk over every program,
// the walk's next program not run before, with the scope counted before the first.
#include "execute/y_case.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "generate/enumeration.hpp"

namespace duet::detail {

std::size_t YCase::draw_part(YSteps::Part part, std::size_t branch, std::size_t max) {
  const std::vector<std::string>* ops = nullptr;
  if (part == YSteps::Part::branch && !pp.branch_role.empty()) ops = &pp.config.roles[pp.branch_role[branch]].ops;
  steps.begin_part(part, branch, ops);
  return draw_call_list(src, max, stop_at, [&] {
    CaseSteps::Drawn drawn = CaseSteps::Drawn::rejected;
    // An enumeration tries once: another attempt's program is another path of its own.
    const int attempts = src.enumerated_values() != 0 ? 1 : kDrawAttempts;
    for (int attempt = 0; attempt < attempts && drawn == CaseSteps::Drawn::rejected; ++attempt) {
      ++out.attempts;
      drawn = steps.draw_call(src, trace, failure);
      if (drawn == CaseSteps::Drawn::rejected) ++out.rejected;
    }
    failed = failed || drawn == CaseSteps::Drawn::failed;
    return drawn == CaseSteps::Drawn::command;
  });
}

bool YCase::draw_program() {
  if (pp.given) return take_program();
  shape.prefix = draw_part(YSteps::Part::prefix, 0, pp.config.prefix_length);
  if (failed) return false;
  // A call moved out of a branch goes where the prefix's "no more" choice was (else the
  // prefix is full).
  if (stop_at != Source::kNoMark) src.mark_concurrent_start(stop_at);
  for (std::size_t b = 0; b < branch_count(pp.config); ++b) {
    shape.branches.push_back(draw_part(YSteps::Part::branch, b, pp.config.branch_length));
    if (failed) return false;
  }
  shape.roles = pp.branch_labels;
  shape.suffix = draw_part(YSteps::Part::suffix, 0, pp.config.suffix_length);
  return !failed;
}

bool YCase::take_program() {
  const YShape& given = pp.given->shape;
  std::size_t i = 0;
  auto take_part = [&](YSteps::Part part, std::size_t branch, std::size_t n) {
    steps.begin_part(part, branch, nullptr);
    for (std::size_t k = 0; k < n && !failed; ++k, ++i) {
      failure = steps.take_call(i);
      failed = !failure.ok();
    }
    return !failed;
  };
  if (!take_part(YSteps::Part::prefix, 0, given.prefix)) return false;
  for (std::size_t b = 0; b < given.branches.size(); ++b)
    if (!take_part(YSteps::Part::branch, b, given.branches[b])) return false;
  if (!take_part(YSteps::Part::suffix, 0, given.suffix)) return false;
  shape = given;
  shape.roles = pp.branch_labels;
  out.attempts += shape.size();
  return true;
}

void YCase::draw_noise() {
  if (!pp.noise) return;
  noise.level = static_cast<unsigned>(src.draw(Noise::kLevels));
  noise.yields = pp.noise_yields;
  for (std::uint64_t c : src.choices()) noise.seed = hash_combine(noise.seed, c);
}

namespace {

// After the program is drawn: whether it runs. A generated program the front end rejects is an
// empty case (drawn again); a hand-written one is the test's mistake; a failure ends the case.
enum class Accepted : unsigned char { runs, empty, ended };
Accepted accept_program(YCase& y_case, CaseOutcome& ended) {
  YSteps& steps = y_case.steps;
  if (!steps.accept(y_case.shape, y_case.failure)) {
    if (!y_case.failure.ok()) {
      ended = y_case.end(std::move(y_case.failure));
      return Accepted::ended;
    }
    if (y_case.pp.given) {
      ended = y_case.end(StepVerdict::error(
          "the scenario's calls break the spec's preconditions in some order of the branches (every order must "
          "satisfy them, or a correct candidate could be blamed for the spec's partiality)"));
      return Accepted::ended;
    }
    ++y_case.out.rejected;
    return Accepted::empty;
  }
  return steps.runnable(y_case.shape) ? Accepted::runs : Accepted::empty;
}

// The program, its calls as reports print them, in the form that knows it whatever path drew it.
std::string program_key(const YCase& y_case) {
  Trace drawn;
  y_case.steps.record(&drawn, y_case.shape, std::vector<Observed>(y_case.shape.size()), "");
  return canonical_program(drawn.y_prefix, drawn.y_branches, y_case.pp.branch_role, drawn.y_suffix);
}

CaseOutcome run_program(YCase& y_case) {
  y_case.out.commands = y_case.shape.size();
  if (y_case.trace && y_case.trace->observer) y_case.show_program_before_trials();
  return y_case.run_trials();
}

// Before a walk's first program runs: the scope's programs counted by drawing every path and
// running none (microseconds a path), so that progress and an unfinished walk say "of N". A
// scope too large to count in a few seconds, or whose drawing throws, stays uncounted.
void count_scope(EveryProgramWalk& every, const MakeYSteps& afresh, const ParallelParams& pp, const CaseParams& cp) {
  every.counted = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  ProgramEnumeration walk(every.values, 1, 0, every.symmetric_values);
  Source src = Source::from_seed(0);
  try {
    while (walk.next(src)) {
      if (std::chrono::steady_clock::now() > deadline) return;
      const std::unique_ptr<YSteps> steps = afresh();
      YCase y_case(*steps, pp, src, nullptr, cp);
      if (!y_case.draw_program()) return;
      src.program_drawn();
      CaseOutcome ended;
      const Accepted accepted = accept_program(y_case, ended);
      if (accepted == Accepted::ended) return;
      walk.drawn(src, accepted == Accepted::runs ? program_key(y_case) : std::string());
    }
  } catch (...) {
    return;  // the walk itself meets it, and says so
  }
  every.total = walk.programs();
}

// A case of a walk over every program: paths drawn (each with steps of its own) until one gives
// a program not run before, which runs; a case that finds none left runs nothing.
CaseOutcome run_next_program(YSteps& first, const MakeYSteps& afresh, const ParallelParams& pp, Source& src, Trace* trace,
                             const CaseParams& cp) {
  EveryProgramWalk& every = *pp.every;
  if (!every.counted) count_scope(every, afresh, pp, cp);
  ProgramEnumeration& walk = every.start(cp.shards, cp.shard_index);
  std::unique_ptr<YSteps> owned;
  CaseOutcome skipped;  // the draws of the paths that gave no program to run
  for (YSteps* steps = &first; walk.next(src); steps = (owned = afresh()).get()) {
    YCase y_case(*steps, pp, src, trace, cp);
    y_case.out.attempts = skipped.attempts;
    y_case.out.rejected = skipped.rejected;
    if (!y_case.draw_program()) return y_case.end(std::move(y_case.failure));
    src.program_drawn();
    CaseOutcome ended;
    const Accepted accepted = accept_program(y_case, ended);
    if (accepted == Accepted::ended) return ended;
    skipped = y_case.out;
    if (!walk.drawn(src, accepted == Accepted::runs ? program_key(y_case) : std::string())) continue;
    y_case.draw_noise();
    ++every.ran;
    CaseOutcome out = run_program(y_case);
    const TrialDriver& driver = pp.executor->trial_driver();
    every.searches_every_run = driver.searches_every_run();
    if (out.kind == CaseOutcome::Kind::pass && driver.program_complete()) ++every.exhausted;
    return out;
  }
  skipped.nothing_left = true;
  return skipped;
}

}  // namespace

CaseOutcome run_y_case(YSteps& steps, const ParallelParams& pp, Source& src, Trace* trace, const CaseParams& cp,
                       const MakeYSteps& afresh) {
  // A search's case walks on; a replay or a shrink candidate reads its program from its choices.
  if (pp.every && src.mode() == Source::Mode::random && src.position() == 0)
    return run_next_program(steps, afresh, pp, src, trace, cp);
  YCase y_case(steps, pp, src, trace, cp);
  if (!y_case.draw_program()) return y_case.end(std::move(y_case.failure));
  src.program_drawn();  // a program replayed from elsewhere: its schedules are drawn afresh
  y_case.draw_noise();
  CaseOutcome ended;
  switch (accept_program(y_case, ended)) {
    case Accepted::ended: return ended;
    case Accepted::empty: return y_case.out;
    case Accepted::runs: break;
  }
  return run_program(y_case);
}

}  // namespace duet::detail
