#include "execute/fibers/thread_locals.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string_view>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

namespace duet::detail {

namespace {
// The destructors of thread-specific keys that stay the scheduling thread's on fibers: the test
// framework's (registered at static initialisation, a handful at most).
using KeyDestructor = void (*)(void*);
constexpr std::size_t kSharedKeyDestructors = 8;
constinit std::atomic<KeyDestructor> g_shared_key_destructors[kSharedKeyDestructors]{};
}  // namespace

void share_thread_key_with_fibers(KeyDestructor destructor) noexcept {
  if (destructor == nullptr || thread_key_shared_with_fibers(destructor)) return;
  for (auto& slot : g_shared_key_destructors) {
    KeyDestructor empty = nullptr;
    if (slot.compare_exchange_strong(empty, destructor)) return;
  }
}

bool thread_key_shared_with_fibers(KeyDestructor destructor) noexcept {
  if (destructor == nullptr) return false;
  for (const auto& slot : g_shared_key_destructors) {
    const KeyDestructor d = slot.load(std::memory_order_acquire);
    if (d == nullptr) return false;
    if (d == destructor) return true;
  }
  return false;
}

}  // namespace duet::detail

namespace duet::detail::fiber {

constinit thread_local void* t_host_tp = nullptr;

#if defined(__x86_64__) && defined(__GLIBC__)

// The first word of an x86-64 thread control block points to itself (the ABI's %fs:0).
void* thread_pointer() noexcept {
  void* tp;
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

namespace fiber_tls {
namespace {

// glibc's x86-64 tcbhead_t: what create() fills in beyond the loader's zeroed header.
constexpr std::size_t kTcbSelf = 0x00;        // tcb: the block's own address
constexpr std::size_t kTcbThreadSelf = 0x10;  // self: pthread_self()
constexpr std::size_t kTcbCopiedFrom = 0x18;  // multiple_threads, sysinfo, the stack and
constexpr std::size_t kTcbCopiedTo = 0x50;    // pointer guards, feature_1: the thread's
constexpr std::size_t kTcbScopeFlag = 0x1c;   // gscope_flag: the loader's, never copied

// The loader's own allocator of thread-local storage (what pthread_create uses), and where the
// static blocks lie relative to the thread pointer.
struct Loader {
  void* (*allocate)(void*) = nullptr;
  void (*deallocate)(void*, bool) = nullptr;
  bool fsgsbase = false;         // wrfsbase is allowed (else the arch_prctl system call)
  std::ptrdiff_t static_lo = 0;  // [lo, hi) relative to the thread pointer
  std::ptrdiff_t static_hi = 0;
  std::ptrdiff_t libc_offset = 0;  // the C library's block, copied from the thread's
  std::size_t libc_size = 0;
  std::size_t specific_offset = 0;  // glibc's first block of pthread_setspecific values; 0: not found
  std::size_t tid_offset = 0;       // the kernel's id of the thread; 0: not found
  std::size_t static_size = 0;      // the loader's: every static block and the control block
  std::size_t static_align = 64;
  bool ok = false;
};

struct Walk {
  Loader* loader;
  char* tp;
  std::ptrdiff_t static_size;
};

int add_module(dl_phdr_info* info, std::size_t, void* data) {
  auto& w = *static_cast<Walk*>(data);
  if (info->dlpi_tls_data == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_TLS) continue;
    const std::ptrdiff_t offset = static_cast<char*>(info->dlpi_tls_data) - w.tp;
    const auto size = static_cast<std::ptrdiff_t>(info->dlpi_phdr[i].p_memsz);
    if (offset < -w.static_size || offset + size > 0) continue;  // dynamic storage (dlopen)
    Loader& l = *w.loader;
    l.static_lo = std::min(l.static_lo, offset);
    l.static_hi = std::max(l.static_hi, offset + size);
    const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
    if (name.find("/libc.so") != std::string_view::npos) {
      l.libc_offset = offset;
      l.libc_size = static_cast<std::size_t>(size);
    }
  }
  return 0;
}

// Where glibc keeps a thread's first 32 pthread_setspecific values in its control block (the
// layout is glibc's own): found by setting a value and looking for it. Fibers start with the
// scheduling thread's values there, so that what a test framework set for the thread (say,
// GoogleTest's interception of assertions) holds on its fibers too.
constexpr std::size_t kSpecificEntries = 32;
constexpr std::size_t kSpecificEntry = 2 * sizeof(void*);  // { sequence, value }
constexpr std::size_t kControlBlockSearched = 0x900;       // glibc 2.36's struct pthread

std::size_t find_specific_offset(char* tp) noexcept {
  pthread_key_t key;
  if (pthread_key_create(&key, nullptr) != 0) return 0;
  std::size_t found = 0;
  static char marker;
  if (key < kSpecificEntries && pthread_setspecific(key, &marker) == 0) {
    for (std::size_t at = kTcbCopiedTo; at + sizeof(void*) <= kControlBlockSearched && found == 0; at += sizeof(void*)) {
      void* word;
      std::memcpy(&word, tp + at, sizeof word);
      const std::size_t entry_at = at - sizeof(void*) - key * kSpecificEntry;  // the value follows the sequence
      if (word == &marker && at >= sizeof(void*) + key * kSpecificEntry && entry_at >= kTcbCopiedTo) found = entry_at;
    }
    pthread_setspecific(key, nullptr);
  }
  pthread_key_delete(key);
  return found;
}

// Where glibc keeps a thread's kernel id in its control block: found with the one function
// that reads nothing else of the block (pthread_getcpuclockid, which refuses an id of 0), on a
// zeroed stand-in holding a made-up id at each candidate place, and confirmed on this thread's
// own block (0: not found). A fiber runs on the scheduling thread, and glibc's own locks compare
// it with their owner's: a fiber's read-locked and unlocked rwlock (strerror's locale lock, taken
// inside the C library where duet does not interpose) was left looking write-locked while the
// id read 0, and the thread's next strerror hung.
std::size_t find_tid_offset(const char* tp) noexcept {
  alignas(64) static char stand_in[kControlBlockSearched];
  constexpr int kMadeUpId = 0x5eed;
  for (std::size_t at = kTcbCopiedTo; at + sizeof(int) <= kControlBlockSearched; at += sizeof(int)) {
    std::memset(stand_in, 0, sizeof stand_in);
    std::memcpy(stand_in + at, &kMadeUpId, sizeof kMadeUpId);
    clockid_t clock;
    if (pthread_getcpuclockid(reinterpret_cast<pthread_t>(stand_in), &clock) != 0) continue;
    int own;
    std::memcpy(&own, tp + at, sizeof own);
    return own == gettid() ? at : 0;
  }
  return 0;
}

Loader find_loader() noexcept {
  Loader l;
  l.allocate = reinterpret_cast<void* (*)(void*)>(dlvsym(RTLD_DEFAULT, "_dl_allocate_tls", "GLIBC_PRIVATE"));
  l.deallocate = reinterpret_cast<void (*)(void*, bool)>(dlvsym(RTLD_DEFAULT, "_dl_deallocate_tls", "GLIBC_PRIVATE"));
  auto* const static_info = reinterpret_cast<void (*)(std::size_t*, std::size_t*)>(
      dlvsym(RTLD_DEFAULT, "_dl_get_tls_static_info", "GLIBC_PRIVATE"));
  if (l.allocate == nullptr || l.deallocate == nullptr || static_info == nullptr) return l;
  std::size_t size = 0;
  std::size_t align = 0;
  static_info(&size, &align);
  l.static_size = size;
  l.static_align = std::max<std::size_t>(align, 64);
  Walk w{&l, static_cast<char*>(thread_pointer()), static_cast<std::ptrdiff_t>(size)};
  dl_iterate_phdr(add_module, &w);
  l.specific_offset = find_specific_offset(w.tp);
  l.tid_offset = find_tid_offset(w.tp);
  l.fsgsbase = (getauxval(AT_HWCAP2) & 2) != 0;  // HWCAP2_FSGSBASE
  l.ok = l.libc_size != 0;
  return l;
}

const Loader& loader() noexcept {
  static const Loader l = find_loader();
  return l;
}

}  // namespace

bool supported() noexcept { return loader().ok; }

// Each slot: the static blocks below the thread pointer, the thread control block (glibc's
// struct pthread, about 2.3 KB) above it, zeroed for every fresh block.
constexpr std::size_t kAboveTp = 8192;
// Where the regions go when that range is free: the same addresses in every process.
constexpr std::uintptr_t kPreferredBase = 0x5e0000000000;
constexpr int kPreferredTries = 64;

bool Blocks::map() noexcept {
  if (region_ != nullptr || failed_) return region_ != nullptr;
  const Loader& l = loader();
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t below = (l.static_size + l.static_align - 1) / l.static_align * l.static_align;
  tp_offset_ = below;
  stride_ = (below + kAboveTp + page - 1) / page * page;
  const std::size_t bytes = stride_ * slots_;
  const std::size_t apart = (bytes + (std::size_t{1} << 20) - 1) >> 20 << 20;  // whole megabytes
  for (int k = 0; k < kPreferredTries && region_ == nullptr; ++k) {
    void* want = reinterpret_cast<void*>(kPreferredBase + static_cast<std::uintptr_t>(k) * apart);
    void* got = mmap(want, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want) region_ = static_cast<char*>(got);
    else if (got != MAP_FAILED) munmap(got, bytes);  // a kernel without MAP_FIXED_NOREPLACE: a hint only
  }
  if (region_ == nullptr) {
    void* got = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (got != MAP_FAILED) region_ = static_cast<char*>(got);
  }
  failed_ = region_ == nullptr;
  in_use_.assign(slots_, false);
  return region_ != nullptr;
}

Blocks::~Blocks() {
  if (region_ == nullptr) return;
  for (std::size_t i = 0; i < slots_; ++i) release(i);
  munmap(region_, stride_ * slots_);
}

void Blocks::release(std::size_t i) noexcept {
  if (region_ == nullptr || i >= slots_ || !in_use_[i]) return;
  loader().deallocate(region_ + i * stride_ + tp_offset_, false);
  in_use_[i] = false;
}

void* Blocks::fresh(std::size_t i, void* host_tp) noexcept {
  const Loader& l = loader();
  if (!l.ok || i >= slots_ || !map()) return nullptr;
  release(i);
  char* const tp = region_ + i * stride_ + tp_offset_;
  std::memset(tp, 0, kAboveTp);
  if (l.allocate(tp) == nullptr) return nullptr;  // the loader's dtv, static blocks initialised
  in_use_[i] = true;
  char* const host = static_cast<char*>(host_tp);
  std::memcpy(tp + kTcbSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbThreadSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbCopiedFrom, host + kTcbCopiedFrom, kTcbCopiedTo - kTcbCopiedFrom);
  std::memset(tp + kTcbScopeFlag, 0, sizeof(int));
  std::memcpy(tp + l.libc_offset, host + l.libc_offset, l.libc_size);
  if (l.specific_offset != 0)
    std::memcpy(tp + l.specific_offset, host + l.specific_offset, kSpecificEntries * kSpecificEntry);
  if (l.tid_offset != 0) std::memcpy(tp + l.tid_offset, host + l.tid_offset, sizeof(int));
  in_block(tp, t_host_tp) = host;
  return tp;
}

void install(void* tp) noexcept {
  if (loader().fsgsbase) {
    asm volatile("wrfsbase %0" : : "r"(tp) : "memory");
  } else {
    long ret;
    // arch_prctl(ARCH_SET_FS, tp), without the C library's syscall(), which duet interposes.
    asm volatile("syscall" : "=a"(ret) : "0"(158L), "D"(0x1002L), "S"(tp) : "rcx", "r11", "memory");
    (void)ret;
  }
}

Range static_range(const void* tp) noexcept {
  const Loader& l = loader();
  return {static_cast<const char*>(tp) + l.static_lo, static_cast<std::size_t>(l.static_hi - l.static_lo)};
}

}  // namespace fiber_tls

#else  // fibers share their thread's storage

void* thread_pointer() noexcept { return nullptr; }

namespace fiber_tls {
bool supported() noexcept { return false; }
Blocks::~Blocks() = default;
void* Blocks::fresh(std::size_t, void*) noexcept { return nullptr; }
void Blocks::release(std::size_t) noexcept {}
bool Blocks::map() noexcept { return false; }
void install(void*) noexcept {}
Range static_range(const void*) noexcept { return {nullptr, 0}; }
}  // namespace fiber_tls

#endif

}  // namespace duet::detail::fiber
