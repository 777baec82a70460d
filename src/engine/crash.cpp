#include "engine/crash.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

#include "duet/detail/fiber_hooks.hpp"
#include "engine/crash_stack.hpp"
#include "report/token.hpp"

namespace duet::detail {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// A sanitizer's own report of the crash shows the stack already (and its allocator is not one
// a helper process may use).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kStacks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kStacks = false;
#else
constexpr bool kStacks = true;
#endif
#else
constexpr bool kStacks = true;
#endif

// The alternate stack: large enough for a stack's symbolisation (reading DWARF recurses deeply),
// which runs on it in a helper process; its pages cost nothing until touched. A guard page
// below it.
constexpr std::size_t kAltStack = std::size_t{8} << 20, kGuard = 4096;

// What the handler reads. Written by the running thread before each case; the handler runs on
// that same thread when the case crashes, so plain relaxed atomics are enough.
struct CrashState {
  std::atomic<bool> active{false};
  std::atomic<bool> by_seed{false};
  ReplayRecord header;  // set before any case runs
  std::atomic<std::uint64_t> index{0}, case_seed{0};
  std::string name;
  std::string token;  // when !by_seed
  struct sigaction previous[sizeof kSignals / sizeof kSignals[0]];
  char* alt_stack = nullptr;
  stack_t previous_stack{};
  // Isolation's child: where a crash on a fiber leaves its stack.
  std::uintptr_t* stack_sink = nullptr;
  std::size_t stack_capacity = 0;
  std::atomic<std::uint64_t>* stack_count = nullptr;
};

// Made at its first use and never destroyed: a check may run before main (from a static
// initialiser of the test program, before this file's own statics are made) and after it (from
// an atexit handler, as the process's statics go), and the exit handler reads it then too.
CrashState& crash_state() {
  static CrashState* const state = new CrashState;
  return *state;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "a segmentation fault (SIGSEGV)";
    case SIGBUS: return "a bus error (SIGBUS)";
    case SIGFPE: return "an arithmetic fault (SIGFPE)";
    case SIGILL: return "an illegal instruction (SIGILL)";
    default: return "an abort (SIGABRT)";
  }
}

void write_all(const char* text, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(2, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}
void write_text(const char* text) { write_all(text, std::strlen(text)); }

// Isolation's child: the stack of a crash on a fiber, for the test process's report.
void leave_stack(CrashState& state, void* context) {
  if (!kStacks || state.stack_sink == nullptr || fiber::current() == nullptr) return;
  state.stack_count->store(0, std::memory_order_relaxed);
  state.stack_count->store(capture_crash_stack(context, state.stack_sink, state.stack_capacity), std::memory_order_release);
}

// Async-signal-safe: only write(2), and a token written into a static buffer (a seeded case)
// or made before the case started (a replayed one); a fiber's stack is made into text in a
// helper process (write_crash_stack).
void on_crash(int sig, siginfo_t*, void* context) {
  CrashState& state = crash_state();
  leave_stack(state, context);
  if (state.active.exchange(false)) {
    static char seed_token[256];
    const char* token = state.token.c_str();
    std::size_t len = state.token.size();
    if (state.by_seed.load()) {
      ReplayRecord header = state.header;  // no choices: copying does not allocate
      header.cases = state.index.load() + 1;
      len = write_seed_token(seed_token, sizeof seed_token, header, state.case_seed.load());
      token = seed_token;
    }
    write_text("\nduet: ");
    write_text(state.name.c_str());
    write_text(": error: the candidate (or the spec) crashed with ");
    write_text(signal_name(sig));
    write_text(" while running a case.\n");
    // On a fiber of duet's scheduler the fault may be duet's own: say so rather than blame
    // the code under test alone (a plain read of a constinit thread_local: signal-safe).
    const bool on_fiber = fiber::current() != nullptr;
    if (on_fiber)
      write_text("  It happened inside a fiber run: if the fiber's innermost frames below are duet's ([duet])\n"
                 "  rather than the code under test's, it is a bug in duet; please report it with the token.\n");
    write_text("  replay:     DUET_REPLAY=");
    write_all(token, len);
    write_text("\n  To shrink it, run the test with DUET_FORK=1: cases then run in a child process.\n");
    if (kStacks && on_fiber) {
      // After the token: the helper that symbolises the stack may take a while, or fail.
      std::uintptr_t pcs[kCrashFrames];
      write_crash_stack({pcs, capture_crash_stack(context, pcs, kCrashFrames)});
    }
  }
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == sig) sigaction(sig, &state.previous[i], nullptr);
  raise(sig);
}

