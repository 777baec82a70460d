#include "engine/isolate.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "duet/detail/fiber_hooks.hpp"
#include "engine/candidate_fork.hpp"
#include "engine/crash.hpp"
#include "engine/crash_stack.hpp"
#include "engine/messages.hpp"
#include "engine/wire.hpp"
#include "execute/fibers/instrumented.hpp"
#include "generate/choice_tap.hpp"
#include "show/text.hpp"

namespace duet::detail {

// Everything the child must leave where the parent can read it after the child is gone.
// Mapped shared and anonymous before the first fork; untouched pages cost nothing.
struct Isolation::Shared {
  static constexpr std::size_t kChoices = Source::kMaxChoices;
  static constexpr std::size_t kSpans = std::size_t{1} << 16;
  static constexpr std::size_t kTrace = std::size_t{1} << 20;
  static constexpr std::size_t kCalling = 4096;

  volatile std::int64_t case_started_ns;  // steady clock; 0 while no case runs
  volatile std::int32_t exit_status;      // set by exit() during a case
  volatile std::int32_t exit_called;      // 1: exit(), 2: quick_exit()
  SearchCounts counts;
  volatile std::uint64_t choice_count, span_count, concurrent_start;
  volatile std::uint64_t trace_len, calling_len;
  volatile std::uint64_t case_trials, case_overlapped, case_cpus;  // the running case's, so far
  volatile std::uint64_t stack_count;                              // a crash on a fiber: its stack
  std::uintptr_t stack[kCrashFrames];
  // A shrink in the child: the last case it kept.
  volatile std::uint64_t shrink_tried, shrink_kept, best_count, best_span_count, best_mark, candidate_count;
  std::uint64_t best[kChoices];
  std::uint64_t candidate[kChoices];
  Source::Span best_spans[kSpans];
  char trace[kTrace];
  char calling[kCalling];
  Source::Span spans[kSpans];
  std::uint64_t choices[kChoices];
};

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() { return steady_now_ns(); }

// The child's view (set once, right after the fork).
Isolation::Shared* child_shared = nullptr;
ChoiceTap child_tap;

// exit() during a case: record how it was called and end the child at once (static destructors
// of the test binary must not run in the child). Registered in the child, so it runs before the
// handlers the parent registered.
void child_on_exit(int status, void*) {
  if (!child_shared || child_shared->case_started_ns == 0) return;
  child_shared->exit_status = status;
  child_shared->exit_called = 1;
  std::fflush(stdout);
  ::_exit(kExitDuringCase);
}
void child_on_quick_exit() {
  if (!child_shared || child_shared->case_started_ns == 0) return;
  child_shared->exit_called = 2;
  std::fflush(stdout);
  ::_exit(kExitDuringCase);
}

class SharedObserver final : public CaseObserver {
 public:
  void calling(const std::string& code) override {
    Isolation::Shared& s = *child_shared;
    const std::size_t n = std::min(code.size(), sizeof s.calling);
    s.calling_len = 0;
    std::memcpy(s.calling, code.data(), n);
    s.calling_len = n;
  }
  void steps_done(const Trace& trace) override {
    Isolation::Shared& s = *child_shared;
    WireWriter w;
    write_trace(w, trace);
    s.calling_len = 0;
    if (w.bytes().size() > sizeof s.trace) return;  // too big to keep: the previous one stays
    s.trace_len = 0;
    std::memcpy(s.trace, w.bytes().data(), w.bytes().size());
    s.trace_len = w.bytes().size();
  }
  // A parallel case is a hang when one of its trials outlives the limit, not when all of them
  // together do: an exhaustive search runs a program thousands of times in one case.
  void trial_starts(const CaseOutcome& so_far) override {
    Isolation::Shared& s = *child_shared;
    if (s.case_started_ns != 0) s.case_started_ns = now_ns();
    s.case_trials = so_far.trials;
    s.case_overlapped = so_far.overlapped;
    s.case_cpus = so_far.cpus;
  }
};
SharedObserver shared_observer;

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "a segmentation fault (SIGSEGV)";
    case SIGBUS: return "a bus error (SIGBUS)";
    case SIGFPE: return "an arithmetic fault (SIGFPE)";
    case SIGILL: return "an illegal instruction (SIGILL)";
    case SIGABRT: return "an abort (SIGABRT)";
    case SIGKILL: return "SIGKILL (from outside: the out-of-memory killer?)";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "a trap (SIGTRAP)";
    default: return nullptr;
  }
}

