// duet::instrument's internals: code compiled with the compiler's thread-sanitizer
// instrumentation (-fsanitize=thread, linked without the sanitizer's runtime) calls the
// __tsan_* entry points of hooks.cpp, and the pthread, futex, clock and sleep calls of
// interpose.cpp (threads.cpp, barriers_semaphores.cpp and virtual_time.cpp beside it) reach
// duet before the C library. Outside a fiber run every one of them does the
// plain operation; on a fiber of a run they become the scheduler's operations
// (src/execute/fibers/), so code written with std::atomic, std::mutex and std::thread is
// interleaved, replayed and shrunk like code written with duet/sync.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string_view>
#include <dlfcn.h>

#include "duet/detail/source_location.hpp"
#include "execute/fibers/instrumented.hpp"

namespace duet::detail::instrumented {

/// The C library's definition of `name` (the next one after the executable's), looked up once
/// into `slot`: what an interposed function calls outside a run.
template <class F>
F* real(std::atomic<void*>& slot, const char* name, const char* version = nullptr) noexcept {
  void* p = slot.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : nullptr;
    // A glibc port newer than the version (aarch64 and ppc64le start at GLIBC_2.17) has only
    // today's symbol, which the unversioned lookup finds.
    if (p == nullptr) p = dlsym(RTLD_NEXT, name);
    slot.store(p, std::memory_order_release);
  }
  return reinterpret_cast<F*>(p);
}

/// In an interposed function `name`: `next`, the C library's `name` (an optional symbol version
/// after the name).
#define DUET_REAL(name, ...)                  \
  static std::atomic<void*> duet_real_slot{}; \
  auto* const next = ::duet::detail::instrumented::real<decltype(::name)>(duet_real_slot, #name __VA_OPT__(, ) __VA_ARGS__)

/// In an interposed function: the file:line of the code that called it.
#define DUET_HERE ::duet::detail::instrumented::location_of_caller(__builtin_return_address(0))

/// Marks duet's own code running on this thread (fiber::t_in_runtime): what it calls (the
/// unwinder's locks, instrumented copies of inline functions) is duet's, not the subject's.
struct InDuet {
  InDuet() noexcept { ++fiber::t_in_runtime; }
  ~InDuet() { --fiber::t_in_runtime; }
  InDuet(const InDuet&) = delete;
  InDuet& operator=(const InDuet&) = delete;
};

/// The run whose fiber is running the subject's code on this thread, or null: outside a run, in
/// the scheduler between picks, or inside duet's own handling of an operation.
inline fiber::Runtime* active() noexcept {
  fiber::Runtime* rt = fiber::t_runtime;
  if (rt == nullptr) [[likely]]
    return nullptr;
  return fiber::t_in_runtime == 0 && fiber::on_fiber(*rt) ? rt : nullptr;
}

/// A lock of duet's own that never goes through the interposed pthread functions (it is taken
/// on fibers, and by threads outside any run).
class SpinLock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_;
};

/// active(), holding InDuet while it is in scope: an entry point's handling of an operation.
///   if (const InRun rt = in_run()) fiber::lock(*rt, ...);
class InRun {
 public:
  InRun() noexcept : rt_(active()) {
    if (rt_ != nullptr) ++fiber::t_in_runtime;
  }
  ~InRun() {
    if (rt_ != nullptr) --fiber::t_in_runtime;
  }
  InRun(const InRun&) = delete;
  InRun& operator=(const InRun&) = delete;
  explicit operator bool() const noexcept { return rt_ != nullptr; }
  fiber::Runtime& operator*() const noexcept { return *rt_; }

 private:
  fiber::Runtime* rt_;
};
inline InRun in_run() noexcept { return {}; }

/// The memory order an instrumented call passes (the compilers pass C11's numbering, which
/// std::memory_order shares; GCC may add HLE bits above it).
inline std::memory_order order_of(int mo) noexcept { return static_cast<std::memory_order>(mo & 0xffff); }

/// What duet knows of the instrumented code at `pc` (a return address into it), cached per
/// address: its file:line (see location_of), and whether it is the standard library's waiter
/// pool, whose bookkeeping is no event of the subject's (see hooks.cpp).
struct PcInfo {
  duet::source_location location{};
  bool waiter_pool = false;
};
PcInfo pc_info(const void* pc) noexcept;

