// What compiler-instrumented code (src/execute/instrumented/, duet::instrument) asks of the fiber
// runtime beyond the hooks of duet/detail/fiber_hooks.hpp: plain memory accesses for the
// data-race check, timed locks, and the symboliser that turns code addresses into file:line.
// Internal: users' headers never see it.
#pragma once

#include <vector>

#include <cstddef>
#include <cstdint>

#include "duet/detail/fiber_hooks.hpp"

namespace duet::detail::fiber {

/// Nonzero while duet's own code runs on this thread on behalf of an instrumented operation (and
/// in the scheduler between picks); zero while the subject's code runs. Instrumented entry
/// points do nothing special while it is nonzero: duet's code, compiled plainly, may still call
/// the instrumented copy of an inline function (std::min, std::vector's members), which the
/// linker shares between the two. Every fiber switch happens inside duet's code, so one counter
/// per thread serves all its fibers; a fiber's function starts with it at zero.
extern constinit thread_local int t_in_runtime;

/// Around the subject's code that duet's own code calls while t_in_runtime is nonzero (duet::Lin's
/// oracle runs the candidate from within its search, which is duet's code in the oracle's own
/// fiber run): the subject's, as in a branch. Nothing where t_in_runtime is zero already.
class SubjectsCode {
 public:
  SubjectsCode() noexcept : was_(t_in_runtime) { t_in_runtime = 0; }
  ~SubjectsCode() { t_in_runtime = was_; }
  SubjectsCode(const SubjectsCode&) = delete;
  SubjectsCode& operator=(const SubjectsCode&) = delete;

