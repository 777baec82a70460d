// Names and text for fiber runs: trace lines and outcome descriptions.
#include <algorithm>
#include <cstdio>
#include <string>

#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::start: return "start";
    case Op::exit: return "exit";
    case Op::exit_exception: return "exit (exception)";
    case Op::load: return "load";
    case Op::store: return "store";
    case Op::rmw: return "rmw";
    case Op::cas: return "cas";
    case Op::cas_fail: return "cas (failed)";
    case Op::read: return "read";
    case Op::write: return "write";
    case Op::destroy: return "destroy";
    case Op::lock: return "lock";
    case Op::try_lock: return "try_lock";
    case Op::try_lock_fail: return "try_lock (failed)";
    case Op::unlock: return "unlock";
    case Op::lock_shared: return "lock_shared";
    case Op::try_lock_shared: return "try_lock_shared";
    case Op::try_lock_shared_fail: return "try_lock_shared (failed)";
    case Op::unlock_shared: return "unlock_shared";
    case Op::wait: return "wait";
    case Op::block: return "block";
    case Op::wake: return "wake";
    case Op::notify_one: return "notify_one";
    case Op::notify_all: return "notify_all";
    case Op::yield: return "yield";
    case Op::spawn: return "spawn";
    case Op::await: return "await";
    case Op::fulfill: return "set";
    case Op::send: return "send";
    case Op::receive: return "receive";
    case Op::close: return "close";
    case Op::sleep: return "sleep";
    case Op::crash: return "CRASH";
    case Op::pause: return "switch";
    case Op::fence: return "fence";
  }
  return "?";
}

const char* kind_name(ObjectKind kind) noexcept {
  switch (kind) {
    case ObjectKind::none: return "";
    case ObjectKind::atomic: return "atomic";
    case ObjectKind::var: return "var";
    case ObjectKind::mutex: return "mutex";
    case ObjectKind::recursive_mutex: return "recursive_mutex";
    case ObjectKind::shared_mutex: return "shared_mutex";
    case ObjectKind::condition_variable: return "condition_variable";
    case ObjectKind::future: return "future";
    case ObjectKind::channel: return "channel";
    case ObjectKind::task: return "task";
    case ObjectKind::library: return "library";
    case ObjectKind::descriptor: return "descriptors";
  }
  return "?";
}

const char* outcome_name(Outcome o) noexcept {
  switch (o) {
    case Outcome::completed: return "completed";
    case Outcome::deadlock: return "deadlock";
    case Outcome::livelock: return "livelock or spin loop";
    case Outcome::data_race: return "data race";
    case Outcome::misuse: return "misuse";
    case Outcome::crashed: return "crash";
    case Outcome::limit: return "duet's limit";
    case Outcome::progress: return "progress guarantee broken";
  }
  return "?";
}

std::string location(duet::source_location loc) {
  std::string file = loc.file_name();
  if (file.empty()) return "(no location)";
  if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file.erase(0, slash + 1);
  return file + ":" + std::to_string(loc.line());
}

namespace {

std::string object_name(const Event& e) {
  if (e.object == kNoObject) return "";
  return std::string(kind_name(e.kind)) + "#" + std::to_string(e.object);
}

}  // namespace

std::string duration_text(std::uint64_t ns) {
  char buf[32];
  if (ns % 1'000'000'000 == 0) std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(ns / 1'000'000'000));
  else if (ns % 1'000'000 == 0) std::snprintf(buf, sizeof buf, "%llums", static_cast<unsigned long long>(ns / 1'000'000));
  else if (ns % 1'000 == 0) std::snprintf(buf, sizeof buf, "%lluus", static_cast<unsigned long long>(ns / 1'000));
  else std::snprintf(buf, sizeof buf, "%lluns", static_cast<unsigned long long>(ns));
  return buf;
}

