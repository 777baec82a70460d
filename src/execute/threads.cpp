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

  void run(const std::vector<std::function<void()>>& branches) override {
    while (threads_.size() < branches.size()) {
      const std::size_t index = threads_.size();
      threads_.emplace_back([this, index] { worker(index); });
      if (pin_) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<int>(index % std::max(1u, std::thread::hardware_concurrency())), &set);
        pthread_setaffinity_np(threads_.back().native_handle(), sizeof set, &set);
      }
    }
    work_ = &branches;
    active_.store(branches.size());
    arrived_.store(0);
    remaining_.store(static_cast<int>(branches.size()));
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
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
      if (index >= active) continue;
      // Symmetric start: nobody begins before every branch is ready.
      arrived_.fetch_add(1, std::memory_order_acq_rel);
      spin_until([&] { return arrived_.load(std::memory_order_acquire) == active; });
      (*work_)[index]();
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  bool pin_;
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
