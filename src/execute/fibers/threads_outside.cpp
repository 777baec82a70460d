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
struct Started {
  std::atomic<std::uint64_t> alive{0};
  std::atomic<const char*> file{nullptr};
  std::atomic<std::uint_least32_t> line{0};

  void add(duet::source_location loc) noexcept {
    file.store(loc.file_name(), std::memory_order_relaxed);
    line.store(loc.line(), std::memory_order_relaxed);
    alive.fetch_add(1, std::memory_order_acq_rel);
  }
  // "file:line" of the last one started, without its directory.
  std::string place() const {
    const char* f = file.load(std::memory_order_relaxed);
    if (f == nullptr || *f == '\0') return "(no location)";
    const std::string_view path(f);
    const std::size_t slash = path.find_last_of('/');
    return std::string(path.substr(slash == std::string_view::npos ? 0 : slash + 1)) + ':' +
           std::to_string(line.load(std::memory_order_relaxed));
  }
};
Started g_in_trials;  // outside_thread_started
Started g_foreign;    // foreign_thread_started

std::string counted(std::uint64_t alive) { return alive == 1 ? "a thread" : std::to_string(alive) + " threads"; }

}  // namespace

void outside_thread_started(duet::source_location loc) noexcept { g_in_trials.add(loc); }

void outside_thread_ended() noexcept { g_in_trials.alive.fetch_sub(1, std::memory_order_acq_rel); }

bool outside_threads_alive() noexcept { return g_in_trials.alive.load(std::memory_order_acquire) != 0; }

void foreign_thread_started(duet::source_location loc) noexcept { g_foreign.add(loc); }

void foreign_thread_ended() noexcept { g_foreign.alive.fetch_sub(1, std::memory_order_acq_rel); }

std::string foreign_threads() {
  const std::uint64_t alive = g_foreign.alive.load(std::memory_order_acquire);
  if (alive == 0) return {};
  return counted(alive) + " started outside any fiber check (" + (alive == 1 ? "at " : "the last at ") + g_foreign.place() +
         ": before this check, by the test or by a library's earlier use)";
}

std::string foreign_threads_note() {
  const std::string threads = foreign_threads();
  if (threads.empty()) return {};
  return "no verdict: " + threads + (g_foreign.alive.load(std::memory_order_acquire) == 1 ? " is" : " are") +
         " still running, and a fiber that waits for such a thread (a library's background thread, started by its "
         "first use and never ended) waits for ever in the run, which would end as this one did whatever the code "
         "under test does. Start the library's threads within the check (in the subject), or check it on threads";
}

std::string outside_threads_error() {
  // A thread that ends on its own soon (a detached worker the subject's destructor told to stop,
  // when the oracle's replay destroyed it) is waited for: a second (times DUET_TIME_SCALE), in
  // steps of a millisecond.
  {
    const DuetsOwnThread own;  // real sleeps, whatever the trial's code would get
    const double limit = 1000 * time_scale();
    for (int ms = 0; static_cast<double>(ms) < limit && outside_threads_alive(); ++ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::uint64_t alive = g_in_trials.alive.load(std::memory_order_acquire);
  if (alive == 0) return {};
  std::string out = counted(alive) + " the subject started outside the fiber run (";
  out += alive == 1 ? "at " : "the last at ";
  out += g_in_trials.place();
  out += ", on the calling thread outside any fiber run: a duet::Api check's prefix, duet::Lin's oracle (the "
         "candidate run alone, on the calling thread), a before_each_run hook) ";
  out += alive == 1 ? "is" : "are";
  out += " still running: duet neither schedules nor sees such a thread, so a fiber that waits for it would "
         "wait for ever and a run that passes would say nothing of it. No verdict: check such a subject on "
         "threads, or with a state-machine spec and its model (its trials run whole on fibers, threads included, "
         "and its oracle is the model, not the candidate)";
  return out;
}

}  // namespace duet::detail::fiber
