// Thread-specific data (pthread keys) of each fiber of a run. A library that keeps a per-thread
// record behind a key (its own pthread_key_create, boost::thread_specific_ptr, a registration
// hook) must see one record per fiber, as it would per thread: a fiber starts with every key
// null, its values are its own, and when its function returns the keys' destructors run, as the
// C library runs them when a thread exits (after the thread_local destructors, up to
// PTHREAD_DESTRUCTOR_ITERATIONS rounds).
//
// The keys are the C library's; only their values move here while a fiber runs the subject's
// code. Two kinds of key keep the scheduling thread's values:
//  - the test framework's (duet::detail::share_thread_key_with_fibers: GoogleTest's, so that an
//    assertion inside a call reaches the capture the check installed on the scheduling thread);
//  - keys this file never saw created (made inside the C library itself).
// Outside a run, and in duet's own code on a fiber, every call is the C library's.
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <pthread.h>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

using Destructor = void (*)(void*);

// What pthread_key_create was given for each key: written when a key is made or deleted, read
// on every get and set in a run.
struct KeyRecord {
  std::atomic<Destructor> destructor{nullptr};
  std::atomic<std::uint32_t> sequence{0};  // odd: the key exists (made through this file)
};
constexpr std::size_t kKeys = PTHREAD_KEYS_MAX;
constinit KeyRecord g_keys[kKeys];

bool per_fiber(pthread_key_t key, std::uint32_t& sequence) noexcept {
  if (key >= kKeys) return false;
  sequence = g_keys[key].sequence.load(std::memory_order_acquire);
  return (sequence & 1) != 0 && !thread_key_shared_with_fibers(g_keys[key].destructor.load(std::memory_order_relaxed));
}

// One fiber's values: a value counts only under the sequence its key had when it was set (a key
// deleted and made again starts null, as POSIX leaves it to the implementation and glibc does).
struct Value {
  void* value = nullptr;
  std::uint32_t sequence = 0;
};
// Every fiber's values in this thread's latest run, shared by its fibers (read through
// host_local). Cleared when a new run starts and when a fiber's function returns, so a fiber
// always starts with every key null, whichever slot it reuses.
struct RunValues {
  std::uint64_t run = ~std::uint64_t{0};
  std::array<std::vector<Value>, fiber::kMaxFibers> of_fiber;
};
constinit thread_local RunValues* t_values = nullptr;

std::vector<Value>& values_of(fiber::Runtime& rt) {
  RunValues& v = fiber::host_shared(t_values);
  if (v.run != fiber::run_number(rt)) {
    for (auto& f : v.of_fiber) f.clear();
    v.run = fiber::run_number(rt);
  }
  return v.of_fiber[fiber::fiber_number(rt)];
}

void* get_value(fiber::Runtime& rt, pthread_key_t key, std::uint32_t sequence) {
  const std::vector<Value>& values = values_of(rt);
  return key < values.size() && values[key].sequence == sequence ? values[key].value : nullptr;
}

void set_value(fiber::Runtime& rt, pthread_key_t key, std::uint32_t sequence, const void* value) {
  std::vector<Value>& values = values_of(rt);
  if (values.size() <= key) values.resize(key + 1);
  values[key] = {const_cast<void*>(value), sequence};
}

// One round of destructors: each key with a value and a destructor gets its value set to null,
// then the destructor called with the old value, as the subject's code. True when one ran.
bool destructor_round(fiber::Runtime& rt) {
  bool ran = false;
  for (pthread_key_t key = 0; key < kKeys; ++key) {
    Destructor d = nullptr;
    void* value = nullptr;
    {
      const InDuet inside;
      std::vector<Value>& values = values_of(rt);
      if (key >= values.size()) break;
      std::uint32_t sequence = 0;
      if (!per_fiber(key, sequence) || values[key].sequence != sequence || values[key].value == nullptr) continue;
      value = values[key].value;
      values[key] = {};
      d = g_keys[key].destructor.load(std::memory_order_relaxed);
    }
    if (d != nullptr) {
      d(value);
      ran = true;
    }
  }
  return ran;
}

}  // namespace

void run_thread_specific_destructors() noexcept {
  fiber::Runtime* const rt = active();
  if (rt == nullptr) return;
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS && destructor_round(*rt); ++round) {
  }
  const InDuet inside;
  values_of(*rt).clear();  // what a destructor set again is dropped, as the C library drops it
}

}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) noexcept {
  static std::atomic<void*> slot{};
  const int r = real<int(pthread_key_t*, void (*)(void*)) noexcept>(slot, "pthread_key_create")(key, destructor);
  if (r == 0 && *key < kKeys) {
    KeyRecord& k = g_keys[*key];
    k.destructor.store(destructor, std::memory_order_relaxed);
    k.sequence.fetch_add((k.sequence.load(std::memory_order_relaxed) & 1) == 0 ? 1 : 2, std::memory_order_release);
  }
  return r;
}

int pthread_key_delete(pthread_key_t key) noexcept {
  static std::atomic<void*> slot{};
  const int r = real<int(pthread_key_t) noexcept>(slot, "pthread_key_delete")(key);
  if (r == 0 && key < kKeys) {
    KeyRecord& k = g_keys[key];
    if ((k.sequence.load(std::memory_order_relaxed) & 1) != 0) k.sequence.fetch_add(1, std::memory_order_release);
  }
  return r;
}

void* pthread_getspecific(pthread_key_t key) noexcept {
  std::uint32_t sequence = 0;
  if (fiber::t_runtime != nullptr) [[unlikely]]
    if (const InRun rt = in_run(); rt && per_fiber(key, sequence)) return get_value(*rt, key, sequence);
  static std::atomic<void*> slot{};
  return real<void*(pthread_key_t) noexcept>(slot, "pthread_getspecific")(key);
}

int pthread_setspecific(pthread_key_t key, const void* value) noexcept {
  std::uint32_t sequence = 0;
  if (fiber::t_runtime != nullptr) [[unlikely]]
    if (const InRun rt = in_run(); rt && per_fiber(key, sequence)) {
      set_value(*rt, key, sequence, value);
      return 0;
    }
  static std::atomic<void*> slot{};
  return real<int(pthread_key_t, const void*) noexcept>(slot, "pthread_setspecific")(key, value);
}

}  // extern "C"
