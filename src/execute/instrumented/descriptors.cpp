// Calls on descriptors, on fibers. A fiber that blocked in the kernel (a read of an empty pipe,
// an epoll_wait) would stop its thread, and with it every fiber of the run: the watchdog ended
// such a run as duet's limit. Here read, write, poll, epoll_wait and the others, on a fiber of a
// run, ask the kernel only whether the call would block (a poll that does not wait); where it
// would, the fiber waits in the scheduler until another fiber's call on a descriptor lets it look
// again (any descriptor: a pipe's two ends, a socket pair's, are different ones), or until its
// timeout passes in virtual time (a socket's SO_RCVTIMEO and SO_SNDTIMEO included). A blocking
// write larger than the room, or a recv of MSG_WAITALL, is done in parts with waits between them.
// What the kernel makes ready by itself (a socket to another
// process, data in flight) is asked of it, with a real deadline, only when no fiber of the run
// can go on: just before the run would end as a deadlock (outside_wake).
//
// Each call is a step of the run on one object, "descriptors": the calls synchronise with each
// other in the order they ran, as if the kernel ordered them all. What a fiber did before it
// wrote to a pipe happens-before what the fiber that read it does after; two unrelated
// descriptors are ordered too, which can hide a race that goes through both, never invent one.
//
// Which descriptors: pipes and FIFOs, sockets, and the kernel's anonymous ones (eventfd, timerfd,
// epoll, signalfd). Not the standard streams 0, 1 and 2, which belong to whoever started the
// process, nor files and devices, which wait for no other thread: their calls are no step.
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/instrumented/descriptors.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

using fiber::ObjectKind;
using fiber::Op;

// The object every call on a descriptor is a step on, and every wait for one blocks on.
char g_descriptors;

// How long, in real time, the kernel is given to make ready a descriptor that something outside
// the run may make ready, once no fiber can go on.
constexpr int kOutsideWaitMs = 1000;

bool waits_for_others(int fd) noexcept {
  if (fd <= STDERR_FILENO) return false;
  struct stat st {};
  if (fstat(fd, &st) != 0) return false;
  const auto type = st.st_mode & S_IFMT;
  return type == S_IFIFO || type == S_IFSOCK || type == 0;  // 0: an anonymous inode (eventfd, epoll)
}

bool nonblocking(int fd) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_NONBLOCK) != 0;
}

int poll_now(pollfd* fds, nfds_t n) noexcept {
  DUET_REAL(poll);
  for (nfds_t i = 0; i < n; ++i) fds[i].revents = 0;
  return next(fds, n, 0);
}

// ---- fibers waiting on descriptors, for the check before a deadlock ----

// Per thread (the run's fibers share the scheduling thread's: host_local): what each waiting
// fiber of the current run waits on.
struct Waiting {
  std::uint64_t run = 0;
  std::array<std::span<const pollfd>, fiber::kMaxFibers> fds{};
};
constinit thread_local Waiting t_waiting;

class WaitRecord {
 public:
  WaitRecord(fiber::Runtime& rt, std::span<const pollfd> fds) noexcept : fiber_(fiber::fiber_number(rt)) {
    Waiting& waiting = fiber::host_local(t_waiting);
    if (const std::uint64_t run = fiber::run_number(rt); waiting.run != run) waiting = Waiting{run};
    waiting.fds[fiber_] = fds;
  }
  ~WaitRecord() { fiber::host_local(t_waiting).fds[fiber_] = {}; }
  WaitRecord(const WaitRecord&) = delete;
  WaitRecord& operator=(const WaitRecord&) = delete;

 private:
  std::uint32_t fiber_;
};

std::string_view anonymous_kind(int fd, std::span<char> link) noexcept {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(path, link.data(), link.size());
  return n > 0 ? std::string_view(link.data(), static_cast<std::size_t>(n)) : std::string_view();
}

// Only a fiber's call can make `fd` ready: a pipe, a local socket, an eventfd, a virtual timer,
// an epoll set of those. Anything else (a network socket, a signalfd) the kernel may make ready
// by itself.
bool only_fibers_make_ready(int fd, int depth = 0) noexcept;