 private:
  int was_;
};

/// True when the calling code runs on a fiber of the run (not in the scheduler between picks).
bool on_fiber(Runtime&) noexcept;
/// The calling fiber's number.
std::uint32_t fiber_number(Runtime&) noexcept;
/// The current run's number among every fiber run of the process: what a run's own state, kept
/// per thread, is keyed on (one runtime's count would repeat another's).
std::uint64_t run_number(Runtime&) noexcept;
/// The calling fiber holds `mutex` exclusively (a rwlock's unlock says which lock it ends).
bool owns(Runtime&, const void* mutex) noexcept;

/// What the kernel did for fibers that wait on it (outside_wake): made something ready they
/// wait for (they were woken), nothing it could (a deadlock), or nothing it was seen to do, though
/// something outside the run might still (no verdict: `text` says why).
struct OutsideWake {
  enum class Kind { woke, nothing, not_seen } kind = Kind::nothing;
  const char* text = "";  // not_seen: why, a text that lives as long as the process
};
/// Asked when no fiber of a run can go on and none waits with a timeout, before the run ends as
/// a deadlock: whether something the scheduler does not see (the kernel, which may have made a
/// descriptor ready that a fiber waits for: instrumented/descriptors.cpp) woke a fiber.
/// Null: never asked.
using OutsideWakeHook = OutsideWake (*)(Runtime&) noexcept;
void set_outside_wake(OutsideWakeHook hook) noexcept;
OutsideWakeHook outside_wake() noexcept;

/// Like lock(), but gives up after `timeout_ns` of virtual time (kNoTimeout: never): false then.
bool timed_lock(Runtime&, ObjectKind kind, const void* mutex, bool shared, std::uint64_t timeout_ns,
                duet::source_location loc) noexcept;

/// A plain (non-atomic) access of `size` bytes at `address` by the running fiber: not a switch
/// point, but checked for data races against the accesses of other fibers (happens-before
/// through the run's atomics, locks and spawns). `pc` is the instrumented code's address,
/// symbolised only when a race is reported.
void memory_access(Runtime&, const void* address, std::size_t size, bool write, const void* pc) noexcept;
/// An instrumented access to the thread-local storage that the run's fibers share with their
/// thread (a subject module's): no race between fibers, but watched (shared_storage.hpp).
void thread_storage_access(Runtime&, const void* address, const void* pc) noexcept;
/// The memory [address, address + size) was freed: its past accesses no longer race with the
/// next owner's.
/// `pc`: the code that freed it (the caller of free or operator delete).
/// False when the memory must not be given back to the allocator (a fiber may still use it: the
/// run is draining after a data race, drain.cpp); it is then kept, never reused.
bool memory_freed(Runtime&, const void* address, std::size_t size, const void* pc) noexcept;

/// The memory [address, address + size) was freed in a run, but not by the subject's code on a
/// fiber (duet's own code, the scheduler): the objects in it are forgotten all the same, so that
/// the next object allocated there is numbered as a new one.
void memory_released(Runtime&, const void* address, std::size_t size) noexcept;

/// The running fiber calls into `library`, which was not instrumented (a name that lives as
/// long as the process): the run's result lists it (RunResult::libraries).
void called_library(Runtime&, const char* library) noexcept;

/// Code of this process was compiled with atomics in inline assembly, which the instrumentation
/// cannot see (`what`: whose, a name that lives as long as the process): every fiber check's
/// pass and failure says so. The names noted so far, in the order noted.
void note_inline_assembly(const char* what) noexcept;
std::vector<const char*> inline_assembly_noted();

/// A call into code that was not instrumented, at its entry and at its return: the running fiber
/// acquires every clock a fiber of the run has released so far (uninstrumented.cpp says why).
void acquire_everything_released(Runtime&) noexcept;
/// The running fiber's outermost call into uninstrumented code: the frame its mark was made in,
/// or null (uninstrumented.cpp keeps it).
const void*& library_frame(Runtime&) noexcept;
/// The running fiber is in a call into uninstrumented code at `frame` (an address on its stack,
/// of the caller's frame): the library's own code, or instrumented code it called back.
bool in_library_call(Runtime&, const void* frame) noexcept;
/// Calls into uninstrumented code are seen in this process (some were wrapped): runs keep what
/// their fibers release for those calls to acquire. Set once, by wrap_uninstrumented_calls.
void note_library_calls_seen() noexcept;
bool library_calls_seen() noexcept;
/// Fiber runs of this process so far that called into uninstrumented code: what such a library
/// keeps in its globals (an id counter hashed into which lock a call takes, a pool it believes
/// is running) has changed, and a later run starts from it (engine/clean_child.hpp).
void count_run_in_libraries() noexcept;
std::uint64_t runs_in_libraries() noexcept;

/// Happens-before the subject declares with the sanitizer's annotations (AnnotateHappensBefore,
/// __tsan_release, a lock's annotated unlock): the running fiber's clock is left at `address`
/// for the next acquire there (AnnotateHappensAfter, __tsan_acquire, an annotated lock), which
/// takes it. Neither is a switch point or a trace line (see annotations.cpp). `shared`: a read
/// lock's release, which only an exclusive acquire takes, or a read lock's acquire.
void annotate_release(Runtime&, const void* address, bool shared) noexcept;
void annotate_acquire(Runtime&, const void* address, bool shared) noexcept;
/// A new lock (or queue, barrier) at `address`: no release before it reaches an acquire there.
void annotate_forget(Runtime&, const void* address) noexcept;

/// Turns an instrumented code address into file:line for reports (set by duet::instrument).
using Symbolizer = duet::source_location (*)(const void* pc) noexcept;
void set_symbolizer(Symbolizer) noexcept;
duet::source_location symbolize(const void* pc) noexcept;
/// The symboliser's cache outlives a fork only forward: a process forked before the check's
/// first case (engine/clean_child.cpp) starts cold, and its workers would each read the DWARF
/// again (about 0.3 s a process). A worker hands back what it symbolised; its parent symbolises
/// the same addresses, so that the next worker starts warm.
using SymbolizedAddresses = std::vector<const void*> (*)();
void set_symbolized_addresses(SymbolizedAddresses) noexcept;
/// The code addresses symbolised so far in this process (empty without duet::instrument).
std::vector<const void*> symbolized_addresses();
/// Symbolises `pcs` now, so that they are cached here and in processes forked from here.
void symbolize_ahead(const std::vector<const void*>& pcs) noexcept;

/// The trial heap (duet::instrument's, src/execute/instrumented/trial_heap.cpp): in a trial's
/// process of its own (execute/trial_process.hpp), memory comes from an arena that no earlier
/// allocation of the process shaped, mapped at the same address in every trial's process, so
/// that a library that hashes addresses into its choices (which lock stripe a cache entry
/// takes) chooses alike in the search and in every replay. `prepare`, in the process that forks
/// the trials, maps the arena (once; untouched there); `begin`, in a trial's process, serves
/// the subject's allocations from it from then on. Without duet::instrument both do nothing.
struct TrialHeap {
  void (*prepare)() noexcept = nullptr;
  void (*begin)() noexcept = nullptr;
};
void set_trial_heap(TrialHeap heap) noexcept;
void prepare_trial_heap() noexcept;
void begin_trial_heap() noexcept;

/// What duet::instrument adds to every run (installed at its start-up). Installing them gives
/// fibers thread-local storage and a thread identity of their own
/// (SchedulerConfig::own_thread_locals).
struct InstrumentHooks {
  /// On a fiber with storage of its own, when its function returns, as the subject's code: the
  /// destructors of its thread_local variables.
  void (*at_thread_exit)() noexcept = nullptr;
  /// On the scheduling thread after each run: process-wide state the run borrowed goes back.
  void (*at_run_end)() noexcept = nullptr;
};
void install_instrument_hooks(InstrumentHooks) noexcept;
bool own_thread_locals_enabled() noexcept;
/// Run the installed hooks, if any (Runtime::fiber_main, Runtime::run).
void run_thread_exit() noexcept;
void run_end() noexcept;
/// pthread_self() on fiber `fiber` of the run: its own thread pointer; null when the fibers
/// share their thread's storage.
void* thread_id(Runtime&, std::uint32_t fiber) noexcept;
/// Fiber `fiber` is a joinable thread's: its slot (and so its pthread_t) is not given to a new
/// thread until it is joined or detached (awaits = false).
void await_join(Runtime&, std::uint32_t fiber, bool awaits) noexcept;

/// Decides whether a race between plain accesses at these two code addresses is reported (set
/// by duet::ignore_races_in); without one, every race is.
using RaceFilter = bool (*)(const void* pc_earlier, const void* pc_now) noexcept;
void set_race_filter(RaceFilter) noexcept;

}  // namespace duet::detail::fiber
