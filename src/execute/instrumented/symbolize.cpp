// file:line for the instrumented code's addresses, from the DWARF line tables (libbacktrace,
// shipped with GCC), cached per address so that symbolising never dominates a run. Without
// libbacktrace (DUET_HAVE_BACKTRACE unset) locations are empty and reports fall back to the
// operation and object alone.
#include <bit>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>

#include <boost/context/fiber.hpp>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "duet/instrument.hpp"
#include "execute/fibers/context_switch.hpp"
#include "execute/fibers/thread_locals.hpp"
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
  std::unordered_set<std::string> strings;                          // file and function names, interned
  std::deque<LocationImpl> impls;                                   // stable addresses
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

// Reading DWARF recurses deeply (libbacktrace walks nested scopes recursively): on a fiber's
// stack (256 KiB by default) it overflowed. So the reading runs on a stack of its own, 8 MiB
// per thread, mapped on first use and kept; a context switch there and back costs little next
// to a lookup, and the cache makes lookups rare.
class BigStack {
 public:
  template <class F>
  void run(F&& f) {
    if (base_ == nullptr) {
      void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) {  // no memory for it: read on the caller's stack, as before
        f();
        return;
      }
      base_ = static_cast<char*>(p);
    }
    namespace ctx = boost::context;
    ctx::fiber reader(std::allocator_arg, Allocator{base_}, [&](ctx::fiber&& back) {
      f();
      return std::move(back);
    });
    fiber::resume_keeping_registers(std::move(reader));
  }

 private:
  static constexpr std::size_t kSize = 8u << 20;
  struct Allocator {
    char* base;
    boost::context::stack_context allocate() const {
      boost::context::stack_context sc;
      sc.size = kSize;
      sc.sp = base + kSize;
      return sc;
    }
    void deallocate(boost::context::stack_context&) const noexcept {}
  };
  char* base_ = nullptr;
};
// The scheduling thread's, also from a fiber with thread-local storage of its own (one per
// fiber would map a stack per fiber per run).
constinit thread_local BigStack* t_big_stack = nullptr;

// The frames of `pc` (a return address of the current stack, as backtrace_simple gives them).
void frames_of(backtrace_state* s, std::uintptr_t pc, backtrace_full_callback take, Found& found) {
  fiber::host_shared(t_big_stack).run([&] { backtrace_pcinfo(s, pc, take, ignore_error, &found); });
}

// backtrace_simple's callback: the frames of each return address, outward, until one is found
// outside the standard library.
struct Walk {
  backtrace_state* state;
  Found found;
};
int take_caller(void* data, std::uintptr_t pc) {
  auto* walk = static_cast<Walk*>(data);
  frames_of(walk->state, pc, take_stack_frame, walk->found);
  return walk->found.file != nullptr ? 1 : 0;
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

std::vector<const void*> symbolized() {
  const InDuet inside;
  Cache& c = cache();
  std::lock_guard<SpinLock> hold(c.lock);
  std::vector<const void*> pcs;
  pcs.reserve(c.by_pc.size());
  for (const auto& entry : c.by_pc) pcs.push_back(entry.first);
  return pcs;
}

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
  if (backtrace_state* s = state(c)) frames_of(s, reinterpret_cast<std::uintptr_t>(pc) - 1, take_frame, found);
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
  if (backtrace_state* s = state(c)) {
    // The unwinding on this stack, the lines of each frame on the reading stack.
    Walk walk{s, {}};
    backtrace_simple(s, 1, take_caller, ignore_error, &walk);
    if (walk.found.file != nullptr) loc = intern(c, walk.found.file, walk.found.function, walk.found.line);
  }
#endif
  return loc;
}

void install_symbolizer() noexcept {
  fiber::set_symbolizer(symbolizer);
  fiber::set_symbolized_addresses(symbolized);
}

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

void ignore_races_in(const std::string& path_part) {
#if !DUET_HAVE_BACKTRACE
  // Paths are matched against file:line, which this build cannot give: say so rather than
  // report, as if unasked, the races the test asked to accept.
  std::fprintf(stderr,
               "duet: ignore_races_in(\"%s\") cannot apply: this build of duet names no file:line (libbacktrace was "
               "not found when it was built), so races there are still reported\n",
               path_part.c_str());
#endif
  {
    IgnoredPaths& ig = ignored();
    std::lock_guard<detail::instrumented::SpinLock> hold(ig.lock);
    ig.parts.push_back(path_part);
  }
  detail::fiber::set_race_filter(race_reported);
}

}  // namespace duet
