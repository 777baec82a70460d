// file:line for the instrumented code's addresses, from the DWARF line tables (libbacktrace,
// shipped with GCC), cached per address so that symbolising never dominates a run. Without
// libbacktrace (DUET_HAVE_BACKTRACE unset) locations are empty and reports fall back to the
// operation and object alone.
#include <bit>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "duet/instrument.hpp"
#include "execute/instrumented/instrumented.hpp"

#if DUET_HAVE_BACKTRACE
#include <backtrace.h>
#endif

namespace duet::detail::instrumented {
namespace {

// The layout __builtin_source_location() gives std::source_location's implementation (GCC and
// Clang document it): a source_location of our own making is a pointer to one of these.
struct LocationImpl {
  const char* file;
  const char* function;
  unsigned line;
  unsigned column;
};

duet::source_location make_location(const LocationImpl* impl) noexcept {
#if defined(__cpp_lib_source_location)
  static_assert(sizeof(std::source_location) == sizeof(const LocationImpl*));
  return std::bit_cast<std::source_location>(impl);
#else
  return duet::source_location::current(impl->file, impl->function, impl->line, impl->column);
#endif
}

}  // namespace

namespace {

struct Cache {
  SpinLock lock;
  std::unordered_map<const void*, PcInfo> by_pc;
  std::unordered_map<std::string, duet::source_location> by_place;  // "file:line:function"
  std::unordered_set<std::string> strings;  // file and function names, interned
  std::deque<LocationImpl> impls;           // stable addresses
#if DUET_HAVE_BACKTRACE
  backtrace_state* state = nullptr;
#endif
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: fibers of a late run may still symbolise
  return *c;
}

// The standard library's own headers: their inlined frames are skipped, so that an atomic's
// member function reports the line of the code that called it.
bool standard_library(const char* file) {
  return std::strstr(file, "/c++/") != nullptr || std::strstr(file, "/bits/") != nullptr ||
         std::strstr(file, "/lib/gcc/") != nullptr;
}

// The standard library's waiter pool (libstdc++'s bits/atomic_wait.h and atomic_timed_wait.h):
// the count of waiters and the proxy futex word behind std::atomic::wait, latch and barrier.
bool waiter_pool(const char* file) {
  return std::strstr(file, "bits/atomic_wait.h") != nullptr || std::strstr(file, "bits/atomic_timed_wait.h") != nullptr;
}

#if DUET_HAVE_BACKTRACE
struct Found {
  const char* file = nullptr;
  const char* function = nullptr;
  int line = 0;
  bool innermost_in_waiter_pool = false;
  bool first = true;
};

void ignore_error(void*, const char*, int) {}

// libbacktrace reports the innermost inlined frame first: keep the first outside the standard
// library.
int take_frame(void* data, std::uintptr_t, const char* file, int line, const char* function) {
  auto* found = static_cast<Found*>(data);
  if (file == nullptr || line <= 0) return 0;
  if (std::exchange(found->first, false)) found->innermost_in_waiter_pool = waiter_pool(file);
  if (standard_library(file) && found->file != nullptr) return 0;
  const bool skip = standard_library(file);
  found->file = file;
  found->function = function;
  found->line = line;
  return skip ? 0 : 1;
}

int take_stack_frame(void* data, std::uintptr_t, const char* file, int line, const char* function) {
  auto* found = static_cast<Found*>(data);
  if (file == nullptr || line <= 0 || standard_library(file)) return 0;
  found->file = file;
  found->function = function;
  found->line = line;
  return 1;
}

backtrace_state* state(Cache& c) {
  if (c.state == nullptr) c.state = backtrace_create_state(nullptr, 1, ignore_error, nullptr);
  return c.state;
}
#endif

duet::source_location intern(Cache& c, const char* file, const char* function, int line) {
  std::string key = std::string(file) + ':' + std::to_string(line) + ':' + (function != nullptr ? function : "");
  if (auto it = c.by_place.find(key); it != c.by_place.end()) return it->second;
  const char* f = c.strings.insert(file).first->c_str();
  const char* fn = c.strings.insert(function != nullptr ? function : "").first->c_str();
  c.impls.push_back({f, fn, static_cast<unsigned>(line), 0});
  const duet::source_location loc = make_location(&c.impls.back());
  c.by_place.emplace(std::move(key), loc);
  return loc;
}

duet::source_location symbolizer(const void* pc) noexcept { return location_of(pc); }

}  // namespace

PcInfo pc_info(const void* pc) noexcept {
  const InDuet inside;
  Cache& c = cache();
  std::lock_guard<SpinLock> hold(c.lock);
  if (auto it = c.by_pc.find(pc); it != c.by_pc.end()) return it->second;
  PcInfo info;
#if DUET_HAVE_BACKTRACE
  Found found;
  // pc is a return address: the call is the instruction before it.
  if (backtrace_state* s = state(c))
    backtrace_pcinfo(s, reinterpret_cast<std::uintptr_t>(pc) - 1, take_frame, ignore_error, &found);
  if (found.file != nullptr) info.location = intern(c, found.file, found.function, found.line);
  info.waiter_pool = found.innermost_in_waiter_pool;
#endif
  c.by_pc.emplace(pc, info);
  return info;
}

duet::source_location location_of(const void* pc) noexcept { return pc_info(pc).location; }

duet::source_location location_of_caller(const void* pc) noexcept {
  duet::source_location loc = location_of(pc);
  if (loc.line() != 0 && !standard_library(loc.file_name())) return loc;
#if DUET_HAVE_BACKTRACE
  const InDuet inside;
  Cache& c = cache();
  std::lock_guard<SpinLock> hold(c.lock);
  Found found;
  if (backtrace_state* s = state(c)) backtrace_full(s, 1, take_stack_frame, ignore_error, &found);
  if (found.file != nullptr) loc = intern(c, found.file, found.function, found.line);
#endif
  return loc;
}

void install_symbolizer() noexcept { fiber::set_symbolizer(symbolizer); }

}  // namespace duet::detail::instrumented

// ---- duet::ignore_races_in ----

namespace duet {
namespace {

struct IgnoredPaths {
  detail::instrumented::SpinLock lock;
  std::vector<std::string> parts;
};
IgnoredPaths& ignored() {
  static IgnoredPaths* p = new IgnoredPaths;  // never destroyed, as the symbol cache
  return *p;
}

bool in_ignored_file(const void* pc) {
  const duet::source_location loc = detail::instrumented::location_of(pc);
  if (loc.line() == 0) return false;
  IgnoredPaths& ig = ignored();
  std::lock_guard<detail::instrumented::SpinLock> hold(ig.lock);
  for (const std::string& part : ig.parts)
    if (std::strstr(loc.file_name(), part.c_str()) != nullptr) return true;
  return false;
}

bool race_reported(const void* pc_earlier, const void* pc_now) noexcept {
  return !in_ignored_file(pc_earlier) && !in_ignored_file(pc_now);
}

}  // namespace

void ignore_races_in(std::string path_part) {
  {
    IgnoredPaths& ig = ignored();
    std::lock_guard<detail::instrumented::SpinLock> hold(ig.lock);
    ig.parts.push_back(std::move(path_part));
  }
  detail::fiber::set_race_filter(race_reported);
}

}  // namespace duet
