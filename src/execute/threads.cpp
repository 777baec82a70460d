// Thread executors for Y-programs: a persistent pool with a spin barrier, and the naive
// thread-per-run one it is measured against.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "duet/detail/executor.hpp"

namespace duet::detail {

std::uint64_t event_time() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

namespace {

// Spins briefly, then yields: with more branches than cores, pure spinning would starve the
// very thread everyone waits for.
template <class Done>
void spin_until(Done done) {
  for (int i = 0; !done(); ++i) {
    if (i > 64) std::this_thread::yield();
  }
}

class ThreadPool final : public Executor {
 public:
  explicit ThreadPool(bool pin) : pin_(pin) {}
  ~ThreadPool() override {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // The calling thread runs branch 0 itself: with as many branches as cores, a caller that
  // waited by spinning would take a core from the branches it waits for.
  void run(const std::vector<std::function<void()>>& branches) override {
    const std::size_t helpers = branches.size() - 1;
    while (threads_.size() < helpers) {
      const std::size_t index = threads_.size();
      threads_.emplace_back([this, index] { worker(index); });
      if (pin_) pin(threads_.back().native_handle(), index + 1);
    }
    if (pin_ && !pinned_caller_) {
      pin(pthread_self(), 0);
      pinned_caller_ = true;
    }
    // A small random head start per branch, new every run, so that repeated trials sample
    // different relative timings instead of the one the barrier happens to produce.
    delays_.resize(branches.size());
    for (auto& d : delays_) {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      d = static_cast<unsigned>(rng_ % 256);
    }
    work_ = &branches;
    active_.store(branches.size());
    arrived_.store(0);
    remaining_.store(static_cast<int>(helpers));
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    start_and_run(0);
    spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; });
  }
  const char* name() const override { return "thread pool"; }

 private:
  void worker(std::size_t index) {
    std::uint64_t seen = 0;
    for (;;) {
      // Wait for a new round: trials come back to back, so keep polling (yielding the CPU)
      // for a while before sleeping on the generation counter; a futex wake-up per trial would
      // cost more than the trial.
      const auto idle_since = std::chrono::steady_clock::now();
      for (int i = 0; generation_.load(std::memory_order_acquire) == seen; ++i) {
        if (i < 64) continue;
        if ((i & 63) != 0 || std::chrono::steady_clock::now() - idle_since < std::chrono::milliseconds(2)) {
          std::this_thread::yield();
          continue;
        }
        generation_.wait(seen, std::memory_order_acquire);
      }
      seen = generation_.load(std::memory_order_acquire);
      if (stop_.load()) return;
      const std::size_t active = active_.load(std::memory_order_acquire);
      if (index + 1 >= active) continue;
      start_and_run(index + 1);
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  // Symmetric start: nobody begins before every branch is ready; then each waits out its
  // head start, spinning hot.
  void start_and_run(std::size_t branch) {
    const std::size_t active = active_.load(std::memory_order_acquire);
    arrived_.fetch_add(1, std::memory_order_acq_rel);
    for (int i = 0; arrived_.load(std::memory_order_acquire) != active; ++i)
      if (i > 4096) std::this_thread::yield();
    for (volatile unsigned d = delays_[branch]; d > 0; d = d - 1) {
    }
    (*work_)[branch]();
  }

  static void pin(pthread_t thread, std::size_t index) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<int>(index % std::max(1u, std::thread::hardware_concurrency())), &set);
    pthread_setaffinity_np(thread, sizeof set, &set);
  }

  bool pin_;
  bool pinned_caller_ = false;
  std::uint64_t rng_ = 0x9e3779b97f4a7c15ULL;
  std::vector<unsigned> delays_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> active_{0};
  std::atomic<std::size_t> arrived_{0};
  std::atomic<int> remaining_{0};
  std::atomic<bool> stop_{false};
  const std::vector<std::function<void()>>* work_ = nullptr;
};

class ThreadPerRun final : public Executor {
 public:
  void run(const std::vector<std::function<void()>>& branches) override {
    std::atomic<std::size_t> arrived{0};
    std::vector<std::thread> threads;
    threads.reserve(branches.size());
    for (const auto& branch : branches)
      threads.emplace_back([&] {
        arrived.fetch_add(1);
        spin_until([&] { return arrived.load() == branches.size(); });
        branch();
      });
    for (auto& t : threads) t.join();
  }
  const char* name() const override { return "thread per run"; }
};

}  // namespace

std::unique_ptr<Executor> make_thread_pool(bool pin) { return std::make_unique<ThreadPool>(pin); }
std::unique_ptr<Executor> make_thread_per_run() { return std::make_unique<ThreadPerRun>(); }

}  // namespace duet::detail
