// The scheduling strategies as pickers for each run (schedule_strategy.hpp).
#include "execute/fibers/schedule_strategy.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <string>

#include "execute/fibers/executor_totals.hpp"
#include "execute/fibers/dpor/call_orders.hpp"
#include "execute/fibers/dpor/fence_orders.hpp"
#include "execute/fibers/dpor/optimal_explorer.hpp"
#include "execute/fibers/strategies.hpp"
#include "execute/trial_progress.hpp"
#include "report/report.hpp"
#include "show/text.hpp"

namespace duet::detail {

namespace {

struct RandomStrategy final : ScheduleStrategy {
  std::optional<fiber::RandomPicker> p;
  fiber::Picker* picker(Source& src) override {
    p.emplace(src, kSpuriousOneIn);
    return &*p;
  }
};

struct PctStrategy final : ScheduleStrategy {
  explicit PctStrategy(std::size_t depth) : depth(std::max<std::size_t>(depth, 1)) {}
  std::size_t depth;
  std::size_t steps = 0;  // k learnt over the check's runs (0: the picker learns in its first)
  std::optional<fiber::PctPicker> p;
  std::optional<fiber::RandomPicker> replaying;
  fiber::Picker* picker(Source& src) override {
    if (src.mode() != Source::Mode::random) {
      p.reset();
      replaying.emplace(src, kSpuriousOneIn);
      return &*replaying;
    }
    p.emplace(src, depth, steps, kSpuriousOneIn);
    return &*p;
  }
  void finish(const fiber::RunResult&) override {
    if (p) steps = std::max(steps, p->steps_seen());
  }
  std::string learnt() const override { return std::to_string(steps); }
  void learn(const std::string& learnt) override {
    std::size_t seen = 0;
    std::from_chars(learnt.data(), learnt.data() + learnt.size(), seen);
    steps = std::max(steps, seen);
  }
};

// Records another picker's decisions in the case's stream, as RandomPicker would draw them.
class RecordingPicker final : public fiber::Picker {
 public:
  RecordingPicker(fiber::Picker& inner, Source& src) : inner_(inner), src_(src) {}
  void begin_run(std::size_t fibers) override { inner_.begin_run(fibers); }
  std::size_t pick(const fiber::PickContext& ctx) override {
    return static_cast<std::size_t>(src_.draw_decided(ctx.candidates.size() - 1, inner_.pick(ctx)));
  }
  bool spurious_wakeup(std::uint32_t fiber, const fiber::Event& wait) override {
    const bool wake = inner_.spurious_wakeup(fiber, wait);
    return src_.draw_decided(kSpuriousOneIn - 1, wake ? kSpuriousOneIn - 1 : 0) == kSpuriousOneIn - 1;
  }
  std::size_t pick_waiter(std::uint32_t notifier, std::span<const std::uint32_t> waiters) override {
    return static_cast<std::size_t>(src_.draw_decided(waiters.size() - 1, inner_.pick_waiter(notifier, waiters)));
  }
  std::size_t pick_store(std::uint32_t fiber, const fiber::Event& load, std::size_t stores) override {
    return static_cast<std::size_t>(src_.draw_decided(stores - 1, inner_.pick_store(fiber, load, stores)));
  }

 private:
  fiber::Picker& inner_;
  Source& src_;
};

// Every schedule of each program within the preemption bound: one trial per schedule, until the
// search is complete (or its schedule budget runs out). Unbounded, the optimal partial-order
// reduction; a program outside its scope is searched again with sleep sets.
struct ExhaustiveStrategy final : ScheduleStrategy {
  ExhaustiveStrategy(const fiber::Scheduler& sched, std::size_t bound, std::size_t stale_reads)
      : sched(sched), bound(bound), stale_reads(stale_reads) {}
  const fiber::Scheduler& sched;
  std::size_t bound;
  std::size_t stale_reads;
  Source scratch = Source::from_seed(0);  // the search's own record of its decisions
  std::unique_ptr<fiber::ScheduleSearch> search;
  bool optimal = false;  // the current program's search is the optimal reduction
  bool done = false;
  std::string stopped_for;  // why the search ended before its end (stop()), or empty
  std::optional<RecordingPicker> recording;
  std::optional<fiber::RandomPicker> replaying;

  using Totals = ExhaustiveTotals;
  Totals totals;
  std::vector<std::size_t> branch_lengths;  // of the program being searched
  bool weak_seen = false;                   // under the C++ memory model, a run used a weaker order than seq_cst
  bool calls_left = false;                  // the program's search leaves the calls' real-time orders to the check

