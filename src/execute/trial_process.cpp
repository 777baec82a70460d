#include "execute/trial_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <atomic>
#include <chrono>
#include <thread>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/candidate_fork.hpp"
#include "engine/messages.hpp"
#include "execute/fibers/instrumented.hpp"  // the trial heap
#include "execute/fibers/threads_outside.hpp"

namespace duet::detail {
namespace {

bool g_in_trial_process = false;  // set in the child only, whose one thread reads it

[[noreturn]] void child(int out, const std::function<std::string()>& trial) {
  g_in_trial_process = true;
  fiber::begin_trial_heap();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // nobody left to read the answer
  // A crash ends this process, and the process that forked it reports it; the check's own
  // crash report (a token, "run it with DUET_FORK=1") is that process's to make, not this one's.
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
  std::string answer;
  try {
    answer = trial();
  } catch (...) {  // never back into the forking process's code with this copy of it
    ::_exit(126);
  }
  std::fflush(stdout);  // what the trial printed, as a trial in the process would have
  std::fflush(stderr);
  const bool sent = send_message(out, answer);
  ::_exit(sent ? 0 : 125);
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status)) + " before its trial ended";
  return "ended before its trial did";
}

}  // namespace

bool in_trial_process() noexcept { return g_in_trial_process; }

namespace {

// forked_processes_start_threads's answer: not known yet, being probed (a fork the probe makes
// itself asks again), or known.
enum class ForkedThreads : int { unknown, probing, yes, no };
std::atomic<ForkedThreads> g_forked_threads{ForkedThreads::unknown};
const pid_t g_first_pid = ::getpid();  // the process duet started in: forked from nothing of duet's

// Whether `pid` ended within `limit` (its status in `status`); one that has not is killed.
bool ended_within(pid_t pid, int& status, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return false;
}

// The probe's child starts and joins one thread: milliseconds natively, more under an emulator;
// one still there after this long is taken as unable to.
constexpr std::chrono::seconds kProbeLimit{30};

bool probe_forked_threads() {
  const fiber::DuetsOwnThread own_threads;  // not the subject's: no "thread started outside" of it
  std::atomic<bool> done{false};
  std::thread alive([&done] {
    while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = -1;
  {
    const OwnFork own;
    pid = ::fork();
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);  // an emulator's assertion lines
    if (null >= 0) ::dup2(null, 2);
    std::thread([] {}).join();
    ::_exit(0);
  }
  int status = 0;
  const bool ok = pid > 0 && ended_within(pid, status, kProbeLimit);
  done = true;
  alive.join();
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

bool forked_processes_start_threads() {
  ForkedThreads known = g_forked_threads.load(std::memory_order_acquire);
  if (known == ForkedThreads::unknown &&
      g_forked_threads.compare_exchange_strong(known, ForkedThreads::probing, std::memory_order_acq_rel)) {
    known = probe_forked_threads() ? ForkedThreads::yes : ForkedThreads::no;
    g_forked_threads.store(known, std::memory_order_release);
  }
  return known != ForkedThreads::no;  // while another thread probes: as natively
}

bool duets_threads_start_here() noexcept {
  return ::getpid() == g_first_pid || g_forked_threads.load(std::memory_order_acquire) != ForkedThreads::no;
}

TrialProcessEnd run_in_trial_process(const std::function<std::string()>& trial) {
  TrialProcessEnd end;
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    end.why = std::string("could not be made (no pipe: ") + std::strerror(errno) + ")";
    return end;
  }
  fiber::prepare_trial_heap();
  std::fflush(stdout);  // else the child's copy of the buffers prints again
  std::fflush(stderr);
  pid_t pid = -1;
  {
    const OwnFork own;
    pid = ::fork();
  }
  if (pid == 0) {
    ::close(ends[0]);
    child(ends[1], trial);
  }
  ::close(ends[1]);
  if (pid < 0) {
    ::close(ends[0]);
    end.why = std::string("could not be forked: ") + std::strerror(errno);
    return end;
  }
  // The answer, or the end of the pipe when the process ended without one (the check's hang
  // limit watches a trial that never ends, as it would here).
  std::optional<std::string> answer = read_message(ends[0]);
  ::close(ends[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (answer && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    end.answered = true;
    end.answer = std::move(*answer);
  } else {
    end.why = describe(status);
  }
  return end;
}

}  // namespace duet::detail
