// Crash injection: duet::fault_point marks where the subject may crash (a block device's write,
// a commit). In a check whose spec says how to recover (a `recover` function), every fault point
// is a draw from the choice stream: most pass, one in `crash_one_in` crashes the subject there,
// so crashes shrink and replay with the scenario. Elsewhere a fault point does nothing.
//
//   duet::task<void> Disk::write(std::uint64_t sector, std::span<const std::byte> data) {
//     for (std::size_t i = 0; i < n; ++i) {
//       duet::fault_point("disk.write", "sector", sector + i);   // may crash before this sector
//       ...
//     }
//   }
//
//   struct KvSpec {
//     ...
//     static constexpr std::uint64_t crash_one_in = 20;          // optional (default 25)
//     static void recover(Sut& s) { s.store = KvStore::mount(s.disk); }   // from what persisted
//   };
//
// After a crash, the operation it interrupted may or may not have taken effect: the model
// continues with both possibilities, and every later result must be explained by one of them.
#pragma once

#include <cstdint>
#include <exception>
#include "duet/detail/source_location.hpp"
#include <string>
#include <string_view>

#include "duet/detail/engine_signal.hpp"

namespace duet {

class Source;
namespace detail {
struct CrashListeners;
}

/// Thrown out of the operation a fault point crashed (by duet::run for async code, where the
/// run's fibers stop where they are; directly by fault_point in synchronous code, where the
/// stack unwinds). A spec's run() lets it through: the engine recovers the subject.
struct crash : std::exception, detail::EngineSignal {
  std::string where;  // "disk.write, sector 3 (block_device.hpp:98)"
  explicit crash(std::string w) : where(std::move(w)), text_("duet::crash at " + where) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

/// A place where the subject may crash. No effect outside a crash-injecting check. The name
/// (and the label and number, "sector 3") say where in the report: "crash at disk.write, sector 3".
void fault_point(std::string_view name, duet::source_location loc = duet::source_location::current());
void fault_point(std::string_view name, std::string_view label, std::uint64_t number,
                 duet::source_location loc = duet::source_location::current());

/// Something that loses state at a crash (a write-back cache): on_crash runs after every crash,
/// before the spec's recover, with the case's choice stream to draw what survives. Listeners
/// register themselves on construction on their thread, and unregister on destruction.
class crash_listener {
 public:
  crash_listener() noexcept;
  crash_listener(const crash_listener&) noexcept;
  // Assignment copies nothing: a listener stays registered under its own address, so assigning
  // one to itself is as harmless as assigning another.
  crash_listener& operator=(const crash_listener&) noexcept { return *this; }  // NOLINT(bugprone-unhandled-self-assignment)
  virtual ~crash_listener();
  virtual void on_crash(Source& src) = 0;

 private:
  crash_listener* prev_ = nullptr;
  crash_listener* next_ = nullptr;
  friend struct detail::CrashListeners;
};

namespace detail {

/// Crash injection for one operation of a case (set by the front ends for specs with recover).
struct FaultPlan {
  Source* src = nullptr;
  std::uint64_t one_in = 25;
  std::uint64_t points = 0;  // fault points passed
  std::string where;         // set by the crash: "disk.write, sector 3"
  std::string location;      // and "block_device.hpp:98"
};

/// The running case's choice stream (the engine sets it around every case), or null.
Source* case_source() noexcept;
/// Counts the cases this thread has begun (CaseScope): state kept for "this case" (PCT's
/// learnt run length in duet::run) starts over when it changes.
std::uint64_t case_serial() noexcept;

/// Set by the engine around every case: the case's choice stream, and virtual time from 0.
class CaseScope {
 public:
  explicit CaseScope(Source& src) noexcept;
  ~CaseScope();
  CaseScope(const CaseScope&) = delete;
  CaseScope& operator=(const CaseScope&) = delete;

 private:
  Source* previous_;
  std::uint64_t previous_time_;
};

/// Installs a fault plan on this thread for its lifetime.
class FaultScope {
 public:
  explicit FaultScope(FaultPlan& plan) noexcept;
  ~FaultScope();
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;

 private:
  FaultPlan* previous_;
};

/// Every crash_listener of this thread loses what a crash loses.
void fire_crash_listeners(Source& src);

/// Where duet::run leaves the text of its runs while a front end records a step for a report
/// (set by the front end around the step), or null. Inline, with the scope below: a sequential
/// step that traces nothing sets it around every command, and two calls into the library there
/// were a measurable part of the step.
inline constinit thread_local std::string* async_trace_target = nullptr;
inline std::string* async_trace_sink() noexcept { return async_trace_target; }
class AsyncTraceScope {
 public:
  explicit AsyncTraceScope(std::string* sink) noexcept : previous_(async_trace_target) { async_trace_target = sink; }
  ~AsyncTraceScope() { async_trace_target = previous_; }
  AsyncTraceScope(const AsyncTraceScope&) = delete;
  AsyncTraceScope& operator=(const AsyncTraceScope&) = delete;

 private:
  std::string* previous_;
};

}  // namespace detail
}  // namespace duet