// The descriptors an epoll set watches, as the kernel lists them (/proc/self/fdinfo: "tfd: 7 ...").
bool epoll_of_fibers(int epoll, int depth) noexcept {
  char path[40];
  std::snprintf(path, sizeof path, "/proc/self/fdinfo/%d", epoll);
  std::FILE* info = std::fopen(path, "re");
  if (info == nullptr) return false;
  bool fibers_only = depth < 4;
  char line[256];
  while (fibers_only && std::fgets(line, sizeof line, info) != nullptr) {
    int fd = -1;
    if (std::sscanf(line, "tfd: %d", &fd) == 1) fibers_only = only_fibers_make_ready(fd, depth + 1);
  }
  std::fclose(info);
  return fibers_only;
}

bool only_fibers_make_ready(int fd, int depth) noexcept {
  struct stat st {};
  if (fstat(fd, &st) != 0) return false;
  if (S_ISFIFO(st.st_mode)) return true;
  if (S_ISSOCK(st.st_mode)) {
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    return getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0 && address.ss_family == AF_UNIX;
  }
  if (virtual_timer(fd)) return true;
  std::array<char, 64> link;
  const std::string_view kind = anonymous_kind(fd, link);
  if (kind == "anon_inode:[eventpoll]") return epoll_of_fibers(fd, depth);
  return kind == "anon_inode:[eventfd]";
}

// fiber::OutsideWakeHook: no fiber can go on. Where one waits on descriptors that the kernel made
// ready meanwhile (or makes ready within kOutsideWaitMs, where something outside the run may),
// the waiting fibers look again.
fiber::OutsideWake kernel_made_ready(fiber::Runtime& rt) noexcept {
  using Kind = fiber::OutsideWake::Kind;
  const Waiting& waiting = fiber::host_local(t_waiting);
  if (waiting.run != fiber::run_number(rt)) return {};
  std::vector<pollfd> fds;
  bool outside = fiber::outside_threads_alive();
  for (const auto& waits : waiting.fds)
    for (const pollfd& p : waits) {
      fds.push_back(p);
      outside = outside || !only_fibers_make_ready(p.fd);
    }
  if (fds.empty()) return {};
  DUET_REAL(poll);
  if (next(fds.data(), fds.size(), outside ? kOutsideWaitMs : 0) > 0) {
    fiber::wake_all(rt, &g_descriptors);
    return {Kind::woke};
  }
  if (!outside) return {};
  return {Kind::not_seen,
          "no fiber can go on, and one waits on a descriptor that something outside the run may make ready (a "
          "socket to another process, a signalfd, or a pipe a thread outside the run holds): nothing made it "
          "ready within 1 s of real time, so the run ends without a verdict rather than as a deadlock"};
}

// ---- the calls ----

// Waits, on a fiber, until `ready()` is true (false after `timeout_ns` of virtual time). `fds` is
// what it waits on, for the check before a deadlock.
template <class Ready>
bool wait_until(fiber::Runtime& rt, std::span<const pollfd> fds, std::uint64_t timeout_ns, Ready ready) {
  static const bool hooked = (fiber::set_outside_wake(&kernel_made_ready), true);
  (void)hooked;
  const std::uint64_t start = fiber::t_virtual_ns;
  for (;;) {
    fire_due_timers();
    if (ready()) return true;
    const std::uint64_t waited = fiber::t_virtual_ns - start;
    if (timeout_ns != fiber::kNoTimeout && waited >= timeout_ns) return false;
    const std::uint64_t left = timeout_ns == fiber::kNoTimeout ? fiber::kNoTimeout : timeout_ns - waited;
    const WaitRecord waiting(rt, fds);
    fiber::block_for(rt, std::min(left, next_timer_in()));
  }
}