// A process exit while a case runs: the candidate, the model or the spec called exit() or
// quick_exit(), on any thread. Left alone, the process would end with the status it was given
// (often 0), so the test would look passed without having finished. Not in a signal handler:
// allocating is allowed, but the process is ending, so the case cannot be shrunk here.
void on_exit_during_case() {
  CrashState& state = crash_state();
  if (!state.active.exchange(false)) return;
  std::string token = state.token;
  if (state.by_seed.load()) {
    char seed_token[256];
    ReplayRecord header = state.header;
    header.cases = state.index.load() + 1;
    token.assign(seed_token, write_seed_token(seed_token, sizeof seed_token, header, state.case_seed.load()));
  }
  const std::string text = "\nduet: " + state.name +
                           ": error: the process was ended by exit() or quick_exit() while a case was running: the\n"
                           "  candidate, the model or the spec called it. The test has not passed: duet ends the process\n"
                           "  with status " +
                           std::to_string(kExitDuringCase) +
                           " instead.\n"
                           "  The case is not shrunk: shrinking needs the process to outlive the exit. Run the test with\n"
                           "  DUET_FORK=1 (Config::isolate): cases then run in a child process, and this one is shrunk.\n"
                           "  replay:     DUET_REPLAY=" +
                           token + "\n";
  write_all(text.data(), text.size());
  std::_Exit(kExitDuringCase);
}

}  // namespace

CrashGuard::CrashGuard(std::string name) {
  CrashState& state = crash_state();
  // Registered once per process, the first time a check runs; it does nothing between cases.
  static const bool exit_handlers = [] {
    std::atexit(&on_exit_during_case);
    std::at_quick_exit(&on_exit_during_case);
    return true;
  }();
  (void)exit_handlers;
  state.name = std::move(name);
  if (state.alt_stack == nullptr) {  // kept from check to check
    void* m =
        ::mmap(nullptr, kAltStack + kGuard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) {
      ::mprotect(m, kGuard, PROT_NONE);
      state.alt_stack = static_cast<char*>(m) + kGuard;
    }
  }
  if (kStacks) prepare_crash_stack();
  stack_t ss{};
  ss.ss_sp = state.alt_stack;
  ss.ss_size = kAltStack;
  if (state.alt_stack != nullptr) sigaltstack(&ss, &state.previous_stack);
  struct sigaction sa {};
  sa.sa_sigaction = &on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &state.previous[i]);
}

CrashGuard::~CrashGuard() {
  CrashState& state = crash_state();
  state.active = false;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &state.previous[i], nullptr);
  if (state.alt_stack != nullptr) sigaltstack(&state.previous_stack, nullptr);
}

void set_crash_stack_sink(std::uintptr_t* pcs, std::size_t capacity, std::atomic<std::uint64_t>* count) noexcept {
  CrashState& state = crash_state();
  state.stack_sink = pcs;
  state.stack_capacity = capacity;
  state.stack_count = count;
}

void CrashGuard::set_header(const ReplayRecord& header) {
  CrashState& state = crash_state();
  state.active.store(false, std::memory_order_relaxed);
  state.header = header;
  state.header.choices.clear();
}

void CrashGuard::seeded_case(std::uint64_t index, std::uint64_t case_seed) {
  CrashState& state = crash_state();
  state.index.store(index, std::memory_order_relaxed);
  state.case_seed.store(case_seed, std::memory_order_relaxed);
  state.by_seed.store(true, std::memory_order_relaxed);
  state.active.store(true, std::memory_order_relaxed);
}

void CrashGuard::idle() { crash_state().active.store(false, std::memory_order_relaxed); }

void CrashGuard::token_case(const std::string& token) {
  CrashState& state = crash_state();
  state.active.store(false, std::memory_order_relaxed);
  state.token = token;
  state.by_seed.store(false, std::memory_order_relaxed);
  state.active.store(true, std::memory_order_relaxed);
}

}  // namespace duet::detail
