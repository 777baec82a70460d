#include "engine/crash_stack.hpp"
#include "execute/hang_clock.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#if DUET_HAVE_BACKTRACE
#include <backtrace.h>
#endif

namespace duet::detail {
namespace {

#if DUET_HAVE_BACKTRACE
backtrace_state* symbols = nullptr;  // made by prepare_crash_stack, kept for the process
void ignore_error(void*, const char*, int) {}
#endif

std::uintptr_t interrupted_pc(void* context) {
  [[maybe_unused]] const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]) : 0;
#elif defined(__aarch64__)
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.pc) : 0;
#elif defined(__s390x__)
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.psw.addr) : 0;
#elif defined(__powerpc64__)
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.gp_regs[32]) : 0;  // 32: PT_NIP
#elif defined(__riscv) && __riscv_xlen == 64
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.__gregs[0]) : 0;  // 0: REG_PC
#elif defined(__arm__)
  return uc ? static_cast<std::uintptr_t>(uc->uc_mcontext.arm_pc) : 0;
#else
  return 0;  // unknown here: write_crash_stack says the stack was not walked
#endif
}

// Who a frame belongs to: the code under test (and its spec), duet, or the system's libraries.
enum class Owner { subject, duet, system };

struct Frame {
  std::string function;  // demangled, or empty
  std::string file;      // with `line`, where the debug information says
  int line = 0;
  std::string object;  // the shared object, where there is no function name either
  Owner owner = Owner::system;
};

std::string demangled(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(name);
}

// The qualified name a function's demangled text starts with, without a return type, template
// arguments or parameters: "void std::__invoke_impl<...>(...)" -> "std::__invoke_impl".
std::string_view qualified_head(std::string_view f) {
  if (f.starts_with("(anonymous namespace)::")) f.remove_prefix(23);
  const std::size_t open = f.find_first_of("<(");
  std::string_view head = f.substr(0, open);
  if (const std::size_t space = head.rfind(' '); space != std::string_view::npos) head.remove_prefix(space + 1);
  return head;
}

// The C and C++ runtimes' shared objects (raise, abort, free, operator delete).
bool system_object(const std::string& path) {
  const std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
  for (const std::string_view lib : {"libc.so", "libc-", "libstdc++.so", "libgcc_s.so", "libm.so", "libpthread.so",
                                     "ld-linux", "libc++.so", "libc++abi.so", "libunwind.so"})
    if (name.starts_with(lib)) return true;
  return false;
}

Owner owner_of(const Frame& f) {
  const std::string_view head = qualified_head(f.function);
  if (head.starts_with("duet::") || head.starts_with("boost::context") || head.ends_with("_fcontext") ||
      head == "trampoline")
    return Owner::duet;
  if (f.file.find("/include/duet/") != std::string::npos) return Owner::duet;
  if (f.function.empty() || head.starts_with("std::") || head.starts_with("__gnu_cxx::") || head.starts_with("__cxx") ||
      f.file.find("/c++/") != std::string::npos || f.file.find("/bits/") != std::string::npos ||
      f.file.starts_with("/usr/include/"))
    return Owner::system;
  if (system_object(f.object)) return Owner::system;
  return Owner::subject;
}

#if DUET_HAVE_BACKTRACE
int take_frame(void* data, std::uintptr_t, const char* file, int line, const char* function) {
  auto* frames = static_cast<std::vector<Frame>*>(data);
  if (file == nullptr && function == nullptr) return 0;
  Frame f;
  f.function = demangled(function);
  if (file != nullptr) f.file = file;
  f.line = line;
  frames->push_back(std::move(f));
  return 0;
}
void take_symbol(void* data, std::uintptr_t, const char* name, std::uintptr_t, std::uintptr_t) {
  if (name != nullptr) static_cast<Frame*>(data)->function = demangled(name);
}
#endif

// The frames of one address (more than one where calls were inlined), innermost first.
void frames_at(std::uintptr_t pc, std::vector<Frame>& out) {
  std::vector<Frame> found;
  Frame plain;
#if DUET_HAVE_BACKTRACE
  if (symbols != nullptr) {
    backtrace_pcinfo(symbols, pc, take_frame, ignore_error, &found);
    if (found.empty()) backtrace_syminfo(symbols, pc, take_symbol, ignore_error, &plain);
  }
#endif
  Dl_info info{};
  const bool in_object = dladdr(reinterpret_cast<void*>(pc), &info) != 0;
  if (found.empty()) {
    if (plain.function.empty() && in_object && info.dli_sname != nullptr) plain.function = demangled(info.dli_sname);
    found.push_back(std::move(plain));
  }
  if (in_object && info.dli_fname != nullptr)
    for (Frame& f : found) f.object = info.dli_fname;
  for (Frame& f : found) {
    f.owner = owner_of(f);
    out.push_back(std::move(f));
  }
}