/// file:line of instrumented code at `pc` (a return address into it), skipping the standard
/// library's inlined frames so that std::atomic's members point at the user's line. Cached per
/// address. Empty when the address has no line information.
duet::source_location location_of(const void* pc) noexcept;
/// The same for a call that may come through the standard library's compiled code (a
/// condition_variable wait reaches pthread_cond_wait from libstdc++.so): when `pc` has no line,
/// the first frame of the calling stack that has one.
duet::source_location location_of_caller(const void* pc) noexcept;
/// Points every call of an instrumented module into a library that was not instrumented at a
/// stub that makes the call a synchronising black box in a run (uninstrumented.cpp). Run when
/// an instrumented module starts; calls already wrapped stay so.
void wrap_uninstrumented_calls() noexcept;
/// The running fiber (just started, at `frame`) runs a thread function that a library started:
/// all of it is the library's code, as if called at `frame`.
void enter_library(fiber::Runtime& rt, const void* frame) noexcept;
/// Installs location_of as the fiber runtime's symboliser (idempotent).
void install_symbolizer() noexcept;
/// Runs and empties the calling fiber's list of thread_local destructors, then its
/// thread-specific data's (threads.cpp).
void run_thread_exit_list() noexcept;
/// On a fiber of a run whose function returns: the destructors of its thread-specific data
/// (pthread keys), as a thread's exit runs them (thread_specific.cpp).
void run_thread_specific_destructors() noexcept;
/// Puts back what runs changed in the standard library's waiter pool (hooks.cpp).
void restore_waiter_pool() noexcept;

/// Where fibers share their thread's storage: whether that storage holds `address`, and whose
/// (a subject module's, or the C and C++ runtimes'). Accesses to it are no races between
/// fibers; a subject's are watched (fibers/shared_storage.hpp). Always none for a fiber with
/// storage of its own.
enum class ThreadStorage : unsigned char { none, subject, runtime };
/// A shared object's file name, without its directory.
std::string_view file_name(const char* path);
/// The C and C++ runtimes and duet's own dependencies (by file name): what they do, duet
/// interposes or owns, and what they keep per thread is the thread's.
bool runtime_library(std::string_view name);
ThreadStorage thread_storage_of(const void* address) noexcept;

/// Plain accesses are ignored while this is nonzero (the sanitizer's "ignore" annotations).
extern constinit thread_local int t_ignore_accesses;

/// fiber::memory_access for the parts of [address, address + size) on which no benign race was
/// declared (AnnotateBenignRaceSized, annotations.cpp).
void check_access(fiber::Runtime& rt, const void* address, std::size_t size, bool write, const void* pc) noexcept;
/// The heap block at `block` is freed: benign races declared on it are forgotten (the memory's
/// next object is another). Nothing but a test while no benign race is declared.
void forget_benign_races(const void* block) noexcept;

/// The current virtual time on clock `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME, ...), in
/// nanoseconds: a run's clocks read virtual time, so that timed waits and sleeps are decided by
/// the scheduler, replay exactly, and never wait for real.
std::int64_t virtual_now_ns(int clock) noexcept;
/// A timed wait's timeout in virtual nanoseconds (fiber::kNoTimeout for a null one): until the
/// absolute `deadline` on `clock`, or the relative `t`.
std::uint64_t until(clockid_t clock, const timespec* deadline);
std::uint64_t relative(const timespec* t);
/// A futex wait on a fiber: blocks while `*address` is `expected`, at most `timeout` virtual
/// nanoseconds (-1 with errno EAGAIN where it is not, ETIMEDOUT when the time passed).
long futex_wait(fiber::Runtime& rt, int* address, int expected, std::uint64_t timeout, duet::source_location loc);

/// free(p) as the C library does it; in a run, first a check that no other fiber's access to
/// the memory is unordered before it (`pc`: where it was freed).
void free_from(void* p, const void* pc) noexcept;
/// The memory [p, p + size) is being freed while this thread runs a fiber run: by the subject's
/// code on a fiber, checked as free_from says; by anyone, its objects are forgotten.
/// False when the memory must be kept rather than freed (see fiber::memory_freed).
bool released(const void* p, std::size_t size, const void* pc) noexcept;

}  // namespace duet::detail::instrumented
