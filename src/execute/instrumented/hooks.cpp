// The entry points the compilers' thread-sanitizer instrumentation calls (the interface of
// compiler-rt's tsan_interface.h and tsan_interface_atomic.h, which g++ and clang++ both emit):
// plain reads and writes, atomics of 8 to 128 bits, fences, function entry and exit, vptr
// updates and initialisation. The annotations libraries call when they detect the sanitizer are
// in annotations.cpp.
//
// Outside a fiber run each does the plain operation. On a fiber of a run an atomic operation is
// a switch point of the schedule and an event of the trace (at the user's file:line), and a
// plain access feeds the run's data-race check. In a run, atomics follow the memory model the
// executor chose (docs/memory-model.md): the C++ model, where a load may read an older store
// and orders decide what synchronises, or seq_cst for every operation.
#include <array>
#include <cstring>
#include <link.h>
#include <type_traits>
#include <utility>
#include <vector>

#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"
#include "execute/instrumented/trial_heap.hpp"

// The 16-byte entry points do what the instrumented code asked for: a 16-byte atomic, through
// libatomic where the target has no instruction for it.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Watomic-alignment"
#endif

namespace duet::detail::instrumented {

constinit thread_local int t_ignore_accesses = 0;

namespace {

// This thread's thread-local storage blocks, one per module that has some (read once per
// thread: a fiber run stays on the thread that started it), and which are the C and C++
// runtimes' (errno, malloc's cache, std::call_once's callable): the thread's on every platform.
struct TlsBlocks {
  bool known = false;
  std::size_t count = 0;
  std::array<std::pair<std::uintptr_t, std::uintptr_t>, 32> ranges{};
  std::array<bool, 32> runtime{};
};
thread_local TlsBlocks t_tls;

int add_tls_block(dl_phdr_info* info, std::size_t, void* data) {
  auto* blocks = static_cast<TlsBlocks*>(data);
  if (info->dlpi_tls_data == nullptr || blocks->count == blocks->ranges.size()) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) {
      const auto lo = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
      blocks->runtime[blocks->count] = runtime_library(file_name(info->dlpi_name));
      blocks->ranges[blocks->count++] = {lo, lo + info->dlpi_phdr[i].p_memsz};
    }
  return 0;
}

}  // namespace

ThreadStorage thread_storage_of(const void* address) noexcept {
  // A fiber with storage of its own: its thread_locals are at addresses no other fiber has, and
  // another's reached through a pointer is shared memory like any other.
  if (fiber::host_thread_pointer() != nullptr) return ThreadStorage::none;
  TlsBlocks& t = t_tls;
  if (!t.known) {
    t.known = true;
    dl_iterate_phdr(add_tls_block, &t);
  }
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  for (std::size_t i = 0; i < t.count; ++i)
    if (a >= t.ranges[i].first && a < t.ranges[i].second)
      return t.runtime[i] ? ThreadStorage::runtime : ThreadStorage::subject;
  return ThreadStorage::none;
}

namespace {

using fiber::ObjectKind;
using fiber::Op;
using fiber::Value;

// The instrumentation passes every atomic as an integer of its size, pointers included. A
// 64-bit value whose low 48 bits are a user-space address is shown as a pointer (tagged pointers
// keep a counter in the high bits): traces then number pointers by appearance (p1, p2), the
// same in every run, instead of printing addresses that change from run to run and would make
// a replay look nondeterministic.
constexpr std::uint64_t kLowestAddress = 0x10000, kAddressLimit = 0x800000000000, kAddressBits = 0xFFFF'FFFF'FFFF;

template <class T>
Value value_of(T v) noexcept {
  if constexpr (sizeof(T) > sizeof(std::uint64_t)) {
    return {};  // 128-bit values are not shown
  } else if constexpr (sizeof(T) == sizeof(std::uint64_t)) {
    const auto bits = static_cast<std::uint64_t>(v);
    if ((bits & kAddressBits) >= kLowestAddress && (bits & kAddressBits) < kAddressLimit)
      return {bits, fiber::ValueType::pointer};
    return fiber::value_of(v);
  } else {
    return fiber::value_of(v);
  }
}

// The fast path of every entry point is one thread-local load and a test: outside a run
// nothing else happens. What a run needs is in the [[gnu::noinline]] functions below, which take
// the instrumented code's return address from their extern "C" caller.
inline bool in_some_run() noexcept { return fiber::t_runtime != nullptr; }

[[gnu::noinline]] void access(const void* address, std::size_t size, bool write, const void* pc) noexcept {
  const InRun rt = in_run();
  if (!rt || t_ignore_accesses > 0) return;
  switch (thread_storage_of(address)) {
    case ThreadStorage::none: check_access(*rt, address, size, write, pc); return;
    case ThreadStorage::subject: fiber::thread_storage_access(*rt, address, pc); return;
    case ThreadStorage::runtime: return;
  }
}

// ---- the standard library's waiter pool ----
// libstdc++ keeps, process-wide, a count of waiters and a proxy futex word for the waits behind
// std::atomic::wait, std::latch and std::barrier. Its updates are no events of the subject's
// (the futex wait and wake around them are), so they are done plainly; and a run leaves the
// pool as it found it: a fiber abandoned while it waited would stay counted, and the next run,
// a replay, would read other values than the run it replays.
struct Saved {
  volatile void* address;
  std::size_t size;
  std::uint64_t bits;
};
struct PoolSaves {
  std::vector<Saved> saved;  // the first value of each word a run changed
};
constinit thread_local PoolSaves* t_pool_saves = nullptr;

template <class T>
void save_before_change(volatile T* a) noexcept {
  if constexpr (sizeof(T) <= sizeof(std::uint64_t)) {
    PoolSaves& saves = fiber::host_shared(t_pool_saves);
    for (const Saved& s : saves.saved)
      if (s.address == a) return;
    const T now = __atomic_load_n(a, __ATOMIC_SEQ_CST);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &now, sizeof now);
    saves.saved.push_back({a, sizeof(T), bits});
  }
}

}  // namespace