std::string frame_text(const Frame& f) {
  std::string name = f.function.empty() ? "??" : f.function;
  if (name.size() > 160) name = name.substr(0, 157) + "...";
  std::string s = name;
  if (!f.file.empty()) s += "  " + f.file + (f.line > 0 ? ":" + std::to_string(f.line) : std::string());
  else if (!f.object.empty()) s += "  (" + f.object.substr(f.object.rfind('/') + 1) + ")";
  if (f.owner == Owner::duet) s += "  [duet]";
  return s;
}

std::string numbered(std::size_t from, std::size_t to) {
  return from == to ? "#" + std::to_string(from) : "#" + std::to_string(from) + "-#" + std::to_string(to);
}

// A child that shares nothing but a copy of this process, like fork() without its atfork
// handlers. s390 takes clone's first two arguments the other way round (the stack, then the
// flags); a null stack is the parent's, copied.
long bare_fork() noexcept {
#if defined(__s390__) || defined(__s390x__)
  return ::syscall(SYS_clone, nullptr, SIGCHLD, nullptr, nullptr, nullptr);
#else
  return ::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr);
#endif
}

// Writes all of `n` bytes, as far as the descriptor takes them.
void write_fd(int fd, const char* p, std::size_t n) noexcept {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}
void write_text(const char* s) noexcept { write_fd(2, s, std::strlen(s)); }

long long now_ms() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// The helper's text, read until it ends with its '\0' or the time is up. Its length, or 0.
std::size_t read_helper(int fd, char* buf, std::size_t capacity) noexcept {
  // Reading the debug information takes seconds under an emulator: DUET_TIME_SCALE scales it
  // (a thread_local of this thread, the check's, which the crashed fiber ran on).
  const long long wait_ms = static_cast<long long>(5000 * std::min(time_scale(), 100.0));
  const long long deadline = now_ms() + wait_ms;
  std::size_t n = 0;
  for (;;) {
    const long long left = deadline - now_ms();
    if (left <= 0) return 0;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return 0;
    if (n == capacity) return 0;
    const ssize_t r = ::read(fd, buf + n, capacity - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return n > 0 && buf[n - 1] == '\0' ? n - 1 : 0;
    n += static_cast<std::size_t>(r);
  }
}

}  // namespace

void prepare_crash_stack() noexcept {
  void* one[1];
  (void)::backtrace(one, 1);  // loads libgcc's unwinder now, not in the handler
#if DUET_HAVE_BACKTRACE
  if (symbols == nullptr) symbols = backtrace_create_state(nullptr, 1, ignore_error, nullptr);
#endif
}

#if defined(__powerpc64__)
namespace {
// POWER's ABI keeps a back chain: a frame's first doubleword is its caller's stack pointer, and
// the caller's frame holds the return address 16 bytes in. Where the unwinder did not go through
// the signal frame (qemu-user's trampoline is not the kernel's), the stack is walked that way from
// the interrupted registers: the link register first (the interrupted function may not have
// saved it yet), then the chain, while it runs up the stack in 16-byte-aligned steps.
std::size_t back_chain(const ucontext_t& uc, std::uintptr_t pc, std::uintptr_t* pcs, std::size_t capacity) {
  std::size_t k = 0;
  if (capacity == 0) return 0;
  pcs[k++] = pc;
  const auto lr = static_cast<std::uintptr_t>(uc.uc_mcontext.gp_regs[36]);  // 36: PT_LNK
  if (lr != 0 && k < capacity) pcs[k++] = lr;
  auto sp = static_cast<std::uintptr_t>(uc.uc_mcontext.gp_regs[1]);
  for (int depth = 0; k < capacity && depth < 256 && sp != 0 && sp % 16 == 0; ++depth) {
    const std::uintptr_t caller = *reinterpret_cast<const std::uintptr_t*>(sp);
    if (caller <= sp || caller - sp > (std::uintptr_t{1} << 24) || caller % 16 != 0) break;
    const std::uintptr_t ret = *reinterpret_cast<const std::uintptr_t*>(caller + 16);
    if (ret == 0) break;
    if (ret != pcs[k - 1]) pcs[k++] = ret;
    sp = caller;
  }
  return k;
}
}  // namespace
#endif

