// Thread executors for Y-programs: a persistent pool with a spin barrier, and the naive
// thread-per-run one it is measured against.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "duet/detail/fiber_hooks.hpp"
#include "duet/detail/trial_driver.hpp"
#include "duet/executor.hpp"
#include "duet/progress.hpp"
#include "duet/show.hpp"
#include "engine/candidate_fork.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/threads.hpp"

namespace duet::detail {

namespace {
constinit thread_local std::uint64_t t_last_event_time = 0;
}  // namespace

std::uint64_t event_time(CallEdge edge) {
  // Every call of a parallel program is timed here as it returns: where a child that the
  // candidate forked comes back to duet, and ends.
  leave_if_candidates_child();
  // Inside a fiber run one fiber runs at a time on this thread, so counting orders the calls
  // exactly; the count continues this thread's clock, so the prefix before the run and the
  // suffix after it stay in order with it. The scheduling thread's count, also from a fiber
  // with thread-local storage of its own.
  std::uint64_t& last = fiber::host_local(t_last_event_time);
  if (fiber::Runtime* rt = fiber::current()) {
    // Fenced as below, for the C++ memory model; the side of the call orders it in a search.
    fiber::harness_fence(*rt, edge != CallEdge::response, edge != CallEdge::invoke);
    fiber::clock_read(*rt, ++last);
    return last;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto now = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
  last = now > last ? now : last + 1;
  return last;
}


// Spins briefly, then yields: with more branches than cores, pure spinning would starve the
// very thread everyone waits for.
template <class Done>
void spin_until(Done done) {
  for (int i = 0; !done(); ++i) {
    if (i > 64) std::this_thread::yield();
  }
}

// duet's thread executors run in a child process by default (a hang or crash on threads cannot
// be recovered from in process), but not under ThreadSanitizer, which ends a child that starts
// threads after a fork of a process with threads.
bool threads_restart_in_child() {
#if defined(__SANITIZE_THREAD__)
  return false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  return false;
#endif
#endif
  return true;
}

// Where a pool puts its branches: every branch, the caller's included, on its own CPU from the
// caller's affinity mask, when the mask has enough CPUs. The caller's own mask is restored after
// each run, or, inside a check (hold_caller), when the check ends: one pinning per check instead
// of two system calls per trial.
class ThreadPool final : public Executor, public TrialDriver {
 public:
  ThreadPool(bool pin, ThreadHooks hooks) : pin_(pin), hooks_(std::move(hooks)) {}
  bool pinned() const { return pin_; }
  const ThreadHooks& hooks() const { return hooks_; }
  bool caller_started() const { return caller_started_; }
  /// In a child process of isolation mode: the forking thread's hooks ran before the fork, and
  /// what they set up was copied with the process (the child's caller is that thread).
  void caller_started_before_fork() {
    caller_started_ = true;
    hooks_caller_ = pthread_self();
  }
  ~ThreadPool() override {
    release_caller();
    stop_.store(true);
    round_.fetch_add(kRoundStep);
    round_.notify_all();
    width_.store(kMaxBranches + 1);
    width_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // The calling thread runs branch 0 itself: with as many branches as cores, a caller that
  // waited by spinning would take a core from the branches it waits for. Every worker takes
  // part in every round that has a branch for it; the others are parked until a wider round.
  void run(const std::vector<std::function<void()>>& branches) override {
    if (branches.empty()) return;
    if (branches.size() > kMaxBranches) throw std::invalid_argument("duet: at most 255 branches");
    while (threads_.size() < branches.size() - 1) {
      const std::size_t index = threads_.size();
      const std::uint64_t current = round_.load();
      const fiber::DuetsOwnThread own;  // not a thread of the code under test (threads_outside.hpp)
      threads_.emplace_back([this, index, current] { worker(index, current); });
    }
    if (pin_) place(branches.size());
    // A small random head start per branch, new every run, so that repeated trials sample
    // different relative timings instead of the one the barrier happens to produce.
    delays_.resize(branches.size());
    for (auto& d : delays_) {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      d = static_cast<unsigned>(rng_ % 256);
    }
    start_caller();
    work_ = &branches;
    arrived_.store(0, std::memory_order_relaxed);
    // Only the workers with a branch take part in a round; the others are parked on width_.
    remaining_.store(static_cast<int>(branches.size() - 1), std::memory_order_relaxed);
    if (width_.load(std::memory_order_relaxed) != branches.size()) {
      width_.store(branches.size(), std::memory_order_release);
      width_.notify_all();
    }
    // One atomic publishes the round and its number of branches together.
    const std::uint64_t next = ((round_.load() / kRoundStep) + 1) * kRoundStep + branches.size();
    round_.store(next, std::memory_order_release);
    round_.notify_all();
    std::exception_ptr failure;
    try {
      start_and_run(0, branches.size());
    } catch (...) {
      failure = std::current_exception();  // the workers still use `branches`: wait for them
    }
    if (owns_cpus(branches.size())) spin_hot_until([&] { return remaining_.load(std::memory_order_acquire) == 0; });
    else spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; });
    if (!holding_) release_caller();
    if (failure) std::rethrow_exception(failure);
    if (hook_failed_.load(std::memory_order_acquire)) {  // no lock per trial while hooks succeed
      std::lock_guard lock(hook_error_m_);
      throw ExecutorFailed{hook_error_};
    }
  }
  const char* name() const override { return "thread pool"; }

  // ---- the parallel runner's driver ----
  TrialDriver& trial_driver() override { return *this; }
  void check_starts() override { hold_caller(); }
  void check_ends() override { release_caller(); }
  std::string coverage() const override { return placement(); }
  bool isolate_by_default() const override { return threads_restart_in_child(); }
  std::shared_ptr<Executor> for_child_process(std::shared_ptr<Executor> self) override {
    // The parent's pool is never destroyed here: its destructor would join threads that do not
    // exist in this process.
    new std::shared_ptr<Executor>(std::move(self));
    auto fresh = std::make_shared<ThreadPool>(pin_, hooks_);
    if (caller_started_) fresh->caller_started_before_fork();
    fresh->hold_caller();
    return fresh;
  }

  /// Inside a check: keep the caller pinned between runs, and its ThreadHooks started, until
  /// release_caller().
  void hold_caller() {
    holding_ = true;
    start_caller();
  }
  /// Gives the caller its own affinity back (if a run pinned it) and runs its stop hook.
  void release_caller() {
    holding_ = false;
    release_affinity();
    stop_caller();
  }
  /// "branches pinned to CPUs 0, 1", or why not.
  std::string placement() const { return placement_; }

 private:
  static constexpr std::uint64_t kRoundStep = 256;  // low byte: the round's branch count
  static constexpr std::size_t kMaxBranches = 255;

  // Pins the caller (branch 0) and worker i (branch i + 1) to distinct CPUs of the caller's
  // mask, if it has one per branch; otherwise leaves every thread free, and says so.
  void place(std::size_t branches) {
    const pthread_t self = pthread_self();
    if (caller_pinned_ && pthread_equal(self, caller_) && (placed_for_ >= branches || placed_shared_ == branches)) return;
    if (caller_pinned_) release_caller_affinity_only();
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (pthread_getaffinity_np(self, sizeof mask, &mask) != 0) return;
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mask)) cpus.push_back(c);
    if (cpus.size() < 2) {
      placement_ = "branches not pinned: 1 CPU available for " + std::to_string(branches) + " branches";
      placed_for_ = 0;
      return;
    }
    if (cpus.size() < branches) {
      // Round robin: the kernel, left alone on a loaded machine, may put every branch on one CPU.
      placement_ = std::to_string(branches) + " branches pinned round robin to " + std::to_string(cpus.size()) +
                   " CPUs: fewer CPUs than branches, so branches share CPUs";
      for (std::size_t i = 0; i < threads_.size(); ++i) pin_to(threads_[i].native_handle(), cpus[(i + 1) % cpus.size()]);
      caller_ = self;
      caller_mask_ = mask;
      caller_pinned_ = pin_to(self, cpus[0]);
      placed_for_ = 0;  // no CPU of its own per branch: spinning must yield early
      placed_shared_ = branches;
      return;
    }
    caller_ = self;
    caller_mask_ = mask;
    caller_pinned_ = pin_to(self, cpus[0]);
    placement_ = "branches pinned to CPUs " + std::to_string(cpus[0]);
    for (std::size_t i = 0; i < threads_.size(); ++i) {
      if (i + 1 < cpus.size()) {
        pin_to(threads_[i].native_handle(), cpus[i + 1]);
        if (i + 1 < branches) placement_ += ", " + std::to_string(cpus[i + 1]);
      } else {
        pthread_setaffinity_np(threads_[i].native_handle(), sizeof mask, &mask);
      }
    }
    placed_for_ = branches;
    placed_shared_ = 0;
  }
  void release_caller_affinity_only() { release_affinity(); }
  void release_affinity() {
    if (!caller_pinned_ || !pthread_equal(pthread_self(), caller_)) return;  // only the caller itself
    pthread_setaffinity_np(caller_, sizeof caller_mask_, &caller_mask_);
    caller_pinned_ = false;
  }

  // ThreadHooks: a hook that throws is kept as the pool's error, which every later run() throws
  // (ExecutorFailed): the thread it was for is not set up.
  void run_hook(const std::function<void()>& hook, const char* which) {
    if (!hook) return;
    try {
      hook();
    } catch (...) {
      std::lock_guard lock(hook_error_m_);
      if (hook_error_.empty()) hook_error_ = std::string("ThreadHooks::") + which + " threw " + describe_current_exception();
      hook_failed_.store(true, std::memory_order_release);
    }
  }
  void start_caller() {
    if (caller_started_ || (!hooks_.start && !hooks_.stop)) return;
    caller_started_ = true;
    hooks_caller_ = pthread_self();
    run_hook(hooks_.start, "start");
  }
  // On the thread that started it only: a pool destroyed elsewhere cannot stop the caller's.
  void stop_caller() {
    if (!caller_started_ || !pthread_equal(pthread_self(), hooks_caller_)) return;
    caller_started_ = false;
    run_hook(hooks_.stop, "stop");
  }
  static bool pin_to(pthread_t thread, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
  }

  void worker(std::size_t index, std::uint64_t seen) {
    run_hook(hooks_.start, "start");
    work_loop(index, seen);
    run_hook(hooks_.stop, "stop");
  }
  void work_loop(std::size_t index, std::uint64_t seen) {
    for (;;) {
      // Wait for a new round: trials come back to back, so keep polling (yielding the CPU)
      // for a while before sleeping on the round counter; a futex wake-up per trial would
      // cost more than the trial.
      const auto idle_since = std::chrono::steady_clock::now();
      std::uint64_t round = round_.load(std::memory_order_acquire);
      // A worker with a CPU of its own polls without yielding: on a loaded machine a yield gives
      // the CPU away for a whole time slice, and the next trial would start without this branch.
      const int hot = placed_for_.load(std::memory_order_relaxed) > index + 1 ? 1 << 16 : 64;
      for (int i = 0; round == seen; ++i, round = round_.load(std::memory_order_acquire)) {
        if (i < hot) continue;
        if ((i & 63) != 0 || std::chrono::steady_clock::now() - idle_since < std::chrono::milliseconds(2)) {
          std::this_thread::yield();
          continue;
        }
        round_.wait(seen, std::memory_order_acquire);
      }
      seen = round;
      if (stop_.load()) return;
      const std::size_t active = static_cast<std::size_t>(round % kRoundStep);
      if (index + 1 < active) {
        try {
          start_and_run(index + 1, active);
        } catch (...) {
          // A branch's exceptions are the caller's business (run_trial captures them per call);
          // one escaping here must not take the pool down.
        }
        remaining_.fetch_sub(1, std::memory_order_acq_rel);
      } else {
        // Not needed at this width (a shared pool running a narrower check): parked, so that it
        // takes no CPU from the branches, until a round needs it. A round that needs it is
        // stored after width_, so the next poll of round_ finds it.
        for (std::size_t w = width_.load(std::memory_order_acquire); w <= index + 1;
             w = width_.load(std::memory_order_acquire))
          width_.wait(w, std::memory_order_acquire);
        if (stop_.load()) return;
      }
    }
  }

  // Symmetric start: nobody begins before every branch is ready; then each waits out its
  // head start, spinning hot. A branch with a CPU of its own keeps spinning (spin_hot_until).
  bool owns_cpus(std::size_t branches) const { return placed_for_ >= branches; }

  // Spins for up to about 2 ms before yielding: the other branches, each on its own CPU, may be
  // waiting for a time slice of their own; yielding here would give ours away meanwhile.
  template <class Done>
  static void spin_hot_until(Done done) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0; !done(); ++i) {
      if ((i & 1023) == 1023 && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(2))
        std::this_thread::yield();
    }
  }

  void start_and_run(std::size_t branch, std::size_t active) {
    arrived_.fetch_add(1, std::memory_order_acq_rel);
    if (owns_cpus(active)) {
      spin_hot_until([&] { return arrived_.load(std::memory_order_acquire) == active; });
    } else {
      for (int i = 0; arrived_.load(std::memory_order_acquire) != active; ++i)
        if (i > 4096) std::this_thread::yield();
    }
    for (unsigned d = delays_[branch]; d > 0; --d) asm volatile("" ::: "memory");  // a delay the compiler keeps
    (*work_)[branch]();
  }

  bool pin_;
  ThreadHooks hooks_;
  bool caller_started_ = false;
  pthread_t hooks_caller_{};
  std::mutex hook_error_m_;
  std::string hook_error_;
  std::atomic<bool> hook_failed_{false};
  bool holding_ = false;
  bool caller_pinned_ = false;
  std::atomic<std::size_t> placed_for_{0};  // branches the current placement has a CPU of its own for
  std::size_t placed_shared_ = 0;           // or: branches placed round robin on fewer CPUs
  pthread_t caller_{};
  cpu_set_t caller_mask_{};
  std::string placement_;
  std::uint64_t rng_ = 0x9e3779b97f4a7c15ULL;
  std::vector<unsigned> delays_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> round_{0};
  std::atomic<std::size_t> arrived_{0};
  std::atomic<int> remaining_{0};
  std::atomic<std::size_t> width_{0};  // the current rounds' branch count
  std::atomic<bool> stop_{false};
  const std::vector<std::function<void()>>* work_ = nullptr;
};

