// What the fiber hooks keep for the whole process rather than per run: the libraries seen
// called and the runs that called them, inline assembly noted by instrumented modules, the
// runtime's own-work depth, and the functions installed by duet_instrument's runtime (thread
// exit and run end, the trial heap, the symbolizer and the race filter).
#include <atomic>
#include <string_view>
#include <vector>

#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

#include "duet/detail/api/erased_value.hpp"

namespace duet::detail::fiber {

namespace {
constinit std::atomic<bool> g_library_calls_seen{false};
}  // namespace
void note_library_calls_seen() noexcept { g_library_calls_seen.store(true, std::memory_order_relaxed); }
bool library_calls_seen() noexcept { return g_library_calls_seen.load(std::memory_order_relaxed); }

namespace {
constinit std::atomic<std::uint64_t> g_runs_in_libraries{0};
}
void count_run_in_libraries() noexcept { g_runs_in_libraries.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t runs_in_libraries() noexcept { return g_runs_in_libraries.load(std::memory_order_relaxed); }

namespace {
// Noted by constructors of instrumented modules (cmake/ports/ck_pr.h), read by every check.
constexpr std::size_t kAssemblyNotes = 8;
constinit std::atomic<const char*> g_assembly_notes[kAssemblyNotes]{};
}  // namespace
void note_inline_assembly(const char* what) noexcept {
  for (auto& slot : g_assembly_notes) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, what) || std::string_view(empty) == what) return;
  }
}
std::vector<const char*> inline_assembly_noted() {
  std::vector<const char*> noted;
  for (const auto& slot : g_assembly_notes)
    if (const char* what = slot.load(std::memory_order_acquire)) noted.push_back(what);
  return noted;
}

constinit thread_local int t_in_runtime = 0;

}  // namespace duet::detail::fiber

namespace duet::detail {
OwnWork::OwnWork() noexcept { ++fiber::t_in_runtime; }
OwnWork::~OwnWork() { --fiber::t_in_runtime; }
}  // namespace duet::detail

namespace duet::detail::fiber {

namespace {
std::atomic<Symbolizer> g_symbolizer{nullptr};
std::atomic<SymbolizedAddresses> g_symbolized{nullptr};
std::atomic<RaceFilter> g_race_filter{nullptr};
using Hook = void (*)() noexcept;
std::atomic<Hook> g_thread_exit{nullptr};
std::atomic<Hook> g_run_end{nullptr};
}  // namespace
void install_instrument_hooks(InstrumentHooks h) noexcept {
  g_run_end.store(h.at_run_end);
  g_thread_exit.store(h.at_thread_exit);
}
bool own_thread_locals_enabled() noexcept { return g_thread_exit.load(std::memory_order_relaxed) != nullptr; }
void run_thread_exit() noexcept {
  if (const Hook f = g_thread_exit.load(std::memory_order_relaxed)) f();
}
void run_end() noexcept {
  if (const Hook f = g_run_end.load(std::memory_order_relaxed)) f();
}
void* thread_id(Runtime& rt, std::uint32_t fiber) noexcept { return rt.thread_id(fiber); }
void await_join(Runtime& rt, std::uint32_t fiber, bool awaits) noexcept { rt.await_join(fiber, awaits); }
void set_symbolizer(Symbolizer s) noexcept { g_symbolizer.store(s); }
namespace {
std::atomic<void (*)() noexcept> g_trial_heap_prepare{nullptr}, g_trial_heap_begin{nullptr};
}  // namespace
void set_trial_heap(TrialHeap heap) noexcept {
  g_trial_heap_prepare.store(heap.prepare);
  g_trial_heap_begin.store(heap.begin);
}
void prepare_trial_heap() noexcept {
  if (const auto f = g_trial_heap_prepare.load(std::memory_order_relaxed)) f();
}
void begin_trial_heap() noexcept {
  if (const auto f = g_trial_heap_begin.load(std::memory_order_relaxed)) f();
}
void set_symbolized_addresses(SymbolizedAddresses f) noexcept { g_symbolized.store(f); }
std::vector<const void*> symbolized_addresses() {
  const SymbolizedAddresses f = g_symbolized.load(std::memory_order_relaxed);
  return f != nullptr ? f() : std::vector<const void*>{};
}
void symbolize_ahead(const std::vector<const void*>& pcs) noexcept {
  for (const void* pc : pcs) symbolize(pc);
}
void set_race_filter(RaceFilter f) noexcept { g_race_filter.store(f); }
bool race_reported(const void* pc_earlier, const void* pc_now) noexcept {
  const RaceFilter f = g_race_filter.load(std::memory_order_relaxed);
  return f == nullptr || f(pc_earlier, pc_now);
}
duet::source_location symbolize(const void* pc) noexcept {
  const Symbolizer s = g_symbolizer.load(std::memory_order_relaxed);
  return s != nullptr && pc != nullptr ? s(pc) : duet::source_location{};
}

}  // namespace duet::detail::fiber
