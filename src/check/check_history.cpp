// check_history: picks the model, splits the history into independent parts when the model
// allows (P-compositionality), searches the parts in parallel, and stops every part as soon as
// one finds a violation.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <tuple>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "check/model.hpp"
#include "check/part_threads.hpp"
#include "duet/detail/search_turns.hpp"

namespace duet::history {

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const Model* m : detail::all_models()) names.emplace_back(m->name());
  return names;
}

namespace {

// Runs run(0) ... run(n-1) on threads (the caller's and kept ones: part_threads.hpp), at most 4
// a core (16 at least), each taking the next part not started; with turns, all but `cores` of
// them wait for their turn (duet/detail/search_turns.hpp): each part searches while it holds
// one, and passes it on every millisecond or so.
template <class Run>
void run_in_parallel(std::size_t n, Run& run, duet::detail::SearchTurns* turns) {
  std::atomic<std::size_t> next{0};
  const std::function<void()> work = [&] {
    for (std::size_t p; (p = next.fetch_add(1)) < n;) {
      const duet::detail::SearchTurn turn(turns);
      run(p);
    }
  };
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(n, std::max<std::size_t>(16, 4 * cores));
  detail::run_on_part_threads(threads - 1, work);
}

bool program_order_ties(const History& h) {
  std::vector<const Operation*> by_invoke;
  for (const Operation& op : h.ops) by_invoke.push_back(&op);
  std::stable_sort(by_invoke.begin(), by_invoke.end(),
                   [](const Operation* a, const Operation* b) { return a->invoke < b->invoke; });
  std::unordered_map<std::int64_t, std::uint64_t> last_response;
  for (const Operation* o : by_invoke) {
    const Operation& op = *o;
    auto it = last_response.find(op.process);
    if (it != last_response.end() && op.invoke <= it->second) return true;
    if (op.outcome != Outcome::info) last_response[op.process] = op.response;
  }
  return false;
}

// One linearization of the whole history from one per partition (locality says it exists).
// Give each operation of a partition's order a point in time: the latest of its invocation and
// the previous point, which a valid order keeps within the operation's interval (whatever comes
// before it was invoked before it returned). Every point lies in its operation's interval, so
// sorting all of them respects real time.
void merge_witnesses(const History& h, std::vector<detail::PartOutcome>& outcomes, CheckReport& report) {
  struct Placed {
    std::uint64_t point;
    std::size_t part, position;
  };
  std::vector<Placed> all;
  for (std::size_t p = 0; p < outcomes.size(); ++p) {
    std::uint64_t point = 0;
    const std::vector<std::size_t>& order = outcomes[p].search.order;
    for (std::size_t k = 0; k < order.size(); ++k) {
      point = std::max(point, h.ops[order[k]].invoke);
      all.push_back({point, p, k});
    }
  }
  std::sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.point, a.part, a.position) < std::tie(b.point, b.part, b.position);
  });
  for (const Placed& x : all) {
    report.order.push_back(outcomes[x.part].search.order[x.position]);
    if (x.position < outcomes[x.part].states.size()) report.states.push_back(outcomes[x.part].states[x.position]);
  }
}

std::string stop_reason(duet::detail::SearchStop stop, const CheckOptions& options) {
  switch (stop) {
    case duet::detail::SearchStop::time:
      if (options.timeout_seconds <= 0)
        return "the search ran out of time (its deadline passed)";  // CheckOptions::deadline alone
      return "the search ran out of time (" + std::to_string(options.timeout_seconds) + " s); give it more with --timeout";
    case duet::detail::SearchStop::memory:
      return "the search's memo reached its memory budget (" + std::to_string(options.max_memory_bytes >> 20) + " MiB)";
    case duet::detail::SearchStop::nodes: return "the search reached its step budget";
    case duet::detail::SearchStop::cancelled: return "the search was cancelled";
    case duet::detail::SearchStop::none: break;
  }
  return "the search stopped";
}