void restore_waiter_pool() noexcept {
  PoolSaves* saves = t_pool_saves;  // the scheduling thread's own, after its run
  if (saves == nullptr) return;
  for (const Saved& s : saves->saved) {
    switch (s.size) {
      case 1:
        __atomic_store_n(static_cast<volatile std::uint8_t*>(s.address), static_cast<std::uint8_t>(s.bits),
                         __ATOMIC_SEQ_CST);
        break;
      case 2:
        __atomic_store_n(static_cast<volatile std::uint16_t*>(s.address), static_cast<std::uint16_t>(s.bits),
                         __ATOMIC_SEQ_CST);
        break;
      case 4:
        __atomic_store_n(static_cast<volatile std::uint32_t*>(s.address), static_cast<std::uint32_t>(s.bits),
                         __ATOMIC_SEQ_CST);
        break;
      default: __atomic_store_n(static_cast<volatile std::uint64_t*>(s.address), s.bits, __ATOMIC_SEQ_CST); break;
    }
  }
  saves->saved.clear();
}

namespace {

template <class T>
[[gnu::noinline]] T load_in_run(const volatile T* a, int mo, const void* pc) noexcept {
  if (const InRun rt = in_run()) {
    const PcInfo at = pc_info(pc);
    if (at.waiter_pool) return __atomic_load_n(a, __ATOMIC_SEQ_CST);
    fiber::enter(*rt, Op::load, ObjectKind::atomic, const_cast<const T*>(a), order_of(mo), at.location);
    const T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);
    // Under the C++ memory model the load may read an older store than memory holds.
    const Value latest = value_of(v);
    const Value read = fiber::load(*rt, latest);
    if constexpr (sizeof(T) <= sizeof(std::uint64_t))
      if (read != latest) return static_cast<T>(read.bits);
    return v;
  }
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}

template <class T>
T load(const volatile T* a, int mo, const void* pc) noexcept {
  if (in_some_run()) [[unlikely]]
    return load_in_run(a, mo, pc);
  if (mo == __ATOMIC_RELAXED) return __atomic_load_n(a, __ATOMIC_RELAXED);
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}

template <class T>
[[gnu::noinline]] bool store_in_run(volatile T* a, T v, int mo, const void* pc) noexcept {
  const InRun rt = in_run();
  if (!rt) return false;
  const PcInfo at = pc_info(pc);
  if (at.waiter_pool) {
    save_before_change(a);
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
    return true;
  }
  fiber::enter(*rt, Op::store, ObjectKind::atomic, const_cast<const T*>(a), order_of(mo), at.location);
  const T before = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
  fiber::leave(*rt, Op::store, value_of(before), value_of(v));
  return true;
}

template <class T>
void store(volatile T* a, T v, int mo, const void* pc) noexcept {
  if (in_some_run()) [[unlikely]]
    if (store_in_run(a, v, mo, pc)) return;
  // A seq_cst store costs a fence on x86; the weaker ones must not pay it.
  if ((mo & 0xffff) == __ATOMIC_SEQ_CST) __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
  else __atomic_store_n(a, v, __ATOMIC_RELEASE);
}

enum class Rmw { exchange, add, sub, and_, or_, xor_, nand };

