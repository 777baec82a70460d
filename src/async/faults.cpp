// Crash injection (duet/faults.hpp): fault points drawing from the case's choice stream, the
// crash listeners of a thread, and the per-case context the engine sets.
#include "duet/faults.hpp"

#include "duet/detail/fiber_hooks.hpp"
#include "duet/source.hpp"

namespace duet {
namespace detail {

namespace {
constinit thread_local Source* t_case_source = nullptr;
constinit thread_local FaultPlan* t_fault_plan = nullptr;
constinit thread_local std::uint64_t t_case_serial = 0;
}  // namespace

struct CrashListeners {
  static constinit thread_local crash_listener* head;
  static void add(crash_listener* l) noexcept {
    l->next_ = head;
    if (head) head->prev_ = l;
    head = l;
  }
  static void remove(crash_listener* l) noexcept {
    if (l->prev_) l->prev_->next_ = l->next_;
    else if (head == l) head = l->next_;
    if (l->next_) l->next_->prev_ = l->prev_;
    l->prev_ = l->next_ = nullptr;
  }
  static void fire(Source& src) {
    for (crash_listener* l = head; l; l = l->next_) l->on_crash(src);
  }
};
constinit thread_local crash_listener* CrashListeners::head = nullptr;

Source* case_source() noexcept { return t_case_source; }
std::uint64_t case_serial() noexcept { return t_case_serial; }

CaseScope::CaseScope(Source& src) noexcept : previous_(t_case_source), previous_time_(fiber::t_virtual_ns) {
  t_case_source = &src;
  ++t_case_serial;
  fiber::t_virtual_ns = 0;  // a case's virtual time is its own, from 0
}
CaseScope::~CaseScope() {
  t_case_source = previous_;
  fiber::t_virtual_ns = previous_time_;
}

FaultScope::FaultScope(FaultPlan& plan) noexcept : previous_(t_fault_plan) { t_fault_plan = &plan; }
FaultScope::~FaultScope() { t_fault_plan = previous_; }

void fire_crash_listeners(Source& src) { CrashListeners::fire(src); }

namespace {
std::string file_line(duet::source_location loc) {
  std::string file = loc.file_name();
  if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file.erase(0, slash + 1);
  return file + ":" + std::to_string(loc.line());
}

void maybe_crash(std::string_view name, std::string_view label, const std::uint64_t* number, duet::source_location loc) {
  FaultPlan* plan = t_fault_plan;
  if (plan == nullptr || plan->src == nullptr) return;
  ++plan->points;
  if (!plan->src->chance(1, plan->one_in)) return;
  {  // no string of this frame may outlive it: a crash in a fiber abandons the frame
    std::string where(name);
    if (!label.empty() || number) {
      where += ", ";
      where += label;
      if (number) {
        if (!label.empty()) where += ' ';
        where += std::to_string(*number);
      }
    }
    plan->where = std::move(where);
    plan->location = file_line(loc);
  }
  // The plan stays armed for nothing else in this operation: one crash ends it.
  t_fault_plan = nullptr;
  if (auto* rt = fiber::current()) fiber::crash(*rt, plan->where, loc);  // ends the run; duet::run throws
  throw crash(plan->where + " (" + plan->location + ")");
}
}  // namespace

}  // namespace detail

crash_listener::crash_listener() noexcept { detail::CrashListeners::add(this); }
crash_listener::crash_listener(const crash_listener&) noexcept { detail::CrashListeners::add(this); }
crash_listener::~crash_listener() { detail::CrashListeners::remove(this); }

void fault_point(std::string_view name, duet::source_location loc) { detail::maybe_crash(name, {}, nullptr, loc); }
void fault_point(std::string_view name, std::string_view label, std::uint64_t number, duet::source_location loc) {
  detail::maybe_crash(name, label, &number, loc);
}

}  // namespace duet
