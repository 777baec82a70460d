// Kept threads for check_history's parts (part_threads.hpp).
#include "check/part_threads.hpp"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "execute/fibers/threads_outside.hpp"

namespace duet::history::detail {

namespace {

// The kept threads, each waiting for a job whose number is new; a job names how many of them
// take part. Never destroyed: at exit the threads wait forever, as an idle pool's do.
class PartThreads {
 public:
  // The process's pool, or none in a forked child of the process that made it.
  static PartThreads* of_this_process() {
    static PartThreads* pool = new PartThreads;
    return pool->pid_ == ::getpid() ? pool : nullptr;
  }

  // False when another check holds the pool.
  bool try_run(std::size_t helpers, const std::function<void()>& work) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::unique_lock lock(mutex_);
      grow(helpers);
      job_ = &work;
      taking_part_ = std::min(helpers, threads_.size());
      finished_ = 0;
      ++job_number_;
    }
    start_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return finished_ == taking_part_; });
    job_ = nullptr;
    return true;
  }

 private:
  void grow(std::size_t helpers) {
    const duet::detail::fiber::DuetsOwnThreads own;  // the kept threads are duet's
    while (threads_.size() < helpers) {
      try {
        threads_.emplace_back([this, index = threads_.size()] { serve(index); });
      } catch (const std::system_error&) {
        return;  // the others do the work
      }
    }
  }

  void serve(std::size_t index) {
    std::uint64_t seen = 0;
    for (;;) {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return job_number_ != seen; });
      seen = job_number_;
      if (index >= taking_part_) continue;
      const std::function<void()>* work = job_;
      lock.unlock();
      (*work)();
      lock.lock();
      if (++finished_ == taking_part_) done_.notify_all();
    }
  }

  const pid_t pid_ = ::getpid();
  std::mutex busy_;  // held by the check using the pool
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  std::uint64_t job_number_ = 0;
  std::size_t taking_part_ = 0, finished_ = 0;
};

// Threads of this call's own, for a check that cannot use the pool.
void run_on_new_threads(std::size_t helpers, const std::function<void()>& work) {
  const duet::detail::fiber::DuetsOwnThreads own;
  std::vector<std::thread> threads;
  for (std::size_t h = 0; h < helpers; ++h) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace

void run_on_part_threads(std::size_t helpers, const std::function<void()>& work) {
  if (helpers == 0) return work();
  PartThreads* pool = PartThreads::of_this_process();
  if (pool == nullptr || !pool->try_run(helpers, work)) run_on_new_threads(helpers, work);
}

}  // namespace duet::history::detail
