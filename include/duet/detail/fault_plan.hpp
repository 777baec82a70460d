// What the engine and the front ends set around a case and an operation for duet/faults.hpp: the
// case's choice stream, crash injection's plan, the crash listeners' firing, and where duet::run
// leaves the text of its runs. Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "duet/detail/declarations.hpp"

namespace duet {
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
