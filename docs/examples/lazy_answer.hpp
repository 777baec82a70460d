// Double-checked initialisation with plain std::atomic and std::mutex (docs/memory-model.md):
// get() computes the answer once and publishes it through a flag. With the flag's store
// relaxed, a get() on another thread may see the flag set and still read the value from before
// (0): on x86 the processor keeps stores in order and this almost never shows; on arm64 or POWER
// it does. Under the C++ memory model on fibers it shows on any machine.
#pragma once

#include <atomic>
#include <mutex>

namespace lazy_answer {

template <bool RelaxedPublication>
class LazyAnswer {
 public:
  int get() {
    if (ready_.load(std::memory_order_acquire)) return value_.load(std::memory_order_relaxed);
    std::lock_guard<std::mutex> g(m_);
    if (!ready_.load(std::memory_order_relaxed)) {
      value_.store(42, std::memory_order_relaxed);
      // The bug: a relaxed store publishes nothing; release is needed.
      ready_.store(true, RelaxedPublication ? std::memory_order_relaxed : std::memory_order_release);
    }
    return value_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<int> value_{0};
  std::atomic<bool> ready_{false};
  std::mutex m_;
};

}  // namespace lazy_answer