template <Rmw K, class T>
T apply(volatile T* a, T v) noexcept {
  if constexpr (K == Rmw::exchange) return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::add) return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::sub) return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::and_) return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::or_) return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::xor_) return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);
  if constexpr (K == Rmw::nand) return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);
}

template <Rmw K, class T>
[[gnu::noinline]] T rmw_in_run(volatile T* a, T v, int mo, const void* pc) noexcept {
  if (const InRun rt = in_run()) {
    const PcInfo at = pc_info(pc);
    if (at.waiter_pool) {
      save_before_change(a);
      return apply<K>(a, v);
    }
    fiber::enter(*rt, Op::rmw, ObjectKind::atomic, const_cast<const T*>(a), order_of(mo), at.location);
    const T old = apply<K>(a, v);
    fiber::leave(*rt, Op::rmw, value_of(old), value_of(__atomic_load_n(a, __ATOMIC_RELAXED)));
    return old;
  }
  return apply<K>(a, v);
}

template <Rmw K, class T>
T rmw(volatile T* a, T v, int mo, const void* pc) noexcept {
  if (in_some_run()) [[unlikely]]
    return rmw_in_run<K>(a, v, mo, pc);
  return apply<K>(a, v);
}

// Compare-exchange: true when *a held *expected (then it holds desired); else *expected gets
// the value found. Weak ones never fail spuriously here.
template <class T>
[[gnu::noinline]] bool cas_in_run(volatile T* a, T* expected, T desired, int mo, const void* pc) noexcept {
  if (const InRun rt = in_run()) {
    const PcInfo at = pc_info(pc);
    if (at.waiter_pool) {
      save_before_change(a);
      return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    fiber::enter(*rt, Op::cas, ObjectKind::atomic, const_cast<const T*>(a), order_of(mo), at.location);
    const T hoped = *expected;
    if (__atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      fiber::leave(*rt, Op::cas, value_of(hoped), value_of(desired));
      return true;
    }
    fiber::leave(*rt, Op::cas_fail, value_of(*expected));
    return false;
  }
  return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

template <class T>
bool cas(volatile T* a, T* expected, T desired, int mo, const void* pc) noexcept {
  if (in_some_run()) [[unlikely]]
    return cas_in_run(a, expected, desired, mo, pc);
  return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

[[gnu::noinline]] bool fence_in_run(int mo, const void* pc) noexcept {
  const InRun rt = in_run();
  if (!rt) return false;
  const PcInfo at = pc_info(pc);
  if (!at.waiter_pool) fiber::fence(*rt, order_of(mo), at.location);
  return true;
}

// A compare-exchange's two orders as one (fiber::cas_order), in the instrumentation's numbering.
int cas_mo(int mo, int fmo) noexcept { return static_cast<int>(fiber::cas_order(order_of(mo), order_of(fmo))); }

void fence(int mo, const void* pc) noexcept {
  if (in_some_run()) [[unlikely]]
    if (fence_in_run(mo, pc)) return;
  // Outside a run the fence is the program's own: on arm64, ppc64el and s390x an acquire or a
  // release fence is an instruction (on x86 none, as the compiler emits it).
  if ((mo & 0xffff) == __ATOMIC_SEQ_CST) __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if ((mo & 0xffff) != __ATOMIC_RELAXED) __atomic_thread_fence(__ATOMIC_ACQ_REL);
}

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
#define DUET_PC __builtin_return_address(0)
// A plain access: nothing but a thread-local test outside a run.
#define DUET_ACCESS(a, n, write, pc) \
  if (in_some_run()) [[unlikely]]    \
  access(a, n, write, pc)

extern "C" {

// ---- initialisation, functions, vptrs ----
void __tsan_init() {
  install_symbolizer();
  install_trial_heap();
  wrap_uninstrumented_calls();
  duet::detail::fiber::install_instrument_hooks({run_thread_exit_list, restore_waiter_pool});
}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void** vptr, void* value) {
  if (*vptr != value) DUET_ACCESS(vptr, sizeof(void*), true, DUET_PC);
}
void __tsan_vptr_read(void** vptr) { DUET_ACCESS(vptr, sizeof(void*), false, DUET_PC); }

// ---- plain accesses ----
#define DUET_PLAIN(N)                                                                    \
  void __tsan_read##N(void* a) { DUET_ACCESS(a, N, false, DUET_PC); }                    \
  void __tsan_write##N(void* a) { DUET_ACCESS(a, N, true, DUET_PC); }                    \
  void __tsan_unaligned_read##N(void* a) { DUET_ACCESS(a, N, false, DUET_PC); }          \
  void __tsan_unaligned_write##N(void* a) { DUET_ACCESS(a, N, true, DUET_PC); }          \
  void __tsan_volatile_read##N(void* a) { DUET_ACCESS(a, N, false, DUET_PC); }           \
  void __tsan_volatile_write##N(void* a) { DUET_ACCESS(a, N, true, DUET_PC); }           \
  void __tsan_unaligned_volatile_read##N(void* a) { DUET_ACCESS(a, N, false, DUET_PC); } \
  void __tsan_unaligned_volatile_write##N(void* a) { DUET_ACCESS(a, N, true, DUET_PC); } \
  void __tsan_read##N##_pc(void* a, void* pc) { DUET_ACCESS(a, N, false, pc); }          \
  void __tsan_write##N##_pc(void* a, void* pc) { DUET_ACCESS(a, N, true, pc); }
DUET_PLAIN(1)
DUET_PLAIN(2)
DUET_PLAIN(4)
DUET_PLAIN(8)
DUET_PLAIN(16)
#undef DUET_PLAIN
void __tsan_read_range(void* a, unsigned long size) { DUET_ACCESS(a, size, false, DUET_PC); }
void __tsan_write_range(void* a, unsigned long size) { DUET_ACCESS(a, size, true, DUET_PC); }
void __tsan_read_range_pc(void* a, unsigned long size, void* pc) { DUET_ACCESS(a, size, false, pc); }
void __tsan_write_range_pc(void* a, unsigned long size, void* pc) { DUET_ACCESS(a, size, true, pc); }
// Memory intrinsics, for compilers that route them to the sanitizer.
void* __tsan_memcpy(void* d, const void* s, unsigned long n) {
  access(s, n, false, DUET_PC);
  access(d, n, true, DUET_PC);
  return std::memcpy(d, s, n);
}
void* __tsan_memmove(void* d, const void* s, unsigned long n) {
  access(s, n, false, DUET_PC);
  access(d, n, true, DUET_PC);
  return std::memmove(d, s, n);
}
void* __tsan_memset(void* d, int c, unsigned long n) {
  access(d, n, true, DUET_PC);
  return std::memset(d, c, n);
}

// ---- atomics ----
#define DUET_ATOMIC(N, T)                                                                                     \
  T __tsan_atomic##N##_load(const volatile T* a, int mo) { return load(a, mo, DUET_PC); }                     \
  void __tsan_atomic##N##_store(volatile T* a, T v, int mo) { store(a, v, mo, DUET_PC); }                     \
  T __tsan_atomic##N##_exchange(volatile T* a, T v, int mo) { return rmw<Rmw::exchange>(a, v, mo, DUET_PC); } \
  T __tsan_atomic##N##_fetch_add(volatile T* a, T v, int mo) { return rmw<Rmw::add>(a, v, mo, DUET_PC); }     \
  T __tsan_atomic##N##_fetch_sub(volatile T* a, T v, int mo) { return rmw<Rmw::sub>(a, v, mo, DUET_PC); }     \
  T __tsan_atomic##N##_fetch_and(volatile T* a, T v, int mo) { return rmw<Rmw::and_>(a, v, mo, DUET_PC); }    \
  T __tsan_atomic##N##_fetch_or(volatile T* a, T v, int mo) { return rmw<Rmw::or_>(a, v, mo, DUET_PC); }      \
  T __tsan_atomic##N##_fetch_xor(volatile T* a, T v, int mo) { return rmw<Rmw::xor_>(a, v, mo, DUET_PC); }    \
  T __tsan_atomic##N##_fetch_nand(volatile T* a, T v, int mo) { return rmw<Rmw::nand>(a, v, mo, DUET_PC); }   \
  int __tsan_atomic##N##_compare_exchange_strong(volatile T* a, T* c, T v, int mo, int fmo) {                 \
    return cas(a, c, v, cas_mo(mo, fmo), DUET_PC);                                                            \
  }                                                                                                           \
  int __tsan_atomic##N##_compare_exchange_weak(volatile T* a, T* c, T v, int mo, int fmo) {                   \
    return cas(a, c, v, cas_mo(mo, fmo), DUET_PC);                                                            \
  }                                                                                                           \
  T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo) {                       \
    cas(a, &c, v, cas_mo(mo, fmo), DUET_PC);                                                                  \
    return c;                                                                                                 \
  }
DUET_ATOMIC(8, char)
DUET_ATOMIC(16, short)
DUET_ATOMIC(32, int)
DUET_ATOMIC(64, long)
__extension__ typedef __int128 duet_int128;
DUET_ATOMIC(128, duet_int128)
#undef DUET_ATOMIC
void __tsan_atomic_thread_fence(int mo) { fence(mo, DUET_PC); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

}  // extern "C"
