#include "engine/clean_child.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <exception>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/backend.hpp"
#include "engine/candidate_fork.hpp"
#include "duet/detail/fiber_hooks.hpp"
#include "engine/run_context.hpp"
#include "report/report.hpp"

namespace duet::detail {

CleanChild::CleanChild(RunContext& context) {
  const Execution& execution = *context.property.execution;
  if (context.settings.isolate || !execution.may_leave_calls_unfinished()) return;
  unfinished_at_start_ = execution.trials_left_unfinished();
#if defined(__SANITIZE_THREAD__)
  why_none_ = "ThreadSanitizer builds fork no child for it";
#else
  // A check started inside a fiber run cannot fork (isolation refuses it): the outer run's
  // fibers would go on in the child.
  if (fiber::current() != nullptr) {
    why_none_ = "the check runs inside a fiber run, where no child can be forked";
    return;
  }
  try {
    child_ = std::make_unique<ForkedBackend>(context);
    child_->start(true);
  } catch (const std::exception& e) {
    child_.reset();
    why_none_ = e.what();
  }
#endif
}

CleanChild::~CleanChild() = default;

void CleanChild::take_over(RunContext& context, ReportData& data) {
  const Execution& execution = *context.property.execution;
  if (!execution.may_leave_calls_unfinished() || execution.trials_left_unfinished() == unfinished_at_start_) return;
  data.left_unfinished = true;
  if (!child_) {
    data.no_clean_child = why_none_;
    return;
  }
  context.backend = child_.get();
  // No case runs here any more: the child's own hang limit watches them.
  context.monitor = nullptr;
}

namespace {

bool write_all(int fd, const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_to_end(int fd) {
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return bytes;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
}

// The case's process died (or left without its answer): this one dies the same way. Its
// parent, isolation's, reads the death from the wait status and the shared memory.
[[noreturn]] void die_as(int status) {
  if (WIFSIGNALED(status)) {
    std::signal(WTERMSIG(status), SIG_DFL);
    ::kill(::getpid(), WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);
}

}  // namespace

CaseRun FreshProcessBackend::run_case(RunRequest request) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return inner_.run_case(std::move(request));
  const bool traced = request.traced;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  {
    const OwnFork own;
    pid = ::fork();
  }
  if (pid < 0) {  // no process for it: run here, as isolation's child always did
    ::close(fds[0]);
    ::close(fds[1]);
    return inner_.run_case(std::move(request));
  }
  if (pid == 0) {
    ::close(fds[0]);
    const std::string answer = encode_answer(RunAnswer{inner_.run_case(std::move(request)), traced});
    std::fflush(stdout);
    ::_exit(write_all(fds[1], answer) ? 0 : 125);
  }
  ::close(fds[1]);
  const std::string answer = read_to_end(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) die_as(status);
  return decode_answer<RunAnswer>(answer).run;
}

}  // namespace duet::detail