// The headline of a sanitizer's report in the child's output: "AddressSanitizer: SEGV on
// unknown address 0x000000000000 (pc ...)" without the pid prefix and the pc details.
std::string sanitizer_headline(const std::string& out) {
  struct Key {
    const char* text;
    std::size_t hidden;  // leading characters of `text` not shown ("ERROR: ")
  };
  for (const Key key :
       {Key{"ERROR: AddressSanitizer: ", 7}, Key{"ERROR: LeakSanitizer: ", 7}, Key{"WARNING: ThreadSanitizer: ", 9},
        Key{"ERROR: MemorySanitizer: ", 7}, Key{"runtime error: ", 0}}) {
    const std::size_t at = out.find(key.text);
    if (at == std::string::npos) continue;
    std::size_t from = at + key.hidden;
    if (key.hidden == 0) {  // UBSan: the whole line, which starts with the source location
      const std::size_t line_start = out.rfind('\n', at);
      from = line_start == std::string::npos ? 0 : line_start + 1;
    }
    const std::size_t end = out.find('\n', from);
    std::string line = out.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (const std::size_t pc = line.find(" (pc "); pc != std::string::npos) line.resize(pc);
    if (line.size() > 200) line.resize(200);
    return line;
  }
  return {};
}

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

std::string Death::what() const {
  std::string s;
  switch (kind) {
    case Kind::signal:
      if (const char* t = signal_text(code)) s = t;
      else s = printf_string("signal %d (%s)", code, strsignal(code));
      break;
    case Kind::exit_call: s = code < 0 ? "a call of quick_exit()" : "a call of exit(" + std::to_string(code) + ")"; break;
    case Kind::exit_status:
      // A sanitizer ends the process with its own status after its report: the report says more.
      if (!sanitizer.empty()) return sanitizer + " (exit status " + std::to_string(code) + ")";
      s = "an exit with status " + std::to_string(code);
      break;
    case Kind::hang: s = printf_string("hang after %.0f ms", limit_ms / scale) + scale_note(scale); break;
  }
  if (!sanitizer.empty()) s += ", " + sanitizer;
  return s;
}

Isolation::Isolation(Handler handler, std::function<void()> in_child, double hang_seconds, double time_scale)
    : handler_(std::move(handler)), in_child_(std::move(in_child)), hang_seconds_(hang_seconds), time_scale_(time_scale) {
  void* m = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error(std::string("isolation: cannot map shared memory: ") + std::strerror(errno));
  shared_ = static_cast<Shared*>(m);
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
  ::munmap(shared_, sizeof(Shared));
}

const SearchCounts& Isolation::counts() const { return shared_->counts; }
void Isolation::reset_counts() { shared_->counts = SearchCounts{}; }

