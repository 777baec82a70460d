// Names and text for fiber runs: trace lines and outcome descriptions.
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
  }
  return "?";
}

std::string location(std::source_location loc) {
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

std::string value_text(const Value& v, std::vector<std::uint64_t>& pointers) {
  char buf[32];
  switch (v.type) {
    case ValueType::none: return "";
    case ValueType::boolean: return v.bits ? "true" : "false";
    case ValueType::signed_integer: return std::to_string(static_cast<std::int64_t>(v.bits));
    case ValueType::unsigned_integer: return std::to_string(v.bits);
    case ValueType::floating:
      std::snprintf(buf, sizeof buf, "%g", std::bit_cast<double>(v.bits));
      return buf;
    case ValueType::pointer: {
      if (v.bits == 0) return "nullptr";
      std::size_t i = 0;
      while (i < pointers.size() && pointers[i] != v.bits) ++i;
      if (i == pointers.size()) pointers.push_back(v.bits);
      std::string name = "p";  // appended, not "p" + ...: GCC 12's -Wrestrict misfires on that
      name += std::to_string(i + 1);
      return name;
    }
    case ValueType::bits:
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v.bits));
      return buf;
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

}  // namespace

std::string format_event(const TraceEvent& e, std::vector<std::uint64_t>& pointers) {
  const std::string r = value_text(e.read, pointers), w = value_text(e.written, pointers);
  std::string value;
  if (e.event.op == Op::notify_one || e.event.op == Op::notify_all)
    value = "woke " + w;
  else if (!r.empty() && !w.empty())
    value = r + " -> " + w;
  else if (!r.empty())
    value = e.event.op == Op::wake ? r : "= " + r;
  else if (!w.empty())
    value = ":= " + w;
  const std::string op = std::string(op_name(e.event.op)) + order_suffix(e.event.order);
  char line[256];
  std::snprintf(line, sizeof line, "%5u  f%-2u %-26s %-22s %-14s %s", e.step, e.fiber, op.c_str(), object_name(e.event).c_str(),
                value.c_str(), e.event.loc.line() ? location(e.event.loc).c_str() : "");
  std::string s = line;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::vector<std::string> format_trace(std::span<const TraceEvent> trace) {
  std::vector<std::uint64_t> pointers;
  std::vector<std::string> lines;
  lines.reserve(trace.size());
  for (const TraceEvent& e : trace) lines.push_back(format_event(e, pointers));
  return lines;
}

std::string describe(const RunResult& r, std::span<const TraceEvent> trace, std::size_t tail) {
  std::string s = outcome_name(r.outcome);
  auto access = [](const Access& a) {
    return "fiber " + std::to_string(a.fiber) + " " + op_name(a.op) + " at " + location(a.loc) + " (step " +
           std::to_string(a.step) + ")";
  };
  switch (r.outcome) {
    case Outcome::completed:
      s += " in " + std::to_string(r.steps) + " steps";
      break;
    case Outcome::deadlock:
      s += ": no fiber can proceed";
      for (const BlockedFiber& b : r.blocked)
        s += "\n  fiber " + std::to_string(b.fiber) + " blocked in " + op_name(b.op.op) + " " + object_name(b.op) + " at " +
             location(b.op.loc);
      break;
    case Outcome::livelock: {
      s += ": " + std::to_string(r.steps) + " steps without finishing; the last ones:";
      std::vector<std::uint64_t> pointers;
      const std::size_t from = trace.size() > tail ? trace.size() - tail : 0;
      for (std::size_t i = from; i < trace.size(); ++i) {
        s += '\n';
        s += format_event(trace[i], pointers);
      }
      break;
    }
    case Outcome::data_race:
      s += " on var#" + std::to_string(r.race.object) + ": " + access(r.race.first) + " and " + access(r.race.second) +
           ", not ordered by happens-before";
      break;
    case Outcome::misuse:
      s += ": " + r.misuse;
      break;
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
  if (r.weak_order_used)
    s += "\n  note: a memory order weaker than seq_cst was used (first at " + location(r.weak_order_loc) +
         "); fiber runs execute every atomic operation as seq_cst";
  return s;
}

}  // namespace duet::detail::fiber
