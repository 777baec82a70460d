#include "execute/fibers/threads_outside.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>

#include "execute/hang_clock.hpp"


namespace duet::detail::fiber {
namespace {

// Threads of their own may start and end these at any time: atomics, no lock. The place is the
// last thread's to start (two fields that may be read torn while another starts: a place still).
std::atomic<std::uint64_t> g_alive{0};
std::atomic<const char*> g_file{nullptr};
std::atomic<std::uint_least32_t> g_line{0};

}  // namespace

void outside_thread_started(duet::source_location loc) noexcept {
  g_file.store(loc.file_name(), std::memory_order_relaxed);
  g_line.store(loc.line(), std::memory_order_relaxed);
  g_alive.fetch_add(1, std::memory_order_acq_rel);
}

void outside_thread_ended() noexcept { g_alive.fetch_sub(1, std::memory_order_acq_rel); }

bool outside_threads_alive() noexcept { return g_alive.load(std::memory_order_acquire) != 0; }

std::string outside_threads_error() {
  // A thread that ends on its own soon (a detached worker the subject's destructor told to stop,
  // when the oracle's replay destroyed it) is waited for: a second (times DUET_TIME_SCALE), in
  // steps of a millisecond.
  {
    const DuetsOwnThread own;  // real sleeps, whatever the trial's code would get
    const double limit = 1000 * time_scale();
    for (int ms = 0; static_cast<double>(ms) < limit && g_alive.load(std::memory_order_acquire) != 0; ++ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::uint64_t alive = g_alive.load(std::memory_order_acquire);
  if (alive == 0) return {};
  std::string out = alive == 1 ? "a thread" : std::to_string(alive) + " threads";
  out += " the subject started outside the fiber run (";
  out += alive == 1 ? "at " : "the last at ";
  const char* file = g_file.load(std::memory_order_relaxed);
  if (file == nullptr || *file == '\0') {
    out += "(no location)";
  } else {
    const std::string_view path(file);
    const std::size_t slash = path.find_last_of('/');
    out += path.substr(slash == std::string_view::npos ? 0 : slash + 1);
    out += ':';
    out += std::to_string(g_line.load(std::memory_order_relaxed));
  }
  out += ", on the calling thread outside any fiber run: a duet::Api check's prefix, a before_each_run hook) ";
  out += alive == 1 ? "is" : "are";
  out += " still running: duet neither schedules nor sees such a thread, so a fiber that waits for it would "
         "wait for ever and a run that passes would say nothing of it. No verdict: check such a subject on "
         "threads, or with duet::Lin or a state-machine spec (their trials run whole on fibers, threads included)";
  return out;
}

}  // namespace duet::detail::fiber