std::size_t capture_crash_stack(void* ucontext, std::uintptr_t* pcs, std::size_t capacity) noexcept {
  // The handler's own frames and the signal trampoline come first: start at the interrupted
  // instruction, where the unwinder went through the signal frame.
  void* raw[kCrashFrames + 8];
  const int n = ::backtrace(raw, static_cast<int>(std::size(raw)));
  const std::uintptr_t pc = interrupted_pc(ucontext);
  int from = 0;
  while (from < n && reinterpret_cast<std::uintptr_t>(raw[from]) != pc) ++from;
  std::size_t k = 0;
  if (from == n) {  // not found: the interrupted instruction alone is still worth showing
#if defined(__powerpc64__)
    if (pc != 0 && ucontext != nullptr) return back_chain(*static_cast<const ucontext_t*>(ucontext), pc, pcs, capacity);
#endif
    if (pc != 0 && capacity > 0) pcs[k++] = pc;
    return k;
  }
  for (int i = from; i < n && k < capacity; ++i) pcs[k++] = reinterpret_cast<std::uintptr_t>(raw[i]);
  return k;
}

std::string describe_crash_stack(std::span<const std::uintptr_t> pcs) {
  std::vector<Frame> frames;
  // Past the first, each address is a return address: the call is the instruction before it.
  for (std::size_t i = 0; i < pcs.size(); ++i) frames_at(i == 0 ? pcs[i] : pcs[i] - 1, frames);
  if (frames.empty()) return {};
  const auto is_subject = [](const Frame& f) { return f.owner == Owner::subject; };
  const auto first = std::find_if(frames.begin(), frames.end(), is_subject);
  const auto last = std::find_if(frames.rbegin(), frames.rend(), is_subject);
  std::size_t begin = 0, end = frames.size();
  std::string out;
  if (first != frames.end()) {
    begin = static_cast<std::size_t>(first - frames.begin());
    end = frames.size() - static_cast<std::size_t>(last - frames.rbegin());
    // The system's frames under the fault (raise, abort, free): one line, when they are all.
    if (begin > 0 && std::none_of(frames.begin(), first, [](const Frame& f) { return f.owner == Owner::duet; })) {
      std::string names;
      for (std::size_t i = 0; i < begin; ++i)
        names += (i ? ", " : "") + (frames[i].function.empty() ? "??" : frames[i].function);
      out += "    " + numbered(0, begin - 1) + "  in the system's libraries: " + names + "\n";
    } else {
      begin = 0;
    }
  }
  for (std::size_t i = begin; i < end; ++i) out += "    #" + std::to_string(i) + "  " + frame_text(frames[i]) + "\n";
  if (end < frames.size())
    out += "    " + numbered(end, frames.size() - 1) + "  duet's fiber runtime, which started the fiber: not shown\n";
  return out;
}

void write_crash_stack(std::span<const std::uintptr_t> pcs) noexcept {
  if (pcs.empty()) {
    write_text("  The crashing fiber's stack: not walked (the interrupted instruction's address is not known\n"
               "  on this architecture).\n");
    return;
  }
  write_text("  The crashing fiber's stack, innermost call first:\n");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fds[0] = fds[1] = -1;
  // A bare clone: fork() would run the process's atfork handlers, which take locks (the
  // allocator's) that the crash may have left held.
  const long pid = fds[0] >= 0 ? bare_fork() : -1;
  if (pid == 0) {
    ::close(fds[0]);
    try {
      const std::string text = describe_crash_stack(pcs);
      write_fd(fds[1], text.c_str(), text.size() + 1);  // with its '\0': the text is whole
    } catch (...) {
    }
    ::_exit(0);
  }
  if (fds[1] >= 0) ::close(fds[1]);
  static char text[32768];  // the handler runs once: the process then dies
  const std::size_t n = pid > 0 ? read_helper(fds[0], text, sizeof text) : 0;
  if (fds[0] >= 0) ::close(fds[0]);
  if (pid > 0) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
  }
  if (n > 0) {
    write_fd(2, text, n);
    return;
  }
  write_text("    (not symbolised in time: the bare addresses)\n");
  ::backtrace_symbols_fd(reinterpret_cast<void* const*>(pcs.data()), static_cast<int>(pcs.size()), 2);
}

}  // namespace duet::detail
