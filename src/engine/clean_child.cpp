#include "engine/clean_child.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string_view>
#include <stdexcept>
#include <variant>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/backend.hpp"
#include "engine/candidate_fork.hpp"
#include "engine/messages.hpp"
#include "duet/detail/fiber_hooks.hpp"
#include "engine/run_context.hpp"
#include "execute/fibers/instrumented.hpp"
#include "report/report.hpp"

namespace duet::detail {

CleanChild::CleanChild(RunContext& context) {
  const Execution& execution = *context.property.execution;
  if (context.settings.isolate || !execution.may_leave_calls_unfinished()) return;
  unfinished_at_start_ = execution.trials_left_unfinished();
  library_runs_at_start_ = fiber::runs_in_libraries();
#if defined(__SANITIZE_THREAD__)
  why_none_ = "ThreadSanitizer builds fork no child for it";
#else
  // A check started inside a fiber run cannot fork (isolation refuses it): the outer run's
  // fibers would go on in the child.
  if (fiber::current() != nullptr) {
    why_none_ = "the check runs inside a fiber run, where no child can be forked";
    return;
  }
  // Reading the DWARF (the first lookup) takes about 0.3 s: done here once, so that the child
  // and its workers start with it read. Instrumented code symbolises as it runs, so the search
  // would read it anyway; without duet::instrument this does nothing.
  fiber::symbolize_ahead({__builtin_return_address(0)});
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
  if (!execution.may_leave_calls_unfinished()) return;
  data.left_unfinished = execution.trials_left_unfinished() != unfinished_at_start_;
  const bool in_libraries = fiber::runs_in_libraries() != library_runs_at_start_;
  if (!data.left_unfinished && !in_libraries) return;
  if (!child_) {
    if (data.left_unfinished) data.no_clean_child = why_none_;
    return;
  }
  data.library_state = !data.left_unfinished;
  hand_over(context);
}

bool CleanChild::hand_over(RunContext& context) {
  if (!child_) return false;
  context.backend = child_.get();
  // No case runs here any more: the child's own hang limit watches them.
  context.monitor = nullptr;
  return true;
}

namespace {

// A retiring worker's last message: 'r', the code addresses it symbolised (a count, then the
// addresses), then its answer.
std::string retirement(const std::string& answer) {
  const std::vector<const void*> pcs = fiber::symbolized_addresses();
  const std::uint64_t count = pcs.size();
  std::string message(1, 'r');
  message.append(reinterpret_cast<const char*>(&count), sizeof count);
  message.append(reinterpret_cast<const char*>(pcs.data()), pcs.size() * sizeof(const void*));
  return message + answer;
}

// The addresses of a retirement; `rest` is left at its answer.
std::vector<const void*> symbolized_by_worker(std::string_view& rest) {
  std::uint64_t count = 0;
  if (rest.size() < sizeof count) return {};
  std::memcpy(&count, rest.data(), sizeof count);
  rest.remove_prefix(sizeof count);
  if (count > rest.size() / sizeof(const void*)) return {};
  std::vector<const void*> pcs(count);
  std::memcpy(pcs.data(), rest.data(), count * sizeof(const void*));
  rest.remove_prefix(count * sizeof(const void*));
  return pcs;
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

RetiringWorkerBackend::~RetiringWorkerBackend() { end_processes(); }

void RetiringWorkerBackend::end_processes() {
  if (pid_ > 0) {
    ::close(worker_);  // the worker reads the end of its requests and leaves
    reap();
  }
  if (zygote_pid_ > 0) {
    ::close(zygote_);  // the zygote reads the end of its requests and leaves
    int status = 0;
    while (::waitpid(zygote_pid_, &status, 0) < 0 && errno == EINTR) {
    }
    zygote_pid_ = -1;
  }
}

bool RetiringWorkerBackend::take_trial_processes() {
  if (!inner_.take_trial_processes()) return false;
  end_processes();  // forked before: their execution runs the trials in process
  return true;
}

namespace {

// The zygote's requests: 'f' with a socket (a new worker's end), answered with the worker's
// pid; 'w', answered with the last worker's wait status. No allocation on its side: it stays as
// it was forked.
// One byte, with room beside it for one descriptor (SCM_RIGHTS).
struct ByteWithFd {
  char byte = 0;
  iovec io{&byte, 1};
  alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  explicit ByteWithFd(char b) : byte(b) {
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = space;
    message.msg_controllen = sizeof space;
  }
  ByteWithFd(const ByteWithFd&) = delete;  // it points into itself
  ByteWithFd& operator=(const ByteWithFd&) = delete;
};

bool send_fd(int control, int fd) {
  ByteWithFd out('f');
  cmsghdr* c = CMSG_FIRSTHDR(&out.message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(control, &out.message, MSG_NOSIGNAL) == 1;
}
// A request: its byte, and for 'f' the socket (-1 where none came).
char receive_request(int control, int& fd) {
  ByteWithFd in(0);
  ssize_t got = 0;
  while ((got = ::recvmsg(control, &in.message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  fd = -1;
  if (got != 1) return 0;
  if (cmsghdr* c = CMSG_FIRSTHDR(&in.message); c != nullptr && c->cmsg_type == SCM_RIGHTS)
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return in.byte;
}
template <class T>
bool write_value(int fd, const T& value) {
  return ::send(fd, &value, sizeof value, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof value);
}
template <class T>
bool read_value(int fd, T& value) {
  ssize_t got = 0;
  while ((got = ::recv(fd, &value, sizeof value, MSG_WAITALL)) < 0 && errno == EINTR) {
  }
  return got == static_cast<ssize_t>(sizeof value);
}

}  // namespace

void RetiringWorkerBackend::zygote(int control) {
  pid_t worker = -1;
  for (;;) {
    int fd = -1;
    const char request = receive_request(control, fd);
    if (request == 'f' && fd >= 0) {
      {
        const OwnFork own;
        worker = ::fork();
      }
      if (worker == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the zygote gone, nobody reads the answer
        ::close(control);
        serve(fd);
      }
      ::close(fd);
      if (!write_value(control, worker)) break;
    } else if (request == 'w') {
      int status = 0;
      while (worker > 0 && ::waitpid(worker, &status, 0) < 0 && errno == EINTR) {
      }
      worker = -1;
      if (!write_value(control, status)) break;
    } else {
      break;  // the end of the requests: the check is over
    }
  }
  ::_exit(0);
}

void RetiringWorkerBackend::start_zygote() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    throw std::runtime_error("no socket for a zygote process");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  {
    const OwnFork own;
    pid = ::fork();
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the clean child gone: no more workers are wanted
    ::close(ends[0]);
    zygote(ends[1]);
  }
  ::close(ends[1]);
  if (pid < 0) {
    ::close(ends[0]);
    throw std::runtime_error("no zygote process could be forked");
  }
  zygote_pid_ = pid;
  zygote_ = ends[0];
}

int RetiringWorkerBackend::reap() {
  int status = 0;
  const char request = 'w';
  if (!write_value(zygote_, request) || !read_value(zygote_, status)) status = 125 << 8;  // as an exit with 125
  pid_ = -1;
  return status;
}

void RetiringWorkerBackend::spawn() {
  if (zygote_pid_ <= 0) start_zygote();
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    throw std::runtime_error("no socket for a worker process");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = -1;
  const bool sent = send_fd(zygote_, ends[1]);
  ::close(ends[1]);
  if (!sent || !read_value(zygote_, pid) || pid < 0) {
    ::close(ends[0]);
    throw std::runtime_error("no worker process could be forked");
  }
  pid_ = pid;
  worker_ = ends[0];
  ++workers_;
}

void RetiringWorkerBackend::serve(int parent) {
  const Execution& execution = *context_.property.execution;
  while (std::optional<std::string> bytes = read_message(parent)) {
    Request request = decode_request(*bytes);
    if (const auto* search = std::get_if<SearchRequest>(&request)) {
      // A search runs many cases, whatever they left: the worker retires after it.
      const std::string answer = encode(inner_.search_for_parent(*search, true));
      std::fflush(stdout);
      if (!send_message(parent, retirement(answer))) ::_exit(125);
      break;
    }
    RunRequest* run = std::get_if<RunRequest>(&request);
    if (run == nullptr) break;
    const std::uint64_t before = execution.trials_left_unfinished();
    const std::uint64_t library_runs_before = fiber::runs_in_libraries();
    const std::string answer = encode(RunAnswer{inner_.run_case(std::move(*run))});
    // A run left calls unfinished, or called a library whose globals it changed: what they left
    // stays here, so this worker serves no more.
    const bool retire = execution.trials_left_unfinished() != before || fiber::runs_in_libraries() != library_runs_before;
    std::fflush(stdout);
    if (!send_message(parent, retire ? retirement(answer) : 'k' + answer)) ::_exit(125);
    if (retire) break;
  }
  std::fflush(stdout);
  ::_exit(0);
}

std::optional<std::string> RetiringWorkerBackend::ask_worker(const std::string& request) {
  try {
    if (pid_ <= 0) spawn();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::optional<std::string> answer;
  if (send_message(worker_, request)) answer = read_message(worker_);
  if (!answer || answer->empty()) {
    ::close(worker_);
    die_as(reap());
  }
  std::string_view rest = std::string_view(*answer).substr(1);
  if ((*answer)[0] == 'r') {
    ::close(worker_);
    if (const int status = reap(); !WIFEXITED(status) || WEXITSTATUS(status) != 0) die_as(status);
    fiber::symbolize_ahead(symbolized_by_worker(rest));
  }
  return std::string(rest);
}

CaseRun RetiringWorkerBackend::run_case(RunRequest request) {
  std::optional<std::string> answer = ask_worker(encode_request(Request{request}));
  // No process for it: run here, as isolation's child always did.
  if (!answer) return inner_.run_case(std::move(request));
  return decode<RunAnswer>(*answer).run;
}

SearchAnswer RetiringWorkerBackend::search_in_worker(const SearchRequest& request) {
  std::optional<std::string> answer = ask_worker(encode_request(Request{request}));
  // No process for it: search here (what it leaves then stays here, as before).
  if (!answer) return inner_.search_for_parent(request, true);
  return decode<SearchAnswer>(*answer);
}

}  // namespace duet::detail