namespace {

std::string value_text(const Value& v, std::vector<std::uint64_t>& pointers) {
  char buf[32];
  switch (v.type) {
    case ValueType::none: return "";
    case ValueType::boolean: return v.bits ? "true" : "false";
    case ValueType::signed_integer: return std::to_string(static_cast<std::int64_t>(v.bits));
    case ValueType::unsigned_integer: return std::to_string(v.bits);
    case ValueType::floating: std::snprintf(buf, sizeof buf, "%g", std::bit_cast<double>(v.bits)); return buf;
    case ValueType::pointer: {
      if (v.bits == 0) return "nullptr";
      std::size_t i = 0;
      while (i < pointers.size() && pointers[i] != v.bits) ++i;
      if (i == pointers.size()) pointers.push_back(v.bits);
      std::string name = "p";  // appended, not "p" + ...: GCC 12's -Wrestrict misfires on that
      name += std::to_string(i + 1);
      return name;
    }
    case ValueType::bits: std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v.bits)); return buf;
    case ValueType::duration: return duration_text(v.bits);
    case ValueType::fiber: {
      std::string name = "f";  // appended, not "f" + ...: GCC 12's -Wrestrict misfires on that
      name += std::to_string(v.bits);
      return name;
    }
    case ValueType::wake:
      switch (static_cast<WakeReason>(v.bits)) {
        case WakeReason::notified: return "notified";
        case WakeReason::spurious: return "spurious";
        case WakeReason::timeout: return "timeout";
      }
      return "?";
  }
  return "?";
}

const char* order_suffix(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return "(relaxed)";
    case std::memory_order_consume: return "(consume)";
    case std::memory_order_acquire: return "(acquire)";
    case std::memory_order_release: return "(release)";
    case std::memory_order_acq_rel: return "(acq_rel)";
    case std::memory_order_seq_cst: return "";
  }
  return "";
}

// One event's parts, shared by the line and the column layouts so both print (and number
// pointers) alike.
struct EventText {
  std::string op, object, value, location;
};

EventText event_text(const TraceEvent& e, std::vector<std::uint64_t>& pointers) {
  const std::string r = value_text(e.read, pointers), w = value_text(e.written, pointers);
  EventText t;
  if (e.event.op == Op::notify_one || e.event.op == Op::notify_all) t.value = "woke " + w;
  else if (!r.empty() && !w.empty()) t.value = r + " -> " + w;
  else if (!r.empty()) t.value = e.event.op == Op::wake ? r : "= " + r;
  else if (!w.empty()) t.value = ":= " + w;
  t.op = std::string(op_name(e.event.op)) + order_suffix(e.event.order);
  if (e.stale > 0) t.value += " (stale)";
  t.object = object_name(e.event);
  if (e.event.loc.line()) t.location = location(e.event.loc);
  return t;
}

void trim_right(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

}  // namespace

std::string event_phrase(const TraceEvent& e) {
  std::vector<std::uint64_t> pointers;
  const EventText t = event_text(e, pointers);
  std::string s = t.op;
  for (const std::string* part : {&t.object, &t.value, &t.location})
    if (!part->empty()) s += " " + *part;
  return s;
}

std::string format_event(const TraceEvent& e, std::vector<std::uint64_t>& pointers) {
  const EventText t = event_text(e, pointers);
  char line[256];
  std::snprintf(line, sizeof line, "%5u  f%-2u %-26s %-22s %-14s %s", e.step, e.fiber, t.op.c_str(), t.object.c_str(),
                t.value.c_str(), t.location.c_str());
  std::string s = line;
  trim_right(s);
  return s;
}

namespace {

// What a stale load read and what it did not see, and why the model allowed it.
std::string stale_note(const TraceEvent& e, std::span<const TraceEvent> trace, std::vector<std::uint64_t>& pointers) {
  std::string s = "stale read: ";
  if (e.read_step == kNoStep || e.read_step >= trace.size()) s += "read the value from before the run";
  else s += "read the store of step " + std::to_string(e.read_step);
  s += ", not ";
  if (e.unseen_step < trace.size()) {
    const TraceEvent& w = trace[e.unseen_step];
    const EventText t = event_text(w, pointers);
    s += "step " + std::to_string(w.step) + "'s (f" + std::to_string(w.fiber) + " " + t.op + " " + t.value;
    if (!t.location.empty()) s += " at " + t.location;
    s += ")";
  } else {
    s += "a newer store";
  }
  if (e.stale > 1) s += " nor " + std::to_string(e.stale - 1) + " newer";
  const char* load = e.event.order == std::memory_order_relaxed   ? "this relaxed load"
                     : e.event.order == std::memory_order_seq_cst ? "this seq_cst load (the newer store is not seq_cst)"
                                                                  : "this acquire load";
  return s + ": no happens-before orders the newer store before " + load;
}

}  // namespace

std::vector<std::string> stale_read_notes(std::span<const TraceEvent> trace) {
  std::vector<std::uint64_t> pointers;
  std::vector<std::string> notes;
  for (const TraceEvent& e : trace) {
    (void)event_text(e, pointers);  // number pointers as the trace does
    if (e.stale > 0) notes.push_back("step " + std::to_string(e.step) + ": " + stale_note(e, trace, pointers));
  }
  return notes;
}

