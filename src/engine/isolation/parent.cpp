#include "engine/isolation/parent.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "duet/detail/fiber_hooks.hpp"
#include "engine/candidate_fork.hpp"
#include "engine/case_wire.hpp"
#include "engine/crash.hpp"
#include "engine/isolation/shared_block.hpp"
#include "engine/messages.hpp"
#include "execute/fibers/instrumented.hpp"
#include "show/text.hpp"

namespace duet::detail {
namespace {

constexpr auto kAcquire = std::memory_order_acquire;
constexpr auto kRelaxed = std::memory_order_relaxed;

std::int64_t now_ns() { return steady_now_ns(); }

// A child forked on a fiber's stack would go on with the fiber run, and its scheduler would take
// it back into the outer check and then into the test program.
void refuse_inside_a_fiber_run() {
  if (fiber::current() != nullptr)
    throw std::runtime_error(
        "isolation: this check was started inside a fiber run (by a call of a check on duet::fibers()), and an "
        "isolated check (DUET_FORK=1, or a parallel check on threads, isolated by default) cannot run there: a "
        "child process would go on with the fiber run");
}

// duet's own fork: its child is not the candidate's (candidate_fork.hpp).
pid_t fork_own_child() {
  const OwnFork own;
  return ::fork();
}

}  // namespace

Isolation::Isolation(Handler handler, std::function<void()> in_child, double hang_seconds, double time_scale)
    : handler_(std::move(handler)), in_child_(std::move(in_child)), hang_seconds_(hang_seconds), time_scale_(time_scale) {
  void* m = ::mmap(nullptr, sizeof(SharedBlock), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error(std::string("isolation: cannot map shared memory: ") + std::strerror(errno));
  shared_ = new (m) SharedBlock;  // default-initialised: the atomics zeroed, the arrays' pages untouched
}

Isolation::~Isolation() {
  if (pid_ > 0) {
    ::close(fd_);  // the child reads end of input and leaves
    int status = 0;
    // A child that does not leave promptly (it should be idle) is killed.
    for (int i = 0; i < 200 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) ::usleep(1000);
    if (::waitpid(pid_, &status, WNOHANG) == 0) kill_and_reap();
    forward_output();
  }
  if (output_fd_ >= 0) ::close(output_fd_);
  shared_->~SharedBlock();
  ::munmap(shared_, sizeof(SharedBlock));
}

SearchCounts Isolation::counts() const { return shared_->counts.load(); }
void Isolation::reset_counts() { shared_->counts.store(SearchCounts{}); }

void Isolation::spawn() {
  refuse_inside_a_fiber_run();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(std::string("isolation: socketpair failed: ") + std::strerror(errno));
  if (output_fd_ >= 0) ::close(output_fd_);
  output_fd_ = ::memfd_create("duet-child-stderr", MFD_CLOEXEC);
  forwarded_ = 0;
  shared_->case_started_ns.store(0, kRelaxed);
  shared_->exit_called.store(0, kRelaxed);
  for (SharedCount* count : {&shared_->trace_len, &shared_->calling_len, &shared_->stack_count}) count->store(0, kRelaxed);
  // An instrumented binary's child symbolises its trace from the DWARF, read on the first lookup
  // (about 0.15 s): read here once, each child starts with it (engine/clean_child.cpp does the same).
  fiber::symbolize_ahead({__builtin_return_address(0)});
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = fork_own_child();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("isolation: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    IsolatedChild::serve({*shared_, fds[1], output_fd_, parent}, handler_, in_child_);
  }
  ::close(fds[1]);
  ::setpgid(pid, pid);  // as the child does: whichever runs first
  pid_ = pid;
  fd_ = fds[0];
  ++children_;
  clock_ = HangClock::of_process(pid, 0, true);
  clocked_case_ = 0;
}

void Isolation::forward_output() {
  if (output_fd_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::pread(output_fd_, buf, sizeof buf, static_cast<off_t>(forwarded_));
    if (n <= 0) break;
    forwarded_ += static_cast<std::uint64_t>(n);
    std::fwrite(buf, 1, static_cast<std::size_t>(n), stderr);
  }
}

int Isolation::kill_and_reap() {
  ::kill(-pid_, SIGKILL);  // its group: what the candidate started as well
  ::kill(pid_, SIGKILL);   // in case it left the group
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::optional<int> Isolation::reaped() {
  siginfo_t info{};
  // Seen without reaping it first: its group (what the candidate started) is killed while its
  // id still names only that group.
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return errno == ECHILD ? std::optional<int>(0) : std::nullopt;  // ECHILD: reaped elsewhere (a SIGCHLD handler)
  if (info.si_pid != pid_) return std::nullopt;
  return kill_and_reap();
}

void Isolation::collect_death(bool hung, int status) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pid_ = -1;
  Remains r;
  const SharedBlock& s = *shared_;
  const std::int64_t started = s.case_started_ns.load(kAcquire);
  r.in_case = started != 0;
  if (r.in_case) r.case_ms = static_cast<double>(now_ns() - started) / 1e6;
  const int exit_called = s.exit_called.load(kAcquire);
  if (hung) {
    r.death.kind = Death::Kind::hang;
    r.death.limit_ms = hang_seconds_ * 1000;
    r.death.scale = time_scale_;
  } else if (WIFSIGNALED(status)) {
    r.death.kind = Death::Kind::signal;
    r.death.code = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitDuringCase && exit_called != 0) {
    r.death.kind = Death::Kind::exit_call;
    r.death.code = exit_called == 2 ? -1 : s.exit_status.load(kAcquire);
  } else {
    r.death.kind = Death::Kind::exit_status;
    r.death.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  collect_output(r.death);
  if (r.in_case) collect_case(r);
  remains_ = std::move(r);
}

// What the child printed since the last answer: a sanitizer's report, say (the last 8 KB).
void Isolation::collect_output(Death& death) const {
  if (output_fd_ < 0) return;
  const off_t size = ::lseek(output_fd_, 0, SEEK_END);
  if (size <= static_cast<off_t>(forwarded_)) return;
  const std::uint64_t from = std::max<std::uint64_t>(
      forwarded_, static_cast<std::uint64_t>(size) > 8192 ? static_cast<std::uint64_t>(size) - 8192 : 0);
  std::string out(static_cast<std::size_t>(static_cast<std::uint64_t>(size) - from), '\0');
  const ssize_t n = ::pread(output_fd_, out.data(), out.size(), static_cast<off_t>(from));
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  death.output = std::move(out);
  death.sanitizer = sanitizer_headline(death.output);
}

// Read once the child is reaped: every count covers entries written before it.
void Isolation::collect_case(Remains& r) const {
  const SharedBlock& s = *shared_;
  const auto n = static_cast<std::size_t>(s.choice_count.load(kAcquire));
  r.choices.assign(s.choices, s.choices + std::min(n, SharedBlock::kChoices));
  r.choices_complete = n <= SharedBlock::kChoices;
  const auto k = static_cast<std::size_t>(s.span_count.load(kAcquire));
  for (std::size_t i = 0; i < std::min(k, SharedBlock::kSpans); ++i)
    if (s.spans[i].end <= r.choices.size()) r.spans.push_back(s.spans[i]);
  r.concurrent_start = static_cast<std::size_t>(s.concurrent_start.load(kAcquire));
  r.trials = s.case_trials.load(kRelaxed);
  r.overlapped = s.case_overlapped.load(kRelaxed);
  r.cpus = s.case_cpus.load(kRelaxed);
  if (const std::uint64_t len = s.trace_len.load(kAcquire); len > 0 && len <= SharedBlock::kTrace) {
    try {
      r.trace = decode<Trace>(std::string(s.trace, static_cast<std::size_t>(len)));
    } catch (const std::exception&) {
      r.trace.reset();  // written halfway when the child died: no partial trace
    }
  }
  if (const std::uint64_t len = s.calling_len.load(kAcquire); len > 0 && len <= SharedBlock::kCalling)
    r.calling.assign(s.calling, static_cast<std::size_t>(len));
  const auto frames = std::min<std::size_t>(static_cast<std::size_t>(s.stack_count.load(kAcquire)), kCrashFrames);
  r.death.stack.assign(s.stack, s.stack + frames);
}

std::optional<std::string> Isolation::call(const std::string& request, const std::function<void()>& tick) {
  if (pid_ <= 0) spawn();
  shared_->trace_len.store(0, kRelaxed);
  shared_->calling_len.store(0, kRelaxed);
  if (!send_message(fd_, request)) {
    // The child is gone although it had answered: end it properly and try once more.
    collect_death(false, kill_and_reap());
    spawn();
    if (!send_message(fd_, request)) throw std::runtime_error("isolation: cannot send a request to the child process");
  }
  const std::int64_t hang_ns = static_cast<std::int64_t>(hang_seconds_ * 1e9);
  // About 8 looks per hang limit, every 10 to 200 ms: the time a case waited for a CPU before the
  // first look that sees it running is counted only once it shows in the child's accounting
  // (hang_clock.cpp), and each look reads the accounting of every thread of the child.
  const int tick_ms = hang_ns > 0 ? static_cast<int>(std::clamp<std::int64_t>(hang_ns / 8000000, 10, 200)) : 200;
  // The child runs cases one after the other; outside a case it only passes messages. Stuck
  // outside any case this long, it is not running the candidate: it deadlocked after fork (a
  // lock another thread of the parent held), and would otherwise be waited for forever.
  const auto stuck_outside_cases_ns = static_cast<std::int64_t>(30e9 * time_scale_);
  // A child whose socket closed outside a case is leaving: this long at most.
  const auto leaving_ns = static_cast<std::int64_t>(2e9 * time_scale_);
  // Once the socket is closed (the child ended, or the candidate closed every descriptor and
  // went on), only the child's exit or the clock ends the wait: never a read.
  std::int64_t closed_at = 0;
  std::int64_t outside_since = now_ns();
  for (;;) {
    int wait_ms = tick_ms;
    const std::int64_t started = shared_->case_started_ns.load(kAcquire);
    const std::int64_t now = now_ns();
    if (started != 0) {
      outside_since = 0;
    } else if (outside_since == 0) {
      outside_since = now;
    } else if (now - outside_since > (closed_at ? leaving_ns : stuck_outside_cases_ns)) {
      collect_death(false, kill_and_reap());
      remains_.death.output +=
          closed_at ? "\n(duet: the child process closed its socket and did not end)"
                    : printf_string("\n(duet: the child process ran no case for %g s: stuck after fork?)", 30 * time_scale_);
      return std::nullopt;
    }
    if (started != 0 && hang_ns > 0) {
      const std::int64_t left = hang_ns - case_time(started);
      if (left <= 0) {
        collect_death(true, kill_and_reap());
        return std::nullopt;
      }
      wait_ms = static_cast<int>(std::min<std::int64_t>(tick_ms, left / 1000000 + 1));
    }
    if (closed_at != 0) {
      if (const std::optional<int> status = reaped()) {
        collect_death(false, *status);
        return std::nullopt;
      }
      ::poll(nullptr, 0, std::min(wait_ms, 2));
    } else {
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, wait_ms);
      if (ready < 0 && errno != EINTR)
        throw std::runtime_error(std::string("isolation: poll failed: ") + std::strerror(errno));
      if (ready > 0) {
        std::optional<std::string> answer = read_message(fd_, now_ns() + stuck_outside_cases_ns);
        if (answer) {
          forward_output();
          return answer;
        }
        closed_at = now_ns();
        continue;
      }
    }
    if (tick) tick();
  }
}

// The running case's time so far on the child's HangClock: not the time the child waited for a
// CPU. A case seen for the first time starts the clock at its start (the child's own reading).
std::int64_t Isolation::case_time(std::int64_t started) {
  if (started != clocked_case_) {
    clock_->restart(std::min(started, now_ns()));
    clocked_case_ = started;
  }
  return clock_->elapsed_ns();
}

ShrinkProgress Isolation::shrink_progress() const {
  const SharedBlock& s = *shared_;
  ShrinkProgress p;
  p.tried = s.shrink_tried.load(kRelaxed);
  p.kept = s.shrink_kept.load(kRelaxed);
  if (const auto c = static_cast<std::size_t>(s.candidate_count.load(kAcquire)); c > 0 && c - 1 <= SharedBlock::kChoices)
    p.candidate.assign(s.candidate, s.candidate + (c - 1));
  const auto n = static_cast<std::size_t>(s.best_count.load(kAcquire));
  const auto spans = static_cast<std::size_t>(s.best_span_count.load(kRelaxed));
  if (n > 0 && n - 1 <= SharedBlock::kChoices && spans <= SharedBlock::kSpans) {
    p.accepted = true;
    p.choices.assign(s.best, s.best + (n - 1));
    p.spans.assign(s.best_spans, s.best_spans + spans);
    p.mark = static_cast<std::size_t>(s.best_mark.load(kRelaxed));
  }
  return p;
}

void Isolation::reset_shrink_progress() {
  for (SharedCount* count : {&shared_->shrink_tried, &shared_->shrink_kept, &shared_->best_count, &shared_->candidate_count})
    count->store(0, kRelaxed);
}

}  // namespace duet::detail
