#include "execute/fibers/threads_outside.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>

#include "execute/hang_clock.hpp"


namespace duet::detail::fiber {
namespace {

// Threads of their own may start and end these at any time: atomics, no lock. The place is the
// last thread's to start (fields that may be read torn while another starts: a place still).
std::atomic<std::uint64_t> g_in_trials{0};  // outside_thread_started
std::atomic<const char*> g_in_trials_file{nullptr};
std::atomic<std::uint_least32_t> g_in_trials_line{0};
// Threads started before any trial (foreign_thread_started): many programs start some (a logger,
// a pool), so their place is the calling stack's code addresses, symbolised when a report names it.
std::atomic<std::uint64_t> g_foreign{0};
std::array<std::atomic<const void*>, kForeignStack> g_foreign_stack{};

std::string counted(std::uint64_t alive) { return alive == 1 ? "a thread" : std::to_string(alive) + " threads"; }

// "file:line", without the file's directory.
std::string file_and_line(const char* file, std::uint_least32_t line) {
  if (file == nullptr || *file == '\0') return "(no location)";
  const std::string_view path(file);
  const std::size_t slash = path.find_last_of('/');
  return std::string(path.substr(slash == std::string_view::npos ? 0 : slash + 1)) + ':' + std::to_string(line);
}

std::string foreign_threads(std::uint64_t alive) {
  duet::source_location loc{};  // the first frame with a line: the standard library's have none
  for (const auto& pc : g_foreign_stack) {
    const void* at = pc.load(std::memory_order_relaxed);
    if (at == nullptr) break;
    loc = symbolize(at);
    if (loc.file_name() != nullptr && *loc.file_name() != '\0') break;
  }
  return counted(alive) + " started outside any fiber check (" + (alive == 1 ? "at " : "the last at ") +
         file_and_line(loc.file_name(), loc.line()) + ": before this check, by the test or by a library's earlier use)";
}

}  // namespace

constinit thread_local bool t_duets_lineage = false;

void outside_thread_started(duet::source_location loc) noexcept {
  g_in_trials_file.store(loc.file_name(), std::memory_order_relaxed);
  g_in_trials_line.store(loc.line(), std::memory_order_relaxed);
  g_in_trials.fetch_add(1, std::memory_order_acq_rel);
}

void outside_thread_ended() noexcept { g_in_trials.fetch_sub(1, std::memory_order_acq_rel); }

bool outside_threads_alive() noexcept { return g_in_trials.load(std::memory_order_acquire) != 0; }

void foreign_thread_started(std::span<void* const> stack) noexcept {
  for (std::size_t i = 0; i < kForeignStack; ++i)
    g_foreign_stack[i].store(i < stack.size() ? stack[i] : nullptr, std::memory_order_relaxed);
  g_foreign.fetch_add(1, std::memory_order_acq_rel);
}

void foreign_thread_ended() noexcept { g_foreign.fetch_sub(1, std::memory_order_acq_rel); }

std::string foreign_threads() {
  const std::uint64_t alive = g_foreign.load(std::memory_order_acquire);
  return alive == 0 ? std::string() : foreign_threads(alive);
}

std::string foreign_threads_note() {
  const std::uint64_t alive = g_foreign.load(std::memory_order_acquire);
  if (alive == 0) return {};
  return "no verdict: " + foreign_threads(alive) + (alive == 1 ? " is" : " are") +
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
  const std::uint64_t alive = g_in_trials.load(std::memory_order_acquire);
  if (alive == 0) return {};
  std::string out = counted(alive) + " the subject started outside the fiber run (";
  out += alive == 1 ? "at " : "the last at ";
  out += file_and_line(g_in_trials_file.load(std::memory_order_relaxed), g_in_trials_line.load(std::memory_order_relaxed));
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