std::string explain_violation(const History& h, const CheckReport& r, std::size_t part_size) {
  std::string s = "not linearizable against " + r.model + ", assuming " + r.initial_state + ".\n";
  if (r.stuck && !r.partial_linearization) {
    s += "The operation that cannot be placed: #" + std::to_string(*r.stuck) + " " + describe(h.ops[*r.stuck]) + "\n";
    s += "(decided without a search: the operations below show why; no partial linearization).\n";
  } else if (r.stuck) {
    s += "The operation that cannot be placed: #" + std::to_string(*r.stuck) + " " + describe(h.ops[*r.stuck]) + "\n";
    s += "after the longest partial linearization found (" + std::to_string(r.order.size()) + " of " +
         std::to_string(part_size) + " operations" + (r.partitions > 1 ? " of its partition" : "") + "),\n";
    s += "where the state is " + r.stuck_state + ".\n";
  }
  if (!r.witness.empty() && r.witness_is_window) {
    // A failing window the history was shrunk to (duet/detail/history_window.hpp).
    s += r.witness.size() == 1 ? std::string("The failing window: this operation alone has no linearization either")
                               : "The failing window: these " + std::to_string(r.witness.size()) +
                                     " operations alone have no linearization either";
    if (!r.witness_start.empty()) {
      const char* them = r.witness.size() == 1 ? "it" : "them";
      s += ", starting from ";
      if (r.witness_start.size() == 1)
        s += std::string("the state the operations before ") + them + " leave, " + r.witness_start[0];
      else
        s += std::string("any state the operations before ") + them + " can leave (" +
             detail::start_states_list(r.witness_start) + ")";
    }
    s +=
        r.witness_open.empty()
            ? std::string(":\n")
            : " (open: running where the window is cut, they may have taken effect with the result they recorded, or not at all):\n";
  } else if (!r.witness.empty()) {
    s += "These " + std::to_string(r.witness.size()) + " operations alone have no linearization:\n";
  } else if (r.window_out_of_budget) {
    s += "No failing window: none smaller than the history failed within the window's budget (about the search's own\n"
         "cost); the longest partial linearization is the explanation.\n";
  }
  // A set's witness holds the adds of everything its reads returned: thousands, at times.
  constexpr std::size_t kShown = 40;
  for (std::size_t k = 0; k < r.witness.size() && k < kShown; ++k) {
    const std::size_t i = r.witness[k];
    const bool open = std::find(r.witness_open.begin(), r.witness_open.end(), i) != r.witness_open.end();
    s += "  #" + std::to_string(i) + " " + detail::cut(describe(h.ops[i])) + (open ? "  [open]" : "") + "\n";
  }
  if (r.witness.size() > kShown)
    s += "  ... and " + std::to_string(r.witness.size() - kShown) + " more (CheckReport::witness)\n";
  return s;
}

// The model the history is checked against (report.model: --model, else the history's own),
// or an error naming the known ones.
const Model& model_for(const History& h, const CheckOptions& options, const std::string& name) {
  // Where the file names its model (or would): the duet format's `;model` (or header) line.
  const std::string at = h.model_line > 0 ? h.source + ":" + std::to_string(h.model_line) : h.source;
  if (name.empty())
    throw std::invalid_argument(at + ": the history does not say which model it follows; pass one (--model)");
  const Model* model = detail::find_model(name, options.models);
  if (model != nullptr) return *model;
  std::string names;
  if (options.models != nullptr)
    for (const Model* m : options.models->all()) names += (names.empty() ? "" : ", ") + std::string(m->name());
  for (const std::string& n : model_names())
    if (options.models == nullptr || options.models->find(n) == nullptr) names += (names.empty() ? "" : ", ") + n;
  const std::string known = " (known: " + names + ")";
  if (!options.model.empty()) throw std::invalid_argument("unknown model '" + detail::cut(name) + "'" + known);
  // The history's own: say where it came from.
  throw std::invalid_argument(at + ": unknown model '" + detail::cut(name) + "'" +
                              (h.model_line > 0 ? " in the `;model` line" : "") + known);
}

// The initial state: --init, else the format's for the model it names, else the model's. Said
// in the report (report.initial_state), so that a wrong assumption shows.
std::optional<Value> initial_value(const History& h, const CheckOptions& options, const Model& model, CheckReport& report) {
  std::optional<Value> init = options.init;
  std::string init_source = "--init";
  if (!init && h.default_init && report.model == h.default_model) {
    init = h.default_init;
    init_source = h.format == Format::duet ? "the file's ;init line"
                                           : "the " + std::string(format_name(h.format)) + " format's default";
  }
  report.initial_state = model.initial_state(init);  // throws for an --init that does not fit
  report.initial_state += init_source == "--init" && options.init ? " (--init)"
                          : init                                  ? " (" + init_source + "; use --init to change)"
                                                                  : " (use --init to change)";
  return init;
}

// What the parts of one history share: one deadline for the whole file, however many parts
// share it, and one memory budget (the parts' searches add up what they hold); a violation in
// one part stops the others.
struct HistoryBudget {
  std::atomic<bool> violation_found{false};
  std::atomic<std::size_t> memory_in_use{0};
  detail::SearchBudget budget;

  HistoryBudget(const CheckOptions& options, std::chrono::steady_clock::time_point start, std::size_t parts) {
    if (options.timeout_seconds > 0 && options.timeout_seconds < 1e8)
      budget.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(options.timeout_seconds));
    budget.deadline = std::min(budget.deadline, options.deadline);
    budget.max_memo_bytes = options.max_memory_bytes;
    budget.cancel = options.cancel;
    budget.max_nodes = std::numeric_limits<std::uint64_t>::max();
    if (parts > 1) {
      budget.group_cancel = &violation_found;
      budget.shared_memory = &memory_in_use;
    }
  }
};