// Waits until `fd` is ready for `events`; false after `timeout_ns` of virtual time.
bool wait_for(fiber::Runtime& rt, int fd, short events, std::uint64_t timeout_ns = fiber::kNoTimeout) {
  pollfd p{fd, events, 0};
  return wait_until(rt, {&p, 1}, timeout_ns, [&] { return poll_now(&p, 1) != 0; });
}

// How long a blocking call on `fd` may wait in the kernel: a socket's SO_RCVTIMEO or
// SO_SNDTIMEO, in virtual time as every other timeout on fibers; without one, no limit.
std::uint64_t blocking_timeout(int fd, Op op) noexcept {
  timeval limit{};
  socklen_t size = sizeof limit;
  if (getsockopt(fd, SOL_SOCKET, op == Op::send ? SO_SNDTIMEO : SO_RCVTIMEO, &limit, &size) != 0) return fiber::kNoTimeout;
  const auto ns =
      static_cast<std::uint64_t>(limit.tv_sec) * 1'000'000'000 + static_cast<std::uint64_t>(limit.tv_usec) * 1'000;
  return ns == 0 ? fiber::kNoTimeout : ns;
}

// One call on a descriptor, on a fiber: a step, and first, where the call would block, a wait
// until it would not (where the socket's timeout passes first: -1 with EAGAIN, as the kernel's
// call). `call` makes the call; a send's (write's) result is what it wrote, a receive's what it
// read.
template <class Call>
auto descriptor_call(fiber::Runtime& rt, Op op, int fd, bool may_block, duet::source_location loc, Call call) {
  fiber::enter(rt, op, ObjectKind::descriptor, &g_descriptors, std::memory_order_seq_cst, loc);
  fire_due_timers();
  decltype(call()) result = -1;
  errno = EAGAIN;
  if (!may_block || wait_for(rt, fd, op == Op::send ? POLLOUT : POLLIN, blocking_timeout(fd, op))) result = call();
  const int error = errno;
  const fiber::Value value = fiber::value_of(static_cast<long long>(result));
  fiber::leave(rt, op, op == Op::receive ? value : fiber::Value{}, op == Op::send ? value : fiber::Value{});
  fiber::wake_all(rt, &g_descriptors);
  errno = error;
  return result;
}

// A blocking write of more than the pipe or socket has room for, or a receive of MSG_WAITALL
// more than has come: done in parts, the fiber waiting between them as the kernel would have
// blocked (at most the socket's timeout in all). `part(done)` transfers without blocking; a
// receive's end of stream (0) ends the call with what came before it.
template <class Part>
ssize_t transfer_fully(fiber::Runtime& rt, Op op, int fd, std::size_t size, Part part) {
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  const std::uint64_t timeout = blocking_timeout(fd, op);
  const std::uint64_t start = fiber::t_virtual_ns;
  std::size_t done = 0;
  ssize_t result = 0;
  for (;;) {
    const ssize_t r = part(done);
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      result = done > 0 ? static_cast<ssize_t>(done) : r;
      break;
    }
    if (r > 0) done += static_cast<std::size_t>(r);
    const std::uint64_t waited = fiber::t_virtual_ns - start;
    const bool timed_out = timeout != fiber::kNoTimeout && waited >= timeout;
    if (done == size || r == 0 || timed_out ||
        !wait_for(rt, fd, op == Op::send ? POLLOUT : POLLIN, timeout == fiber::kNoTimeout ? timeout : timeout - waited)) {
      result = done > 0 || r == 0 ? static_cast<ssize_t>(done) : -1;
      if (result < 0) errno = EAGAIN;
      break;
    }
  }
  const int error = errno;
  fcntl(fd, F_SETFL, flags);
  errno = error;
  return result;
}

bool can_block(int fd, int flags = 0) noexcept { return (flags & MSG_DONTWAIT) == 0 && !nonblocking(fd); }

