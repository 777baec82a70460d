// check_history: picks the model, splits the history into independent parts when the model
// allows (P-compositionality), searches the parts in parallel on oneTBB, and stops every part
// as soon as one finds a violation.
#include <tbb/task_group.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "model.hpp"

namespace duet::history {

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const detail::Model* m : detail::all_models()) names.emplace_back(m->name());
  return names;
}

namespace {

#if defined(__SANITIZE_THREAD__)
#define DUET_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DUET_THREAD_SANITIZER 1
#endif
#endif

// Runs run(0) ... run(n-1) in parallel on oneTBB. Under ThreadSanitizer, on plain threads
// instead: Debian's libtbb is not instrumented, so the sanitizer cannot see its hand-over of a
// task to a worker and would report every task as racing with its creator; on threads it
// checks the same code (the parts, their results, the cancel flags) for real races.
template <class Run>
void run_in_parallel(std::size_t n, Run& run) {
#if defined(DUET_THREAD_SANITIZER)
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  const std::size_t count = std::min<std::size_t>(n, std::max(2u, std::thread::hardware_concurrency()));
  for (std::size_t w = 0; w < count; ++w)
    workers.emplace_back([&] {
      for (std::size_t p; (p = next.fetch_add(1)) < n;) run(p);
    });
  for (std::thread& t : workers) t.join();
#else
  tbb::task_group group;
  for (std::size_t p = 0; p < n; ++p) group.run([&run, p] { run(p); });
  group.wait();
#endif
}

bool program_order_ties(const History& h) {
  std::unordered_map<std::int64_t, std::uint64_t> last_response;  // ops are in invocation order
  for (const Operation& op : h.ops) {
    auto it = last_response.find(op.process);
    if (it != last_response.end() && op.invoke <= it->second) return true;
    if (op.outcome != Outcome::info) last_response[op.process] = op.response;
  }
  return false;
}

std::string stop_reason(duet::detail::SearchStop stop, const CheckOptions& options) {
  switch (stop) {
    case duet::detail::SearchStop::time:
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
  std::string s = "not linearizable against " + r.model + ".\n";
  if (r.stuck) {
    s += "The operation that cannot be placed: #" + std::to_string(*r.stuck) + " " + describe(h.ops[*r.stuck]) + "\n";
    s += "after the longest partial linearization found (" + std::to_string(r.order.size()) + " of " +
         std::to_string(part_size) + " operations" + (r.partitions > 1 ? " of its partition" : "") + "),\n";
    s += "where the state is " + r.stuck_state + ".\n";
  }
  return s;
}

}  // namespace

CheckReport check_history(const History& h, const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CheckReport report;
  report.model = options.model.empty() ? h.default_model : options.model;
  if (report.model.empty())
    throw std::invalid_argument(h.source + ": the history does not say which model it follows; pass one (--model)");
  const detail::Model* model = detail::find_model(report.model);
  if (model == nullptr) {
    std::string names;
    for (const std::string& n : model_names()) names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown model '" + report.model + "' (known: " + names + ")");
  }

  // Splitting is sound when real time alone orders each process's operations. Where one of
  // them is invoked before (or at the very time) its predecessor returned, program order adds
  // an edge the parts cannot see: keep the history whole.
  const bool split = options.partition && !program_order_ties(h);
  const std::vector<std::vector<std::size_t>> parts = split ? model->partition(h) : detail::single_part(h);
  report.partitions = parts.size();

  std::atomic<bool> violation_found{false};
  detail::SearchBudget budget;
  // One deadline for the whole file, however many parts share it.
  if (options.timeout_seconds > 0 && options.timeout_seconds < 1e8)
    budget.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(options.timeout_seconds));
  budget.max_memo_bytes = options.max_memory_bytes;
  budget.cancel = options.cancel;
  budget.max_nodes = std::numeric_limits<std::uint64_t>::max();
  if (parts.size() > 1) budget.group_cancel = &violation_found;

  std::vector<detail::PartOutcome> outcomes(parts.size());
  std::vector<std::exception_ptr> errors(parts.size());
  auto run = [&](std::size_t p) {
    try {
      outcomes[p] = model->check(h, parts[p], budget, options.want_states);
      if (outcomes[p].search.verdict == detail::SearchVerdict::violation) violation_found.store(true);
    } catch (...) {
      errors[p] = std::current_exception();
      violation_found.store(true);  // stop the others: the history cannot be checked
    }
  };
  if (parts.size() == 1) run(0);
  else run_in_parallel(parts.size(), run);
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);

  std::optional<std::size_t> failed;
  bool unknown = false;
  duet::detail::SearchStop stop = duet::detail::SearchStop::none;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const detail::PartOutcome& o = outcomes[p];
    report.nodes += o.search.nodes;
    report.peak_memo_bytes += o.search.memo_bytes;
    if (o.search.verdict == detail::SearchVerdict::violation && !failed) failed = p;
    if (o.search.verdict == detail::SearchVerdict::unknown) {
      unknown = true;  // out of budget, or stopped by the caller or by a sibling's violation
      if (stop == duet::detail::SearchStop::none || o.search.stop != duet::detail::SearchStop::cancelled) stop = o.search.stop;
    }
  }
  if (failed) {
    detail::PartOutcome& o = outcomes[*failed];
    report.verdict = Verdict::not_linearizable;
    report.order = std::move(o.search.order);
    report.states = std::move(o.states);
    report.stuck = o.stuck;
    report.stuck_state = std::move(o.stuck_state);
    report.explanation = explain_violation(h, report, parts[*failed].size());
  } else if (unknown) {
    report.verdict = Verdict::unknown;
    report.explanation = stop_reason(stop, options);
  } else {
    report.verdict = Verdict::linearizable;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      detail::PartOutcome& o = outcomes[p];
      report.order.insert(report.order.end(), o.search.order.begin(), o.search.order.end());
      report.states.insert(report.states.end(), o.states.begin(), o.states.end());
      if (parts.size() > 1) report.part_sizes.push_back(o.search.order.size());
    }
  }
  report.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace duet::history
