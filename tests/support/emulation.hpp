// Tests run natively or, for `make multiarch`, under qemu-user (DUET_TEST_EMULATED is defined
// when cross-compiled; DUET_TEST_TIME_SCALE is set by tests/multiarch/run.sh).
#pragma once

#include <duet/config.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#ifdef DUET_TEST_EMULATED
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace duet_test {

/// GoogleTest's "threadsafe" death tests re-execute the test binary, which a cross-compiled
/// binary cannot do under qemu-user without binfmt_misc: there they fork only ("fast").
inline const char* reexec_death_test_style() {
#ifdef DUET_TEST_EMULATED
  return "fast";
#else
  return "threadsafe";
#endif
}

/// How much slower than native the tests run: a wall-clock expectation or budget in a test
/// is multiplied by it. 1 natively; tests/multiarch/run.sh sets DUET_TEST_TIME_SCALE under qemu.
inline double time_scale() {
  const char* v = std::getenv("DUET_TEST_TIME_SCALE");
  if (v == nullptr || *v == '\0') return 1.0;
  const double s = std::strtod(v, nullptr);
  return s >= 1.0 ? s : 1.0;
}

/// Whether a child of fork() can start a thread when its parent had another thread alive at
/// the fork. Always natively. Debian 12's qemu-user (7.2) aborts such a child with exit status
/// 127 ("qemu_plugin_vcpu_init_hook: assertion failed: (success)": the child's new thread gets
/// the number of a parent thread that qemu still holds); probed once, so that a fixed qemu
/// runs the tests that need it. A test that needs it skips, or runs in process, when it is false.
inline bool forked_children_start_threads() {
#ifdef DUET_TEST_EMULATED
  static const bool can = [] {
    std::atomic<bool> done{false};
    std::thread alive([&] {
      while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    const pid_t pid = fork();
    if (pid == 0) {
      const int null = open("/dev/null", O_WRONLY);  // qemu's own assertion lines
      if (null >= 0) dup2(null, 2);
      std::thread([] {}).join();
      _exit(0);
    }
    int status = 0;
    const bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    done = true;
    alive.join();
    return ok;
  }();
  return can;
#else
  return true;
#endif
}

/// Why a test that needs forked_children_start_threads() skips.
inline constexpr const char* kForkedChildThreadsReason =
    "this emulator aborts a child of fork() that starts a thread while its parent had another "
    "thread (qemu-user 7.2: qemu_plugin_vcpu_init_hook assertion)";

/// A parallel check on threads runs isolated by default, its threads started in a child of fork()
/// while duet's watchdog thread of a check just before may still live (it ends at its next look,
/// within 100 ms). Where the emulator cannot start threads there, a test whose point is not the
/// isolation runs that check in process; elsewhere `c` is returned unchanged.
inline duet::Config in_process_if_forks_cannot_start_threads(duet::Config c) {
  if (!forked_children_start_threads()) c.isolate = false;
  return c;
}

/// Whether a 16-byte compare-exchange completes. Always natively. Debian 12's qemu-ppc64le (7.2)
/// never completes one: its `stqcx.` fails every time, so the `lqarx`/`stqcx.` loop the compiler
/// emits spins for ever, even in a one-threaded program (POWER hardware completes it). Probed once
/// in a child of fork() with a deadline, so that a fixed qemu runs the tests that need it.
inline bool sixteen_byte_cas_completes() {
#if defined(DUET_TEST_EMULATED) && defined(__SIZEOF_INT128__)
  static const bool can = [] {
    const pid_t pid = fork();
    if (pid == 0) {
      alignas(16) static unsigned __int128 word = 0;
      unsigned __int128 expected = 0;
      _exit(__atomic_compare_exchange_n(&word, &expected, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ? 0 : 1);
    }
    if (pid < 0) return false;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(2 * time_scale());  // microseconds where it completes
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }();
  return can;
#else
  return true;
#endif
}

/// Why a test that needs sixteen_byte_cas_completes() skips.
inline constexpr const char* kSixteenByteCasReason =
    "this emulator never completes a 16-byte compare-exchange (qemu-user 7.2's stqcx. on ppc64el "
    "fails every time), and the code under test uses one";

}  // namespace duet_test
