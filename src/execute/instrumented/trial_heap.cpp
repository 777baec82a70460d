// The arena: reserved (not committed) once in the process that forks the trials, at a fixed
// address where that is free, so that even a replay in another process gets the same addresses;
// never touched there, so each trial's process starts with all of it unused. Blocks are powers
// of two (16-byte header included), freed blocks kept on one list per size, last freed first
// given: the addresses follow from the trial's own allocations alone. Memory is not returned:
// the process ends with its trial.
#include "execute/instrumented/trial_heap.hpp"

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "execute/fibers/instrumented.hpp"
#include "execute/instrumented/instrumented.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_valloc(std::size_t);
void* __libc_pvalloc(std::size_t);
}

namespace duet::detail::instrumented {
namespace {

constexpr std::size_t kReserve = std::size_t{64} << 30;  // address space only (MAP_NORESERVE)
constexpr std::uintptr_t kWhere = 0x4a0000000000;        // the same in every process, where free
constexpr std::size_t kHeader = 16;
constexpr unsigned kClasses = 40;  // blocks of 2^4 to 2^39 bytes

struct Header {
  std::uint32_t size_class;  // the block is 2^size_class bytes
  std::uint32_t offset;      // from the block's start to the memory given out
  std::uint64_t unused;
};
static_assert(sizeof(Header) == kHeader);

char* g_base = nullptr;  // the arena; null before prepare (or where it could not be mapped)
char* g_next = nullptr;  // the first byte never given out
bool g_active = false;   // set in a trial's process only
SpinLock g_lock;
void* g_free[kClasses] = {};

void prepare() noexcept {
  if (g_base != nullptr) return;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* at = ::mmap(reinterpret_cast<void*>(kWhere), kReserve, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, -1, 0);
  if (at == MAP_FAILED) at = ::mmap(nullptr, kReserve, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (at == MAP_FAILED) return;  // no arena: the trials allocate as the process does
  g_base = static_cast<char*>(at);
  g_next = g_base;
}

void begin() noexcept { g_active = g_base != nullptr; }

// The subject's code, on a fiber of a run: only its allocations take the arena's addresses.
// duet's own (its trace, its tables, the symboliser's cache, the report) differ between a
// search's run and a traced replay of it, and would move the subject's if they came from it.
bool subjects_allocation() noexcept { return g_active && fiber::t_runtime != nullptr && fiber::t_in_runtime == 0; }

// A block of 2^size_class bytes for `n` bytes aligned to `align` after the header; nullptr when
// the arena is spent.
void* allocate(std::size_t n, std::size_t align) noexcept {
  const std::size_t need = n + kHeader + (align > kHeader ? align : 0);
  if (need < n) return nullptr;  // overflow
  const unsigned size_class = std::max(4U, static_cast<unsigned>(std::bit_width(need - 1)));
  if (size_class >= kClasses) return nullptr;
  const std::size_t block_size = std::size_t{1} << size_class;
  char* block = nullptr;
  {
    const std::lock_guard<SpinLock> hold(g_lock);
    if (void* kept = g_free[size_class]) {
      std::memcpy(&g_free[size_class], kept, sizeof(void*));
      block = static_cast<char*>(kept);
    } else if (static_cast<std::size_t>(g_base + kReserve - g_next) >= block_size) {
      block = g_next;
      g_next += block_size;
    }
  }
  if (block == nullptr) return nullptr;
  const std::size_t a = align > kHeader ? align : kHeader;
  const auto start = reinterpret_cast<std::uintptr_t>(block) + kHeader;
  char* given = reinterpret_cast<char*>((start + a - 1) / a * a);
  const Header h{size_class, static_cast<std::uint32_t>(given - block), 0};
  std::memcpy(given - kHeader, &h, sizeof h);
  return given;
}

Header header_of(const void* p) noexcept {
  Header h;
  std::memcpy(&h, static_cast<const char*>(p) - kHeader, sizeof h);
  return h;
}

std::size_t usable(const void* p) noexcept {
  const Header h = header_of(p);
  return (std::size_t{1} << h.size_class) - h.offset;
}

void* allocated_or_enomem(void* p) noexcept {
  if (p == nullptr) errno = ENOMEM;
  return p;
}

}  // namespace

void install_trial_heap() noexcept { fiber::set_trial_heap({prepare, begin}); }
bool trial_heap_active() noexcept { return g_active; }
bool trial_heap_owns(const void* p) noexcept { return g_base != nullptr && p >= g_base && p < g_base + kReserve; }

void trial_heap_free(void* p) noexcept {
  const Header h = header_of(p);
  char* block = static_cast<char*>(p) - h.offset;
  const std::lock_guard<SpinLock> hold(g_lock);
  std::memcpy(block, &g_free[h.size_class], sizeof(void*));
  g_free[h.size_class] = block;
}

void* trial_heap_realloc(void* p, std::size_t n) noexcept {
  if (p == nullptr) return subjects_allocation() ? allocated_or_enomem(allocate(n, kHeader)) : __libc_malloc(n);
  if (!trial_heap_owns(p)) return __libc_realloc(p, n);  // the forking process's: left where it is
  if (n == 0) {
    trial_heap_free(p);
    return nullptr;
  }
  const std::size_t old = usable(p);
  if (n <= old) return p;
  void* q = allocate(n, kHeader);
  if (q == nullptr) return allocated_or_enomem(q);
  std::memcpy(q, p, old);
  trial_heap_free(p);
  return q;
}

}  // namespace duet::detail::instrumented

using duet::detail::instrumented::trial_heap_owns;
namespace th = duet::detail::instrumented;

extern "C" {

void* malloc(std::size_t n) noexcept {
  if (th::g_active && th::subjects_allocation()) [[unlikely]]
    return th::allocated_or_enomem(th::allocate(n, th::kHeader));
  return __libc_malloc(n);
}

void* calloc(std::size_t count, std::size_t size) noexcept {
  if (th::g_active && th::subjects_allocation()) [[unlikely]] {
    std::size_t n = 0;
    if (__builtin_mul_overflow(count, size, &n)) return th::allocated_or_enomem(nullptr);
    void* p = th::allocate(n, th::kHeader);
    if (p != nullptr) std::memset(p, 0, n);
    return th::allocated_or_enomem(p);
  }
  return __libc_calloc(count, size);
}

void* memalign(std::size_t align, std::size_t n) noexcept {
  if (th::g_active && th::subjects_allocation()) [[unlikely]]
    return th::allocated_or_enomem(th::allocate(n, align));
  return __libc_memalign(align, n);
}

void* aligned_alloc(std::size_t align, std::size_t n) noexcept { return memalign(align, n); }

int posix_memalign(void** out, std::size_t align, std::size_t n) noexcept {
  if (align < sizeof(void*) || !std::has_single_bit(align)) return EINVAL;
  void* p = memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(std::size_t n) noexcept {
  if (th::g_active && th::subjects_allocation()) [[unlikely]]
    return memalign(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), n);
  return __libc_valloc(n);
}

void* pvalloc(std::size_t n) noexcept {
  if (th::g_active && th::subjects_allocation()) [[unlikely]] {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return memalign(page, (n + page - 1) / page * page);
  }
  return __libc_pvalloc(n);
}

std::size_t malloc_usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  if (trial_heap_owns(p)) return th::usable(p);
  static std::atomic<void*> slot{};
  return duet::detail::instrumented::real<std::size_t(void*) noexcept>(slot, "malloc_usable_size")(p);
}

}  // extern "C"
