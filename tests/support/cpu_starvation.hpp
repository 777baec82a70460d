// Starving code of CPU for real, to test duet's hang limits: the process is kept to one CPU,
// where busy threads run, and the starved thread gives way to them (SCHED_IDLE).
#pragma once

#include <sched.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace duet_test {

inline double thread_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// The calling thread gives way to every other thread of its CPU (SCHED_IDLE, for good: call it
/// on a thread of its own, or in a child process), then works until it has had `ms` of CPU:
/// while a StarvedCpu lasts, it waits for a CPU.
inline void work_at_idle_priority(double ms) {
  sched_param p{};
  ::sched_setscheduler(0, SCHED_IDLE, &p);
  const double until = thread_cpu_ms() + ms;
  volatile std::uint64_t x = 0;
  while (thread_cpu_ms() < until)
    for (int i = 0; i < 10000; ++i) x = x + 1;
}

/// This thread, the threads it starts and the processes it forks run on one CPU, where
/// `threads` threads spin for `seconds`: a thread of lower priority there waits that long.
class StarvedCpu {
 public:
  StarvedCpu(int threads, double seconds) {
    ::sched_getaffinity(0, sizeof saved_, &saved_);
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &saved_)) ++cpu;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ::sched_setaffinity(0, sizeof one, &one);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (int i = 0; i < threads; ++i)
      busy_.emplace_back([until] {
        while (std::chrono::steady_clock::now() < until) {
        }
      });
  }
  ~StarvedCpu() {
    for (std::thread& t : busy_) t.join();
    ::sched_setaffinity(0, sizeof saved_, &saved_);
  }
  StarvedCpu(const StarvedCpu&) = delete;
  StarvedCpu& operator=(const StarvedCpu&) = delete;

 private:
  cpu_set_t saved_{};
  std::vector<std::thread> busy_;
};

}  // namespace duet_test