// poll, select and epoll_wait on a fiber: `attempt()` is the call that does not wait (its result
// is the call's); `fds` what it waits on.
template <class Attempt>
int wait_call(fiber::Runtime& rt, std::span<const pollfd> fds, std::uint64_t timeout_ns, duet::source_location loc,
              Attempt attempt) {
  fiber::enter(rt, Op::receive, ObjectKind::descriptor, &g_descriptors, std::memory_order_seq_cst, loc);
  int result = 0;
  wait_until(rt, fds, timeout_ns, [&] { return (result = attempt()) != 0; });
  const int error = errno;
  fiber::leave(rt, Op::receive, fiber::value_of(result), {});
  errno = error;
  return result;
}

std::uint64_t timeout_of_ms(int ms) { return ms < 0 ? fiber::kNoTimeout : static_cast<std::uint64_t>(ms) * 1'000'000; }

int select_on_fiber(fiber::Runtime& rt, int n, fd_set* in, fd_set* out, fd_set* error_set, std::uint64_t timeout,
                    duet::source_location loc) {
  std::vector<pollfd> fds;
  n = std::clamp(n, 0, FD_SETSIZE);
  for (int fd = 0; fd < n; ++fd) {
    const short events = static_cast<short>((in != nullptr && FD_ISSET(fd, in) ? POLLIN : 0) |
                                            (out != nullptr && FD_ISSET(fd, out) ? POLLOUT : 0) |
                                            (error_set != nullptr && FD_ISSET(fd, error_set) ? POLLPRI : 0));
    if (events != 0) fds.push_back({fd, events, 0});
  }
  const fd_set given[3] = {in ? *in : fd_set{}, out ? *out : fd_set{}, error_set ? *error_set : fd_set{}};
  return wait_call(rt, fds, timeout, loc, [&] {
    if (in) *in = given[0];
    if (out) *out = given[1];
    if (error_set) *error_set = given[2];
    timeval now{};
    DUET_REAL(select);
    return next(n, in, out, error_set, &now);
  });
}

int epoll_on_fiber(fiber::Runtime& rt, int epoll, epoll_event* events, int most, std::uint64_t timeout,
                   duet::source_location loc) {
  const pollfd set{epoll, POLLIN, 0};
  return wait_call(rt, {&set, 1}, timeout, loc, [&] {
    DUET_REAL(epoll_wait);
    return next(epoll, events, most, 0);
  });
}

}  // namespace

const void* descriptors_object() noexcept { return &g_descriptors; }

}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

// ---- receiving ----
ssize_t read(int fd, void* buffer, std::size_t size) {
  DUET_REAL(read);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::receive, fd, can_block(fd), DUET_HERE, [&] {
      const ssize_t n = next(fd, buffer, size);
      virtual_expirations(fd, buffer, n);
      return n;
    });
  return next(fd, buffer, size);
}
ssize_t __read_chk(int fd, void* buffer, std::size_t size, std::size_t) { return read(fd, buffer, size); }
ssize_t readv(int fd, const iovec* parts, int count) {
  DUET_REAL(readv);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::receive, fd, can_block(fd), DUET_HERE, [&] { return next(fd, parts, count); });
  return next(fd, parts, count);
}
ssize_t recv(int fd, void* buffer, std::size_t size, int flags) {
  DUET_REAL(recv);
  if (const InRun rt = in_run(); rt && waits_for_others(fd)) {
    if ((flags & MSG_WAITALL) == 0 || !can_block(fd, flags))
      return descriptor_call(*rt, Op::receive, fd, can_block(fd, flags), DUET_HERE,
                             [&] { return next(fd, buffer, size, flags); });
    return descriptor_call(*rt, Op::receive, fd, false, DUET_HERE, [&] {
      return transfer_fully(*rt, Op::receive, fd, size, [&](std::size_t done) {
        return next(fd, static_cast<char*>(buffer) + done, size - done, flags & ~MSG_WAITALL);
      });
    });
  }
  return next(fd, buffer, size, flags);
}
ssize_t __recv_chk(int fd, void* buffer, std::size_t size, std::size_t, int flags) { return recv(fd, buffer, size, flags); }
ssize_t recvfrom(int fd, void* __restrict buffer, std::size_t size, int flags, sockaddr* __restrict from,
                 socklen_t* __restrict from_size) {
  DUET_REAL(recvfrom);
  if (const InRun rt = in_run(); rt && waits_for_others(fd)) {
    if ((flags & MSG_WAITALL) == 0 || !can_block(fd, flags))
      return descriptor_call(*rt, Op::receive, fd, can_block(fd, flags), DUET_HERE,
                             [&] { return next(fd, buffer, size, flags, from, from_size); });
    return descriptor_call(*rt, Op::receive, fd, false, DUET_HERE, [&] {
      return transfer_fully(*rt, Op::receive, fd, size, [&](std::size_t done) {
        return next(fd, static_cast<char*>(buffer) + done, size - done, flags & ~MSG_WAITALL, from, from_size);
      });
    });
  }
  return next(fd, buffer, size, flags, from, from_size);
}
ssize_t recvmsg(int fd, msghdr* message, int flags) {
  DUET_REAL(recvmsg);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::receive, fd, can_block(fd, flags), DUET_HERE, [&] { return next(fd, message, flags); });
  return next(fd, message, flags);
}
int accept(int fd, sockaddr* __restrict address, socklen_t* __restrict size) {
  DUET_REAL(accept);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::receive, fd, can_block(fd), DUET_HERE, [&] { return next(fd, address, size); });
  return next(fd, address, size);
}
int accept4(int fd, sockaddr* __restrict address, socklen_t* __restrict size, int flags) {
  DUET_REAL(accept4);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::receive, fd, can_block(fd), DUET_HERE, [&] { return next(fd, address, size, flags); });
  return next(fd, address, size, flags);
}
int eventfd_read(int fd, eventfd_t* value) { return read(fd, value, sizeof *value) == sizeof *value ? 0 : -1; }