void Isolation::spawn() {
  refuse_inside_a_fiber_run();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(std::string("isolation: socketpair failed: ") + std::strerror(errno));
  if (output_fd_ >= 0) ::close(output_fd_);
  output_fd_ = ::memfd_create("duet-child-stderr", MFD_CLOEXEC);
  forwarded_ = 0;
  shared_->case_started_ns = 0;
  shared_->exit_called = 0;
  shared_->trace_len = 0;
  shared_->calling_len = 0;
  shared_->stack_count = 0;
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
    const int fd = fds[1];
    // A group of its own, so that a hang kills whatever the candidate started too; and no
    // life after the parent's (a parent killed by Ctrl-C, which its group no longer gets).
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);  // the parent was gone before prctl
    child_shared = shared_;
    child_tap.choices = shared_->choices;
    child_tap.capacity = Shared::kChoices;
    child_tap.spans = shared_->spans;
    child_tap.span_capacity = Shared::kSpans;
    child_tap.count = &shared_->choice_count;
    child_tap.span_count = &shared_->span_count;
    child_tap.concurrent_start = &shared_->concurrent_start;
    child_tap.source = nullptr;
    choice_tap = &child_tap;
    set_crash_stack_sink(shared_->stack, kCrashFrames, &shared_->stack_count);
    if (output_fd_ >= 0) ::dup2(output_fd_, 2);
    ::on_exit(&child_on_exit, nullptr);
    std::at_quick_exit(&child_on_quick_exit);
    // Signal handlers stay as they are: the parent's crash guard reports only while the parent
    // runs a case (never here) and passes a signal on to the handler before it (a sanitizer's,
    // whose report the parent attaches) or to the default action, which ends the child.
    if (in_child_) in_child_();
    for (;;) {
      std::optional<std::string> request = read_message(fd);
      if (!request) break;  // the parent is done
      std::string answer;
      try {
        answer = handler_(*request);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "duet: isolation: the child process failed: %s\n", e.what());
        std::fflush(stderr);
        ::_exit(125);
      }
      leave_if_candidates_child();  // it would answer on the child's socket
      std::fflush(stdout);
      if (!send_message(fd, answer)) break;
    }
    std::fflush(stdout);
    ::_exit(0);
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
  Shared& s = *shared_;
  const std::int64_t started = s.case_started_ns;
  r.in_case = started != 0;
  if (r.in_case) r.case_ms = static_cast<double>(now_ns() - started) / 1e6;
  if (hung) {
    r.death.kind = Death::Kind::hang;
    r.death.limit_ms = hang_seconds_ * 1000;
    r.death.scale = time_scale_;
  } else if (WIFSIGNALED(status)) {
    r.death.kind = Death::Kind::signal;
    r.death.code = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitDuringCase && s.exit_called != 0) {
    r.death.kind = Death::Kind::exit_call;
    r.death.code = s.exit_called == 2 ? -1 : s.exit_status;
  } else {
    r.death.kind = Death::Kind::exit_status;
    r.death.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // What the child printed since the last answer: a sanitizer's report, say (the last 8 KB).
  if (output_fd_ >= 0) {
    const off_t size = ::lseek(output_fd_, 0, SEEK_END);
    if (size > static_cast<off_t>(forwarded_)) {
      const std::uint64_t from = std::max<std::uint64_t>(
          forwarded_, static_cast<std::uint64_t>(size) > 8192 ? static_cast<std::uint64_t>(size) - 8192 : 0);
      std::string out(static_cast<std::size_t>(static_cast<std::uint64_t>(size) - from), '\0');
      const ssize_t n = ::pread(output_fd_, out.data(), out.size(), static_cast<off_t>(from));
      out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      r.death.output = std::move(out);
      r.death.sanitizer = sanitizer_headline(r.death.output);
    }
  }
  if (r.in_case) {
    const std::size_t n = static_cast<std::size_t>(s.choice_count);
    r.choices.assign(s.choices, s.choices + std::min(n, Shared::kChoices));
    r.choices_complete = n <= Shared::kChoices;
    const std::size_t k = static_cast<std::size_t>(s.span_count);
    for (std::size_t i = 0; i < std::min(k, Shared::kSpans); ++i)
      if (s.spans[i].end <= r.choices.size()) r.spans.push_back(s.spans[i]);
    r.concurrent_start = static_cast<std::size_t>(s.concurrent_start);
    r.trials = s.case_trials;
    r.overlapped = s.case_overlapped;
    r.cpus = s.case_cpus;
    if (s.trace_len > 0 && s.trace_len <= Shared::kTrace) {
      try {
        const std::string bytes(s.trace, static_cast<std::size_t>(s.trace_len));
        WireReader reader(bytes);
        r.trace = read_trace(reader);
      } catch (const std::exception&) {
        r.trace.reset();  // written halfway when the child died: no partial trace
      }
    }
    if (s.calling_len > 0 && s.calling_len <= Shared::kCalling)
      r.calling.assign(s.calling, static_cast<std::size_t>(s.calling_len));
    r.death.stack.assign(s.stack, s.stack + std::min<std::size_t>(static_cast<std::size_t>(s.stack_count), kCrashFrames));
  }
  remains_ = std::move(r);
}