  // Unbounded: the optimal reduction, until the program turns out to be outside its scope (a
  // fiber that blocks is one way).
  bool reduction_applies() const { return bound == unbounded; }
  void start_search(bool reduction) {
    scratch.restart(0);
    optimal = reduction;
    if (reduction) {
      search = std::make_unique<fiber::dpor::OptimalExplorer>(
          sched, scratch,
          fiber::dpor::OptimalConfig{
              .stale_read_bound = stale_reads, .spurious_one_in = kSpuriousOneIn, .order_calls = !calls_left});
      return;
    }
    fiber::ExplorerConfig c;
    c.preemption_bound = bound;
    c.spurious_one_in = kSpuriousOneIn;
    c.memory_model = sched.config().cpp_memory_model;
    c.stale_read_bound = stale_reads;
    c.order_calls = !calls_left;
    search = std::make_unique<fiber::Explorer>(sched, scratch, c);
  }
  // Only without a bound: an order of the calls that no run took may need more preemptions
  // than a bound allows, and a failure found in it would then have no run to show it.
  bool leave_call_orders() override {
    if (bound != unbounded || (search && search->stats().runs > 0)) return false;
    calls_left = true;
    start_search(reduction_applies());  // no run yet: the program's search made again, leaving them
    return true;
  }
  CallOrders call_orders() const override {
    if (!search || !calls_left) return {};
    CallOrders o = fiber::dpor::call_orders(search->run_order(), sched.clock_reads());
    for (const ClockRead& r : sched.clock_reads()) o.times.push_back(r.time);
    o.fences_left_out = fences_left_out();
    if (o.fences_left_out && o.complete) o.not_after = fiber::dpor::fence_conflicts(sched.trace(), sched.clock_reads());
    return o;
  }
  bool fences_left_out() const override {
    return search && calls_left && sched.config().cpp_memory_model && !sched.config().harness_fences;
  }
  // Under the C++ memory model the check places its fences in each order it judges.
  bool harness_fences() const override { return !calls_left; }
  void order_calls_by_running() override {
    calls_left = false;
    start_search(reduction_applies());
    done = false;
  }
  void begin_program(std::span<const std::size_t> lengths) override {
    if (search && search->stats().runs > 0) totals.add(search->stats(), optimal, calls_left, branch_lengths);
    branch_lengths.assign(lengths.begin(), lengths.end());
    calls_left = false;  // until the caller says it judges them (leave_call_orders)
    start_search(reduction_applies());
    done = false;
  }
  fiber::Picker* picker(Source& src) override {
    if (!search) begin_program({});
    scratch.restart(0);
    fiber::Picker* next = nullptr;
    if (src.mode() != Source::Mode::random || !search->next(next)) {
      // Replaying (the token's picks are read back), or the search's schedule budget ran out
      // before the caller noticed: this run's schedule is drawn like a random one.
      if (src.mode() == Source::Mode::random) done = true;
      replaying.emplace(src, kSpuriousOneIn);
      return &*replaying;
    }
    recording.emplace(*next, src);
    return &*recording;
  }
  void finish(const fiber::RunResult& r) override {
    weak_seen = weak_seen || (r.cpp_memory_model && r.weak_order_used);
    if (search && recording) {
      search->finish(r);
      search_progress(search->stats().runs, search->stats().runs_in_all);
      if (std::string why = optimal ? search->outside_scope() : std::string(); !why.empty()) {
        if (totals.fell_back.empty()) totals.fell_back = std::move(why);
        start_search(false);  // this program again, with sleep sets
      }
    }
    recording.reset();
  }
  bool more() const override { return !done && !(search && search->stats().complete); }
  void stop(std::string why) override {
    stopped_for = std::move(why);
    done = true;
  }
  std::size_t trials(std::size_t) const override { return ~std::size_t{0}; }
  const fiber::ExplorerStats* search_stats() const override { return search ? &search->stats() : nullptr; }
  std::string save_totals() const override {
    Totals t = totals;
    if (search && search->stats().runs > 0) t.add(search->stats(), optimal, calls_left, branch_lengths);
    return encode(SavedTotals{t, weak_seen, stopped_for});
  }
  void add_totals(const std::string& saved) override {
    SavedTotals s = decode<SavedTotals>(saved);
    totals.add(s.totals);
    weak_seen = s.weak_seen || weak_seen;
    if (stopped_for.empty()) stopped_for = std::move(s.stopped_for);
  }
  std::string coverage() const override {
    Totals t = totals;
    if (search && search->stats().runs > 0) t.add(search->stats(), optimal, calls_left, branch_lengths);
    if (t.programs == 0) return {};
    if (bound == unbounded && t.complete == t.programs) return unbounded_coverage(t);
    const std::string name = bound == unbounded ? "exhaustive(unbounded)" : "exhaustive(" + std::to_string(bound) + ")";
    const std::string stale =
        sched.config().cpp_memory_model ? " and at most " + plural(stale_reads, "stale read", "stale reads") : std::string();
    const std::string redundant = " (plus " + plural(t.redundant, "run", "runs") + " the sleep sets found redundant)";
    const std::string programs = t.programs == 1 ? "the program" : "the " + std::to_string(t.programs) + " programs";
    const std::string beyond = t.max_branches == 0
                                   ? "; schedules with more preemptions were not explored"
                                   : "; programs with more branches, longer branches or more preemptions were not explored";
    if (t.complete == t.programs)
      return name + ", complete for " + shape_text(t, programs_name_) + ": all " +
             plural(t.schedules, "schedule", "schedules") + " with at most " + plural(bound, "preemption", "preemptions") +
             stale + (t.max_branches == 0 && t.programs == 1 ? "" : " of " + programs) + " explored" + redundant + beyond;
    const std::string at = stopped_for.empty()
                               ? "the search's budget of " + std::to_string(fiber::ExplorerConfig{}.max_schedules) + " runs"
                               : stopped_for;
    const std::string stopped = t.programs == 1
                                    ? "the search stopped at "
                                    : std::to_string(t.programs - t.complete) + " of " + programs + " stopped at ";
    const std::string fell_back = t.optimal == t.programs || bound != unbounded ? std::string()
                                  : t.programs == 1 ? "; searched with sleep sets (" + t.fell_back + ")"
                                                    : "; " + std::to_string(t.programs - t.optimal) + " of " + programs +
                                                          " searched with sleep sets (" + t.fell_back + ")";
    return name + ", incomplete for " + shape_text(t, programs_name_) + ": " + stopped + at + "; " +
           plural(t.schedules, "schedule", "schedules") + " explored" + redundant + runs_in_all(t) + fell_back;
  }
  // An incomplete search: how far it got, as an estimate of its runs in all (search_share.hpp).
  static std::string runs_in_all(const Totals& t) {
    if (!t.estimated || t.runs_in_all <= static_cast<double>(t.runs)) return {};
    return "; " + std::to_string(t.runs) + " runs of about " + estimated_count(t.runs_in_all) +
           " in all (estimated from the share of the search tree behind them)";
  }
  // A complete unbounded search: every execution, each class of equivalent schedules once where
  // the optimal reduction ran, and where it did not, why.
  std::string unbounded_coverage(const Totals& t) const {
    const std::string programs = t.programs == 1 ? "the program" : "the " + std::to_string(t.programs) + " programs";
    std::string text = "exhaustive(unbounded), complete for " + shape_text(t, programs_name_) + ": every execution of " +
                       programs + " explored, " + plural(t.schedules, "schedule", "schedules");
    if (t.optimal == t.programs && !weak_seen)
      text += ", one per class of schedules equal up to the order of independent steps";
    else if (t.optimal == t.programs)
      text += ", each class of schedules equal up to the order of independent steps and the stores the loads read";
    else
      text += " (" +
              (t.optimal == 0 ? std::string("sleep sets") : std::to_string(t.programs - t.optimal) + " with sleep sets") +
              ": " + t.fell_back + "; plus " + plural(t.redundant, "run", "runs") + " the sleep sets found redundant)";
    text += stale_text();
    const std::string fences = weak_seen ? " with the check's seq_cst fences placed in that order" : "";
    if (t.orders_left == t.programs)
      text += "; each schedule's history judged in every real-time order of the calls its execution allows" + fences;
    else if (t.orders_left > 0)  // the others' searches ran again running the orders (call_order_check.hpp)
      text += "; in " + std::to_string(t.orders_left) +
              " of the programs each schedule's history judged in every real-time order of the calls its execution "
              "allows" +
              fences + ", in the others each order run";
    return text + (t.max_branches == 0 ? "" : "; programs with more branches or longer branches were not explored");
  }
  // Under the C++ memory model, with orders weaker than seq_cst, what "every execution" took:
  // every store each load may read, or within the stale-read bound.
  std::string stale_text() const {
    if (!weak_seen) return {};
    if (stale_reads == unbounded) return "; each load read every store the C++ memory model lets it read";
    return "; within " + plural(stale_reads, "stale read", "stale reads") + " per schedule (a load reading an older store)";
  }
  // "programs of 2 branches × up to 3 calls" (each branch's calls; the prefix and suffix run alone).
  static std::string shape_text(const Totals& t, const std::string& what) {
    if (t.max_branches == 0) return what;  // a test body, or code run on the executor directly
    const std::string branches = t.min_branches == t.max_branches ? plural(t.max_branches, "branch", "branches")
                                                                  : std::to_string(t.min_branches) + " to " +
                                                                        std::to_string(t.max_branches) + " branches";
    return "programs of " + branches + " × up to " + plural(t.max_calls, "call", "calls");
  }
};

}  // namespace

std::unique_ptr<ScheduleStrategy> make_schedule_strategy(const Schedule& schedule, const fiber::Scheduler& scheduler) {
  switch (schedule.kind) {
    case Schedule::Kind::pct: return std::make_unique<PctStrategy>(schedule.depth);
    case Schedule::Kind::exhaustive:
      return std::make_unique<ExhaustiveStrategy>(scheduler, schedule.preemption_bound, schedule.stale_reads);
    default: return std::make_unique<RandomStrategy>();
  }
}

std::string schedule_name(const Schedule& schedule) {
  switch (schedule.kind) {
    case Schedule::Kind::pct:
      return "pct(" + std::to_string(std::max<std::size_t>(schedule.depth, 1)) + ")";  // what PctStrategy runs
    case Schedule::Kind::exhaustive:
      return schedule.preemption_bound == unbounded ? "exhaustive(unbounded)"
                                                    : "exhaustive(" + std::to_string(schedule.preemption_bound) + ")";
    default: return "random";
  }
}

}  // namespace duet::detail