// ---- sending ----
ssize_t write(int fd, const void* buffer, std::size_t size) {
  DUET_REAL(write);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, false, DUET_HERE, [&] {
      if (!can_block(fd)) return next(fd, buffer, size);
      return transfer_fully(*rt, Op::send, fd, size, [&](std::size_t done) {
        return next(fd, static_cast<const char*>(buffer) + done, size - done);
      });
    });
  return next(fd, buffer, size);
}
ssize_t writev(int fd, const iovec* parts, int count) {
  DUET_REAL(writev);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, can_block(fd), DUET_HERE, [&] { return next(fd, parts, count); });
  return next(fd, parts, count);
}
ssize_t send(int fd, const void* buffer, std::size_t size, int flags) {
  DUET_REAL(send);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, false, DUET_HERE, [&] {
      if (!can_block(fd, flags)) return next(fd, buffer, size, flags);
      return transfer_fully(*rt, Op::send, fd, size, [&](std::size_t done) {
        return next(fd, static_cast<const char*>(buffer) + done, size - done, flags);
      });
    });
  return next(fd, buffer, size, flags);
}
ssize_t sendto(int fd, const void* buffer, std::size_t size, int flags, const sockaddr* to, socklen_t to_size) {
  DUET_REAL(sendto);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, can_block(fd, flags), DUET_HERE,
                           [&] { return next(fd, buffer, size, flags, to, to_size); });
  return next(fd, buffer, size, flags, to, to_size);
}
ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  DUET_REAL(sendmsg);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, can_block(fd, flags), DUET_HERE, [&] { return next(fd, message, flags); });
  return next(fd, message, flags);
}
int connect(int fd, const sockaddr* address, socklen_t size) {
  DUET_REAL(connect);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::send, fd, false, DUET_HERE, [&] { return next(fd, address, size); });
  return next(fd, address, size);
}
int eventfd_write(int fd, eventfd_t value) { return write(fd, &value, sizeof value) == sizeof value ? 0 : -1; }