class ThreadPerRun final : public Executor, public TrialDriver {
 public:
  void run(const std::vector<std::function<void()>>& branches) override {
    std::atomic<std::size_t> arrived{0};
    std::vector<std::thread> threads;
    threads.reserve(branches.size());
    const fiber::DuetsOwnThread own;
    for (const auto& branch : branches)
      threads.emplace_back([&] {
        arrived.fetch_add(1);
        spin_until([&] { return arrived.load() == branches.size(); });
        branch();
      });
    for (auto& t : threads) t.join();
  }
  const char* name() const override { return "thread per run"; }
  TrialDriver& trial_driver() override { return *this; }
  bool isolate_by_default() const override { return threads_restart_in_child(); }
};


std::string TrialDriver::progress_unsupported(const Progress& p) const {
  return p.stated() ? "progress guarantees are checked on fibers (.executor = duet::fibers()): threads cannot be "
                      "suspended at a chosen step"
                    : std::string();
}

void TrialDriver::run_whole_trial(Executor& executor, const std::vector<std::function<void()>>& branches,
                                  const TrialParts& parts) {
  parts.setup();
  executor.run(branches);
  parts.suffix();
  parts.finish(true);
}

TrialDriver& default_trial_driver() {
  static TrialDriver driver;  // stateless: an executor of the user's, on threads of its own
  return driver;
}

bool plain_threads(const Executor& e) {
  if (const auto* pool = dynamic_cast<const ThreadPool*>(&e)) return !pool->hooks().start && !pool->hooks().stop;
  return dynamic_cast<const ThreadPerRun*>(&e) != nullptr;
}

std::size_t usable_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0) return 1;
  return std::max(1, CPU_COUNT(&mask));
}

}  // namespace duet::detail

namespace duet {
detail::TrialDriver& Executor::trial_driver() { return detail::default_trial_driver(); }

std::unique_ptr<Executor> make_thread_pool(bool pin, ThreadHooks hooks) {
  return std::make_unique<detail::ThreadPool>(pin, std::move(hooks));
}
std::unique_ptr<Executor> make_thread_per_run() { return std::make_unique<detail::ThreadPerRun>(); }
}  // namespace duet