std::optional<std::string> Isolation::call(const std::string& request, const std::function<void()>& tick) {
  if (pid_ <= 0) spawn();
  shared_->trace_len = 0;
  shared_->calling_len = 0;
  if (!send_message(fd_, request)) {
    // The child is gone although it had answered: end it properly and try once more.
    collect_death(false, kill_and_reap());
    spawn();
    if (!send_message(fd_, request)) throw std::runtime_error("isolation: cannot send a request to the child process");
  }
  const std::int64_t hang_ns = static_cast<std::int64_t>(hang_seconds_ * 1e9);
  constexpr int kTickMs = 200;
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
    int wait_ms = kTickMs;
    const std::int64_t started = shared_->case_started_ns;
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
      wait_ms = static_cast<int>(std::min<std::int64_t>(kTickMs, left / 1000000 + 1));
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

void Isolation::begin_case(const Source& src) {
  Shared& s = *child_shared;
  child_tap.source = &src;
  s.trace_len = 0;
  s.calling_len = 0;
  s.choice_count = 0;
  s.span_count = 0;
  s.concurrent_start = Source::kNoMark;
  s.case_trials = 0;
  s.case_overlapped = 0;
  s.case_cpus = 0;
  s.stack_count = 0;
  // The Source may already hold choices (a replay's Source is made before the case starts).
  const auto& c = src.choices();
  for (std::size_t i = 0; i < c.size() && i < Shared::kChoices; ++i) s.choices[i] = c[i];
  s.choice_count = c.size();
  s.case_started_ns = now_ns();
}

void Isolation::end_case() {
  child_shared->case_started_ns = 0;
  child_tap.source = nullptr;
}

void Isolation::shrink_tried(const std::vector<std::uint64_t>& candidate) {
  Shared& s = *child_shared;
  s.shrink_tried = s.shrink_tried + 1;
  s.candidate_count = 0;
  if (candidate.size() > Shared::kChoices) return;
  std::copy(candidate.begin(), candidate.end(), s.candidate);
  s.candidate_count = candidate.size() + 1;  // +1: 0 means none
}

void Isolation::shrink_kept(const std::vector<std::uint64_t>& choices, const std::vector<Source::Span>& spans,
                            std::size_t mark) {
  Shared& s = *child_shared;
  if (choices.size() > Shared::kChoices || spans.size() > Shared::kSpans) return;  // too big to keep: the last one stays
  s.best_count = 0;                                                                // invalid while it is rewritten
  std::copy(choices.begin(), choices.end(), s.best);
  std::copy(spans.begin(), spans.end(), s.best_spans);
  s.best_span_count = spans.size();
  s.best_mark = mark;
  s.shrink_kept = s.shrink_kept + 1;
  s.best_count = choices.size() + 1;  // +1: 0 means none
}

ShrinkProgress Isolation::shrink_progress() const {
  const Shared& s = *shared_;
  ShrinkProgress p;
  p.tried = s.shrink_tried;
  p.kept = s.shrink_kept;
  if (const std::size_t c = static_cast<std::size_t>(s.candidate_count); c > 0 && c - 1 <= Shared::kChoices)
    p.candidate.assign(s.candidate, s.candidate + (c - 1));
  const std::size_t n = static_cast<std::size_t>(s.best_count);
  if (n > 0 && n - 1 <= Shared::kChoices && s.best_span_count <= Shared::kSpans) {
    p.accepted = true;
    p.choices.assign(s.best, s.best + (n - 1));
    p.spans.assign(s.best_spans, s.best_spans + static_cast<std::size_t>(s.best_span_count));
    p.mark = static_cast<std::size_t>(s.best_mark);
  }
  return p;
}

void Isolation::reset_shrink_progress() {
  shared_->shrink_tried = 0;
  shared_->shrink_kept = 0;
  shared_->best_count = 0;
  shared_->candidate_count = 0;
}

SearchCounts& Isolation::child_counts() { return child_shared->counts; }
CaseObserver* Isolation::observer() { return &shared_observer; }

}  // namespace duet::detail