std::vector<std::string> format_trace(std::span<const TraceEvent> trace) {
  std::vector<std::uint64_t> pointers;
  std::vector<std::string> lines;
  lines.reserve(trace.size());
  for (const TraceEvent& e : trace) {
    lines.push_back(format_event(e, pointers));
    if (e.stale > 0) lines.push_back("       ^ " + stale_note(e, trace, pointers));
  }
  return lines;
}

std::vector<InterleavingStep> interleaving_steps(std::span<const TraceEvent> trace) {
  std::vector<std::uint64_t> pointers;
  std::vector<InterleavingStep> steps;
  steps.reserve(trace.size());
  for (const TraceEvent& e : trace) {
    EventText t = event_text(e, pointers);
    steps.push_back({e.step, e.fiber, std::move(t.op), std::move(t.object), std::move(t.value), std::move(t.location),
                     e.stale > 0 ? stale_note(e, trace, pointers) : std::string()});
  }
  return steps;
}

std::vector<std::string> format_trace_columns(std::span<const TraceEvent> trace, std::size_t fibers, std::size_t max_width,
                                              std::uint32_t main_fiber) {
  // Cells in trace order, so pointers are numbered as format_trace numbers them.
  std::vector<std::uint64_t> pointers;
  std::vector<std::string> cells;
  cells.reserve(trace.size());
  for (const TraceEvent& e : trace) {
    const EventText t = event_text(e, pointers);
    std::string cell = t.op;
    for (const std::string* part : {&t.object, &t.value, &t.location})
      if (!part->empty()) cell += " " + *part;
    cells.push_back(std::move(cell));
    fibers = std::max<std::size_t>(fibers, e.fiber + 1);  // a short count must not drop events
  }
  const std::string step_head = "step";
  std::size_t step_width = step_head.size();
  if (!trace.empty()) step_width = std::max(step_width, std::to_string(trace.back().step).size());
  auto head = [main_fiber](std::size_t f) { return f == main_fiber ? std::string("main") : "fiber " + std::to_string(f); };
  std::vector<std::size_t> widths(fibers);
  for (std::size_t f = 0; f < fibers; ++f) widths[f] = head(f).size();
  for (std::size_t i = 0; i < trace.size(); ++i) widths[trace[i].fiber] = std::max(widths[trace[i].fiber], cells[i].size());
  // The widest row is as wide as all the columns: a blank last cell is trimmed, never wider.
  std::size_t width = step_width;
  for (const std::size_t w : widths) width += 3 + w;
  if (width > max_width) return {};

  // Step numbers right-aligned, each cell padded to its column; a blank last cell is trimmed.
  auto row = [&](const std::string& step, auto&& cell_of) {
    std::string s(step_width - step.size(), ' ');
    s += step;
    for (std::size_t f = 0; f < fibers; ++f) {
      const std::string cell = cell_of(f);
      s += " | " + cell;
      s.append(widths[f] - cell.size(), ' ');
    }
    trim_right(s);
    return s;
  };
  std::vector<std::string> lines;
  lines.reserve(trace.size() + 1);
  lines.push_back(row(step_head, head));
  for (std::size_t i = 0; i < trace.size(); ++i)
    lines.push_back(
        row(std::to_string(trace[i].step), [&](std::size_t f) { return f == trace[i].fiber ? cells[i] : std::string(); }));
  for (std::string& note : stale_read_notes(trace)) lines.push_back(std::move(note));
  return lines;
}

namespace {

bool synchronises(Op op) {
  switch (op) {
    case Op::start:
    case Op::exit:
    case Op::exit_exception:
    case Op::read:
    case Op::write:
    case Op::destroy:
    case Op::block:
    case Op::wake:
    case Op::yield:
    case Op::pause: return false;
    default: return true;
  }
}

// For a race on plain memory: the synchronisation that would have ordered the two accesses and
// did not. The first fiber's next synchronising operation after its access (the release the
// second did not acquire), and the second's last one before its own.
// Under the C++ memory model a relaxed operation orders nothing: said next to one, since that is
// usually why the two accesses are unordered.
std::string relaxed_hint(const TraceEvent& e, bool memory_model) {
  return memory_model && e.event.kind == ObjectKind::atomic && e.event.order == std::memory_order_relaxed
             ? "\n  (relaxed: under the C++ memory model it synchronises with nothing)"
             : "";
}

std::string race_context(const DataRace& race, std::span<const TraceEvent> trace, bool memory_model) {
  std::vector<std::uint64_t> pointers;
  std::string s;
  for (const TraceEvent& e : trace)
    if (e.fiber == race.first.fiber && e.step >= race.first.step && synchronises(e.event.op)) {
      s += "\n  fiber " + std::to_string(e.fiber) + "'s next synchronisation after its access:\n  " +
           format_event(e, pointers);
      s += relaxed_hint(e, memory_model);
      break;
    }
  for (auto it = trace.rbegin(); it != trace.rend(); ++it)
    if (it->fiber == race.second.fiber && it->step < race.second.step && synchronises(it->event.op)) {
      s += "\n  fiber " + std::to_string(it->fiber) + "'s last synchronisation before its access:\n  " +
           format_event(*it, pointers);
      s += relaxed_hint(*it, memory_model);
      break;
    }
  return s;
}

}  // namespace

