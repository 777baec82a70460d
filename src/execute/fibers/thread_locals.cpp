#include "execute/fibers/thread_locals.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <string_view>
#include <sys/auxv.h>

namespace duet::detail::fiber {

namespace {
// In a fiber's block: the scheduling thread's thread pointer (create() writes it); null in a
// thread's own block.
constinit thread_local void* t_host_tp = nullptr;
}  // namespace

void* host_thread_pointer() noexcept { return t_host_tp; }

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
constexpr std::size_t kTcbSelf = 0x00;          // tcb: the block's own address
constexpr std::size_t kTcbThreadSelf = 0x10;    // self: pthread_self()
constexpr std::size_t kTcbCopiedFrom = 0x18;    // multiple_threads, sysinfo, the stack and
constexpr std::size_t kTcbCopiedTo = 0x50;      // pointer guards, feature_1: the thread's
constexpr std::size_t kTcbScopeFlag = 0x1c;     // gscope_flag: the loader's, never copied

// The loader's own allocator of thread-local storage (what pthread_create uses), and where the
// static blocks lie relative to the thread pointer.
struct Loader {
  void* (*allocate)(void*) = nullptr;
  void (*deallocate)(void*, bool) = nullptr;
  bool fsgsbase = false;       // wrfsbase is allowed (else the arch_prctl system call)
  std::ptrdiff_t static_lo = 0;  // [lo, hi) relative to the thread pointer
  std::ptrdiff_t static_hi = 0;
  std::ptrdiff_t libc_offset = 0;  // the C library's block, copied from the thread's
  std::size_t libc_size = 0;
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

Loader find_loader() noexcept {
  Loader l;
  l.allocate = reinterpret_cast<void* (*)(void*)>(dlvsym(RTLD_DEFAULT, "_dl_allocate_tls", "GLIBC_PRIVATE"));
  l.deallocate = reinterpret_cast<void (*)(void*, bool)>(dlvsym(RTLD_DEFAULT, "_dl_deallocate_tls", "GLIBC_PRIVATE"));
  auto* const static_info =
      reinterpret_cast<void (*)(std::size_t*, std::size_t*)>(dlvsym(RTLD_DEFAULT, "_dl_get_tls_static_info", "GLIBC_PRIVATE"));
  if (l.allocate == nullptr || l.deallocate == nullptr || static_info == nullptr) return l;
  std::size_t size = 0;
  std::size_t align = 0;
  static_info(&size, &align);
  Walk w{&l, static_cast<char*>(thread_pointer()), static_cast<std::ptrdiff_t>(size)};
  dl_iterate_phdr(add_module, &w);
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

void* create(void* host_tp) noexcept {
  const Loader& l = loader();
  if (!l.ok) return nullptr;
  char* const tp = static_cast<char*>(l.allocate(nullptr));
  if (tp == nullptr) return nullptr;
  char* const host = static_cast<char*>(host_tp);
  std::memcpy(tp + kTcbSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbThreadSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbCopiedFrom, host + kTcbCopiedFrom, kTcbCopiedTo - kTcbCopiedFrom);
  std::memset(tp + kTcbScopeFlag, 0, sizeof(int));
  std::memcpy(tp + l.libc_offset, host + l.libc_offset, l.libc_size);
  in_block(tp, t_host_tp) = host;
  return tp;
}

void destroy(void* tp) noexcept {
  if (tp != nullptr) loader().deallocate(tp, true);
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
void* create(void*) noexcept { return nullptr; }
void destroy(void*) noexcept {}
void install(void*) noexcept {}
Range static_range(const void*) noexcept { return {nullptr, 0}; }
}  // namespace fiber_tls

#endif

}  // namespace duet::detail::fiber