// Each part checked (in parallel when there are several); the first error of a part is the
// error of the whole check.
std::vector<detail::PartOutcome> check_parts(const History& h, const Model& model,
                                             const std::vector<std::vector<std::size_t>>& parts, const CheckOptions& options,
                                             const std::optional<Value>& init, HistoryBudget& shared) {
  std::vector<detail::PartOutcome> outcomes(parts.size());
  std::vector<std::exception_ptr> errors(parts.size());
  auto run = [&](std::size_t p) {
    try {
      outcomes[p] = model.check(
          h, parts[p], PartCheck{shared.budget, options.want_states, init, options.failing_window, &shared.violation_found});
      if (outcomes[p].search.verdict == detail::SearchVerdict::violation) shared.violation_found.store(true);
    } catch (...) {
      errors[p] = std::current_exception();
      shared.violation_found.store(true);  // stop the others: the history cannot be checked
    }
  };
  // More parts than cores take turns on them: every part progresses at the same pace, and the
  // first violation comes at about the cheapest failing part's cost times the parts over the
  // cores (a history where every key fails, some after minutes of search, decides in ms).
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  duet::detail::SearchTurns turns(cores);
  if (parts.size() > cores) shared.budget.turns = &turns;
  if (parts.size() == 1) run(0);
  else run_in_parallel(parts.size(), run, parts.size() > cores ? &turns : nullptr);
  shared.budget.turns = nullptr;
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return outcomes;
}

// The report of the part that failed: its order, states, diagnosis, and witness or window.
void report_violation(const History& h, const std::vector<std::size_t>& part, std::size_t parts, detail::PartOutcome& o,
                      CheckReport& report) {
  report.verdict = Verdict::not_linearizable;
  report.order = std::move(o.search.order);
  report.states = std::move(o.states);
  report.stuck = o.stuck;
  report.stuck_state = std::move(o.stuck_state);
  report.witness = std::move(o.search.witness);
  report.partial_linearization = o.partial_known;
  report.nodes += o.window_nodes;
  if (report.witness.empty() && !o.window.empty()) {
    report.witness = std::move(o.window);
    report.witness_open = std::move(o.window_open);
    report.witness_start = std::move(o.window_start);
    report.witness_is_window = true;
  }
  report.window_out_of_budget = o.window_out_of_budget;
  if (parts > 1) report.partition_ops = part;
  report.explanation = explain_violation(h, report, part.size());
}

// The parts' outcomes as one verdict: a violation (of the parts that failed, the one with a
// witness or window, the first to fail, else the first), unknown (with why the search
// stopped), or linearizable (one order merged from the parts').
void report_outcomes(const History& h, const std::vector<std::vector<std::size_t>>& parts,
                     std::vector<detail::PartOutcome>& outcomes, const CheckOptions& options, CheckReport& report) {
  std::optional<std::size_t> failed;
  bool unknown = false;
  duet::detail::SearchStop stop = duet::detail::SearchStop::none;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const detail::PartOutcome& o = outcomes[p];
    report.nodes += o.search.nodes;
    report.peak_memo_bytes += o.search.memo_bytes;
    if (o.search.verdict == detail::SearchVerdict::violation &&
        (!failed || (outcomes[*failed].search.witness.empty() && outcomes[*failed].window.empty() &&
                     (!o.search.witness.empty() || !o.window.empty()))))
      failed = p;
    if (o.search.verdict == detail::SearchVerdict::unknown) {
      unknown = true;  // out of budget, or stopped by the caller or by a sibling's violation
      if (stop == duet::detail::SearchStop::none || o.search.stop != duet::detail::SearchStop::cancelled)
        stop = o.search.stop;
    }
  }
  if (failed) {
    report_violation(h, parts[*failed], parts.size(), outcomes[*failed], report);
  } else if (unknown) {
    report.verdict = Verdict::unknown;
    report.explanation = stop_reason(stop, options);
  } else {
    report.verdict = Verdict::linearizable;
    merge_witnesses(h, outcomes, report);
  }
}

}  // namespace

CheckReport check_history(const History& h, const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CheckReport report;
  report.model = options.model.empty() ? h.default_model : options.model;
  const Model& model = model_for(h, options, report.model);
  const std::optional<Value> init = initial_value(h, options, model, report);
  // Splitting is sound when real time alone orders each process's operations. Where one of
  // them is invoked before (or at the very time) its predecessor returned, program order adds
  // an edge the parts cannot see: keep the history whole.
  const bool split = options.partition && !program_order_ties(h);
  const std::vector<std::vector<std::size_t>> parts = split ? model.partition(h) : detail::single_part(h);
  report.partitions = parts.size();
  HistoryBudget shared(options, start, parts.size());
  std::vector<detail::PartOutcome> outcomes = check_parts(h, model, parts, options, init, shared);
  report_outcomes(h, parts, outcomes, options, report);
  report.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace duet::history