namespace {
// "fiber 1"; the trial's own fiber says what it runs.
std::string fiber_name(const RunResult& r, std::uint32_t fiber) {
  if (fiber == r.trial_fiber)
    return "main (fiber " + std::to_string(fiber) + ": the subject's construction, prefix, suffix and destruction)";
  return "fiber " + std::to_string(fiber);
}
}  // namespace

std::string describe(const RunResult& r, std::span<const TraceEvent> trace, std::size_t tail) {
  std::string s = outcome_name(r.outcome);
  // A plain access is no step of its own: it came between the fiber's steps, before step
  // `a.step` of the trace (the next event recorded).
  const bool plain = r.outcome == Outcome::data_race && r.race.object == kNoObject;
  auto access = [plain](const Access& a) {
    const std::string when = !plain        ? "step " + std::to_string(a.step)
                             : a.step == 0 ? "before step 0"
                                           : "after step " + std::to_string(a.step - 1);
    return "fiber " + std::to_string(a.fiber) + " " + op_name(a.op) + " at " + location(a.loc) + " (" + when + ")";
  };
  switch (r.outcome) {
    case Outcome::completed: s += " in " + std::to_string(r.steps) + " steps"; break;
    case Outcome::deadlock:
      s += ": no fiber can proceed";
      for (const BlockedFiber& b : r.blocked)
        s += "\n  " + fiber_name(r, b.fiber) + " blocked in " + op_name(b.op.op) + " " + object_name(b.op) + " at " +
             location(b.op.loc);
      break;
    case Outcome::livelock: {
      // The fair phase (fair_phase.cpp) rules out a fiber the strategy starved.
      s += ": " + std::to_string(r.steps) + " steps without finishing, the last " + std::to_string(r.fair_steps) +
           " switch points on a fair schedule (each runnable fiber in turn), so no fiber was merely starved; the "
           "last ones:";
      std::vector<std::uint64_t> pointers;
      const std::size_t from = trace.size() > tail ? trace.size() - tail : 0;
      for (std::size_t i = from; i < trace.size(); ++i) {
        s += '\n';
        s += format_event(trace[i], pointers);
      }
      break;
    }
    case Outcome::data_race:
      s += r.race.object == kNoObject ? " on " + std::to_string(r.race.size) + " bytes of plain memory"
                                      : " on var#" + std::to_string(r.race.object);
      s += ": " + access(r.race.first) + " and " + access(r.race.second) + ", not ordered by happens-before";
      if (r.race.object == kNoObject) s += race_context(r.race, trace, r.cpp_memory_model);
      break;
    case Outcome::misuse: s += ": " + r.misuse; break;
    case Outcome::crashed: s += " at " + r.crash + " (" + location(r.crash_loc) + ")"; break;
    case Outcome::limit: s += ", not a failure of the code under test: " + r.limit; break;
    case Outcome::progress: s += ": " + r.progress; break;
  }
  for (std::size_t i = 0; i < r.fibers.size(); ++i) {
    if (!r.fibers[i].error) continue;
    s += "\n  fiber " + std::to_string(i) + " ended by an exception";
    try {
      std::rethrow_exception(r.fibers[i].error);
    } catch (const std::exception& e) {
      s += std::string(": ") + e.what();
    } catch (...) {
    }
  }
  if (r.weak_order_used && !r.cpp_memory_model)
    s += "\n  note: a memory order weaker than seq_cst was used (first at " + location(r.weak_order_loc) +
         "); this run executed every atomic operation as seq_cst (FiberOptions::memory_model = cpp explores "
         "what the order allows)";
  return s;
}

}  // namespace duet::detail::fiber