// ---- waiting ----
// poll on no descriptors is a sleep: C libraries back off with it (liburcu's waits spin on
// poll(NULL, 0, 10) until another thread lets them go, and on a fiber that thread must run).
int poll(pollfd* fds, nfds_t n, int ms) {
  if (const InRun rt = in_run()) {
    if (n == 0) {
      if (ms >= 0) fiber::sleep(*rt, timeout_of_ms(ms), DUET_HERE);
      return 0;
    }
    return wait_call(*rt, {fds, n}, timeout_of_ms(ms), DUET_HERE, [&] { return poll_now(fds, n); });
  }
  DUET_REAL(poll);
  return next(fds, n, ms);
}
int __poll_chk(pollfd* fds, nfds_t n, int ms, std::size_t) { return poll(fds, n, ms); }
int ppoll(pollfd* fds, nfds_t n, const timespec* timeout, const sigset_t* mask) {
  if (const InRun rt = in_run())
    return wait_call(*rt, {fds, n}, relative(timeout), DUET_HERE, [&] { return poll_now(fds, n); });
  DUET_REAL(ppoll);
  return next(fds, n, timeout, mask);
}
int select(int n, fd_set* in, fd_set* out, fd_set* error_set, timeval* timeout) {
  if (const InRun rt = in_run()) {
    const timespec t{timeout ? timeout->tv_sec : 0, timeout ? timeout->tv_usec * 1000 : 0};
    return select_on_fiber(*rt, n, in, out, error_set, relative(timeout ? &t : nullptr), DUET_HERE);
  }
  DUET_REAL(select);
  return next(n, in, out, error_set, timeout);
}
int pselect(int n, fd_set* in, fd_set* out, fd_set* error_set, const timespec* timeout, const sigset_t* mask) {
  if (const InRun rt = in_run()) return select_on_fiber(*rt, n, in, out, error_set, relative(timeout), DUET_HERE);
  DUET_REAL(pselect);
  return next(n, in, out, error_set, timeout, mask);
}
int epoll_wait(int epoll, epoll_event* events, int most, int ms) {
  if (const InRun rt = in_run()) return epoll_on_fiber(*rt, epoll, events, most, timeout_of_ms(ms), DUET_HERE);
  DUET_REAL(epoll_wait);
  return next(epoll, events, most, ms);
}
int epoll_pwait(int epoll, epoll_event* events, int most, int ms, const sigset_t* mask) {
  if (const InRun rt = in_run()) return epoll_on_fiber(*rt, epoll, events, most, timeout_of_ms(ms), DUET_HERE);
  DUET_REAL(epoll_pwait);
  return next(epoll, events, most, ms, mask);
}
int epoll_pwait2(int epoll, epoll_event* events, int most, const timespec* timeout, const sigset_t* mask) {
  if (const InRun rt = in_run()) return epoll_on_fiber(*rt, epoll, events, most, relative(timeout), DUET_HERE);
  DUET_REAL(epoll_pwait2);
  return next(epoll, events, most, timeout, mask);
}

// ---- changes that end another fiber's wait ----
// Steps too, which release what the fiber did before: a reader that sees the end of a pipe (a
// close, a shutdown) may read what the writer left, and epoll_wait hands out the pointer that
// epoll_ctl registered (Boost.Asio's descriptor states).
int close(int fd) {
  DUET_REAL(close);
  forget_timer(fd);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::close, fd, false, DUET_HERE, [&] { return next(fd); });
  return next(fd);
}
int shutdown(int fd, int how) noexcept {
  DUET_REAL(shutdown);
  if (const InRun rt = in_run(); rt && waits_for_others(fd))
    return descriptor_call(*rt, Op::close, fd, false, DUET_HERE, [&] { return next(fd, how); });
  return next(fd, how);
}
int epoll_ctl(int epoll, int op, int fd, epoll_event* event) noexcept {
  DUET_REAL(epoll_ctl);
  if (const InRun rt = in_run())
    return descriptor_call(*rt, Op::send, epoll, false, DUET_HERE, [&] { return next(epoll, op, fd, event); });
  return next(epoll, op, fd, event);
}

// Kept in the link by duet_instrument (CMakeLists.txt): calls into libstdc++.so and other
// libraries reach these definitions though the instrumented code may call none of them.
int duet_instrument_descriptors = 1;

}  // extern "C"
