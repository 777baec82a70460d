// Calls on descriptors on fibers (src/execute/instrumented/descriptors.cpp and
// timer_descriptors.cpp): threads that hand work over through pipes, an eventfd and epoll, a
// timerfd, and Boost.Asio's io_context (its reactor: epoll, an eventfd, a timerfd; its local
// sockets). Before, a fiber that would block in the kernel stopped the run's thread and the run
// ended as duet's limit ("blocked outside instrumented code for 10 s, at epoll_wait.c").
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"
#include "support/emulation.hpp"

#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A counter served by a thread of its own through two pipes: a request byte in, the new value
// out. Callers take a lock around their request and its answer.
class PipeServedCounter {
 public:
  PipeServedCounter() {
    if (pipe(requests_) != 0 || pipe(answers_) != 0) throw std::runtime_error("pipe");
    server_ = std::thread([this] { serve(); });
  }
  ~PipeServedCounter() {
    close(requests_[1]);  // the server reads the end of the requests and returns
    server_.join();
    close(requests_[0]);
    close(answers_[0]);
    close(answers_[1]);
  }
  PipeServedCounter(const PipeServedCounter&) = delete;
  PipeServedCounter& operator=(const PipeServedCounter&) = delete;

  int incr() {
    const std::lock_guard lock(m_);
    const char request = 1;
    if (write(requests_[1], &request, 1) != 1) return -1;
    int value = 0;
    return read(answers_[0], &value, sizeof value) == sizeof value ? value : -1;
  }

 private:
  void serve() {
    char request = 0;
    int value = 0;
    while (read(requests_[0], &request, 1) == 1) {
      ++value;
      if (write(answers_[1], &value, sizeof value) != sizeof value) return;
    }
  }
  int requests_[2]{};
  int answers_[2]{};
  std::mutex m_;
  std::thread server_;
};

TEST(Descriptors, AThreadServedThroughPipesIsLinearizable) {
  auto lin = duet::Lin<PipeServedCounter>("pipe_counter", "c").op("incr", [](PipeServedCounter& c) { return c.incr(); });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(1, 200));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// An event loop: a thread that waits in epoll_wait on an eventfd, then runs the tasks posted to
// it; a caller posts a task and waits for its future. `kLosesWakeups`: a post that finds the
// queue not empty writes no eventfd (the loop will see the task anyway, the author thought), but
// the loop may have taken the queue's tasks and be about to wait again: the task waits for ever.
template <bool kLosesWakeups>
class EventLoopCounter {
 public:
  EventLoopCounter() : wake_(eventfd(0, EFD_CLOEXEC)), epoll_(epoll_create1(EPOLL_CLOEXEC)) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = wake_;
    if (wake_ < 0 || epoll_ < 0 || epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &e) != 0)
      throw std::runtime_error("eventfd/epoll");
    loop_ = std::thread([this] { run(); });
  }
  ~EventLoopCounter() {
    post({});  // an empty task ends the loop
    loop_.join();
    close(epoll_);
    close(wake_);
  }
  EventLoopCounter(const EventLoopCounter&) = delete;
  EventLoopCounter& operator=(const EventLoopCounter&) = delete;

  int incr() {
    std::promise<int> done;
    std::future<int> value = done.get_future();
    post([this, &done] { done.set_value(++value_); });
    return value.get();
  }

 private:
  void post(std::function<void()> task) {
    bool was_empty = false;
    {
      const std::lock_guard lock(m_);
      was_empty = tasks_.empty();
      tasks_.push_back(std::move(task));
    }
    if (!kLosesWakeups || was_empty) eventfd_write(wake_, 1);
  }
  void run() {
    for (;;) {
      epoll_event e{};
      if (epoll_wait(epoll_, &e, 1, -1) != 1) continue;
      eventfd_t count = 0;
      eventfd_read(wake_, &count);
      std::deque<std::function<void()>> ready;
      {
        const std::lock_guard lock(m_);
        // The lossy loop takes one task a wake-up, leaving the others for a wake-up that a post
        // which found them there never sends.
        if (kLosesWakeups && !tasks_.empty()) {
          ready.push_back(std::move(tasks_.front()));
          tasks_.pop_front();
        } else {
          ready.swap(tasks_);
        }
      }
      for (auto& task : ready) {
        if (!task) return;
        task();
      }
    }
  }
  int wake_;
  int epoll_;
  std::mutex m_;
  std::deque<std::function<void()>> tasks_;
  int value_ = 0;
  std::thread loop_;
};

TEST(Descriptors, AnEventLoopOnEpollAndAnEventfdIsLinearizable) {
  using Loop = EventLoopCounter<false>;
  auto lin = duet::Lin<Loop>("event_loop", "c").op("incr", [](Loop& c) { return c.incr(); });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(1, 200));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// The lost wake-up is a deadlock, found, shrunk and replayed; the kernel is not waited for in
// real time (an eventfd in an epoll set: only a fiber can make it ready).
TEST(Descriptors, AnEventLoopsLostWakeupIsFoundAsADeadlock) {
  using Loop = EventLoopCounter<true>;
  auto lin = duet::Lin<Loop>("lossy_event_loop", "c").op("incr", [](Loop& c) { return c.incr(); });
  const auto start = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 200));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.passed());
  EXPECT_TRUE(contains(r.report, "deadlock")) << r.report;
  EXPECT_TRUE(contains(r.report, "receive descriptors")) << r.report;  // the loop, in epoll_wait
  EXPECT_TRUE(contains(r.report, "descriptors_test.cpp")) << r.report;
  EXPECT_FALSE(contains(r.report, "outside instrumented code")) << r.report;
  EXPECT_LT(took, std::chrono::duration<double>(60 * duet_test::time_scale())) << r.report;
  ASSERT_FALSE(r.replay_token.empty());
  duet::Config replay;
  replay.replay = r.replay_token;
  const duet::CheckResult again = duet::check_parallel(lin, on_fibers(), replay);
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(contains(again.report, "deadlock")) << again.report;
}

// A read of a pipe that nobody writes: a deadlock at once, naming the read.
TEST(Descriptors, AReadNobodyAnswersIsADeadlock) {
  struct Pipe {
    int fds[2]{};
    Pipe() {
      if (pipe(fds) != 0) throw std::runtime_error("pipe");
    }
    ~Pipe() {
      close(fds[0]);
      close(fds[1]);
    }
    int take() {
      char c = 0;
      return static_cast<int>(read(fds[0], &c, 1));
    }
  };
  auto lin = duet::Lin<Pipe>("silent_pipe", "p").op("take", [](Pipe& p) { return p.take(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 20));
  ASSERT_FALSE(r.passed());
  EXPECT_TRUE(contains(r.report, "deadlock: no fiber can proceed")) << r.report;
  EXPECT_TRUE(contains(r.report, "blocked in receive descriptors")) << r.report;
}

// An accept on a TCP socket nobody connects to: something outside the process might, so when no
// fiber can go on the kernel is given a second of real time, and then the check ends without a
// verdict (not as a deadlock, which it may not be).
TEST(Descriptors, AWaitOnlyTheOutsideCouldEndIsNoVerdict) {
  struct Listener {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    Listener() {
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 1) != 0)
        throw std::runtime_error("listen");
    }
    ~Listener() { close(fd); }
    int accept_one() {
      const int client = accept(fd, nullptr, nullptr);
      if (client >= 0) close(client);
      return client >= 0 ? 1 : 0;
    }
  };
  auto lin = duet::Lin<Listener>("listener", "l").op("accept_one", [](Listener& l) { return l.accept_one(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 5));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(contains(r.report, "something outside the run may make ready")) << r.report;
  EXPECT_FALSE(contains(r.report, "deadlock: no fiber can proceed")) << r.report;
}

// Waits with a timeout take virtual time on fibers: a poll for 30 s and a timerfd of 10 s end at
// once in real time, and at the virtual instant they name. (Not a check of duet::Lin's: its
// oracle runs the calls on the calling thread, outside any run, where they wait for real.)
TEST(Descriptors, TimeoutsAndTimerDescriptorsTakeVirtualTime) {
  struct Waits {
    std::int64_t poll_for_nothing() {
      int fds[2];
      if (pipe(fds) != 0) return -1;
      const auto start = std::chrono::steady_clock::now();
      pollfd p{fds[0], POLLIN, 0};
      const int n = poll(&p, 1, 30'000);
      const auto waited = std::chrono::steady_clock::now() - start;
      close(fds[0]);
      close(fds[1]);
      return n == 0 ? std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() : -1;
    }
    std::int64_t timer_in_epoll() {
      const int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
      const int epoll = epoll_create1(EPOLL_CLOEXEC);
      epoll_event e{};
      e.events = EPOLLIN;
      epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &e);
      const itimerspec in_10s{{0, 0}, {10, 0}};
      timerfd_settime(timer, 0, &in_10s, nullptr);
      const auto start = std::chrono::steady_clock::now();
      const int n = epoll_wait(epoll, &e, 1, -1);
      const auto waited = std::chrono::steady_clock::now() - start;
      std::uint64_t expirations = 0;
      const bool one = read(timer, &expirations, sizeof expirations) == sizeof expirations && expirations == 1;
      close(epoll);
      close(timer);
      return n == 1 && one ? std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() : -1;
    }
  };
  const auto start = std::chrono::steady_clock::now();
  Waits w;
  std::int64_t polled = 0, timed = 0;
  const duet::FiberRun lone =
      duet::run_fibers({[&] { polled = w.poll_for_nothing(); }, [&] { timed = w.timer_in_epoll(); }}, "");
  ASSERT_TRUE(lone.completed) << lone.failure;
  EXPECT_EQ(polled, 30'000);
  EXPECT_EQ(timed, 10'000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::duration<double>(5 * duet_test::time_scale()));
}

// What the kernel does with a socket's timeout and MSG_WAITALL, on fibers: a receive of SO_RCVTIMEO
// 2 s that nothing answers gives EAGAIN at 2,000 virtual ms (before, it waited in the scheduler
// and the run ended as a deadlock); MSG_WAITALL waits for its 8 bytes across the sender's two
// writes (before, the second wait was in the kernel: the run's thread stopped), or returns what
// came when its timeout passes; epoll_pwait2 waits its timeout in virtual time.
TEST(Descriptors, SocketTimeoutsAndWaitAllAreTheKernels) {
  struct Pair {
    int fd[2]{-1, -1};
    explicit Pair(int timeout_s = 0) {
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) != 0) throw std::runtime_error("socketpair");
      const timeval limit{timeout_s, 0};
      setsockopt(fd[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    }
    ~Pair() {
      close(fd[0]);
      close(fd[1]);
    }
  };
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  };
  Pair unanswered(2), halves, partly(1);
  std::int64_t timed_out_ms = -1, partly_ms = -1, pwait_ms = -1;
  ssize_t timed_out = 0, whole = 0, part = 0;
  int timed_out_errno = 0, pwaited = -1;
  const auto start = Clock::now();
  const duet::FiberRun run = duet::run_fibers({[&] {
                                                 const auto t = Clock::now();
                                                 char b[4];
                                                 timed_out = recv(unanswered.fd[0], b, sizeof b, 0);
                                                 timed_out_errno = errno;
                                                 timed_out_ms = ms_since(t);
                                               },
                                               [&] {
                                                 char b[8];
                                                 whole = recv(halves.fd[0], b, sizeof b, MSG_WAITALL);
                                               },
                                               [&] {
                                                 (void)send(halves.fd[1], "abcd", 4, 0);
                                                 (void)send(halves.fd[1], "efgh", 4, 0);
                                               },
                                               [&] {
                                                 (void)send(partly.fd[1], "abc", 3, 0);
                                                 const auto t = Clock::now();
                                                 char b[8];
                                                 part = recv(partly.fd[0], b, sizeof b, MSG_WAITALL);
                                                 partly_ms = ms_since(t);
                                               },
                                               [&] {
                                                 Pair empty;
                                                 const int epoll = epoll_create1(EPOLL_CLOEXEC);
                                                 epoll_event e{};
                                                 e.events = EPOLLIN;
                                                 epoll_ctl(epoll, EPOLL_CTL_ADD, empty.fd[0], &e);
                                                 const timespec limit{1, 500'000'000};
                                                 const auto t = Clock::now();
                                                 pwaited = epoll_pwait2(epoll, &e, 1, &limit, nullptr);
                                                 pwait_ms = ms_since(t);
                                                 close(epoll);
                                               }},
                                              "");
  ASSERT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(timed_out, -1);
  EXPECT_EQ(timed_out_errno, EAGAIN);
  EXPECT_EQ(timed_out_ms, 2'000);
  EXPECT_EQ(whole, 8);
  EXPECT_EQ(part, 3);
  EXPECT_EQ(partly_ms, 1'000);
  EXPECT_EQ(pwaited, 0);
  EXPECT_EQ(pwait_ms, 1'500);
  EXPECT_LT(Clock::now() - start, std::chrono::duration<double>(5 * duet_test::time_scale()));
}

// ---- Boost.Asio ----

namespace asio = boost::asio;

// A counter that an io_context, run by two threads, serves: each increment a handler posted
// through a strand (correct), or straight to the io_context (two handlers may run at once).
template <bool kStrand>
struct AsioCounter {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(io);
  asio::strand<asio::io_context::executor_type> strand = asio::make_strand(io);
  int value = 0;
  std::thread a{[this] { io.run(); }};
  std::thread b{[this] { io.run(); }};
  ~AsioCounter() {
    guard.reset();
    io.stop();
    a.join();
    b.join();
  }
  int incr() {
    std::promise<int> done;
    std::future<int> result = done.get_future();
    auto handler = [this, &done] { done.set_value(++value); };
    if constexpr (kStrand) asio::post(strand, handler);
    else asio::post(io, handler);
    return result.get();
  }
  // The handler runs on a timer's expiry: the reactor's epoll_wait wakes on its timerfd.
  int incr_later() {
    std::promise<int> done;
    std::future<int> result = done.get_future();
    asio::steady_timer timer(strand, std::chrono::milliseconds(1));
    timer.async_wait([this, &done](boost::system::error_code) { done.set_value(++value); });
    return result.get();
  }
};

TEST(Descriptors, BoostAsioStrandsAndTimersAreLinearizable) {
  using Counter = AsioCounter<true>;
  auto lin = duet::Lin<Counter>("asio_strand", "c")
                 .op("incr", [](Counter& c) { return c.incr(); })
                 .op("incr_later", [](Counter& c) { return c.incr_later(); });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(1, 100));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

TEST(Descriptors, BoostAsioHandlersWithoutAStrandRaceFound) {
  using Counter = AsioCounter<false>;
  auto lin = duet::Lin<Counter>("asio_no_strand", "c").op("incr", [](Counter& c) { return c.incr(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 100));
  ASSERT_FALSE(r.passed());
  EXPECT_TRUE(contains(r.report, "data race")) << r.report;
  EXPECT_TRUE(contains(r.report, "descriptors_test.cpp")) << r.report;
}

// A counter behind a stream socket that an io_context's thread serves with asynchronous reads;
// callers write a byte and read the answer with blocking calls. `Protocol`: a local socket pair,
// or TCP on the loopback interface, where the io_context's thread accepts the connection and
// registers the socket with epoll_ctl, whose descriptor state the reactor's epoll_wait hands back
// (a data race reported at op_queue.hpp before epoll_ctl was a step that releases).
template <class Protocol>
struct AsioSocketCounter {
  asio::io_context io;
  typename Protocol::socket client{io}, server{io};
  int value = 0;
  char request = 0;
  std::mutex m;
  std::optional<asio::ip::tcp::acceptor> acceptor;  // TCP: lives until the connection is accepted
  std::thread runner;
  AsioSocketCounter() {
    if constexpr (std::is_same_v<Protocol, asio::ip::tcp>) {
      acceptor.emplace(io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0));
      acceptor->async_accept(server, [this](boost::system::error_code error) {
        if (!error) serve();
      });
      runner = std::thread([this] { io.run(); });
      client.connect(acceptor->local_endpoint());
    } else {
      asio::local::connect_pair(client, server);
      serve();
      runner = std::thread([this] { io.run(); });
    }
  }
  ~AsioSocketCounter() {
    client.close();  // the server's read ends with an error: no more work, run() returns
    runner.join();
  }
  void serve() {
    server.async_read_some(asio::buffer(&request, 1), [this](boost::system::error_code error, std::size_t) {
      if (error) return;
      const int v = ++value;
      asio::write(server, asio::buffer(&v, sizeof v));
      serve();
    });
  }
  int incr() {
    const std::lock_guard lock(m);
    const char c = 1;
    asio::write(client, asio::buffer(&c, 1));
    int v = 0;
    asio::read(client, asio::buffer(&v, sizeof v));
    return v;
  }
};

TEST(Descriptors, BoostAsioLocalSocketsAreLinearizable) {
  using Counter = AsioSocketCounter<asio::local::stream_protocol>;
  auto lin = duet::Lin<Counter>("asio_socket", "c").op("incr", [](Counter& c) { return c.incr(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 100));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(Descriptors, BoostAsioTcpOnLoopbackIsLinearizable) {
  using Counter = AsioSocketCounter<asio::ip::tcp>;
  auto lin = duet::Lin<Counter>("asio_tcp", "c").op("incr", [](Counter& c) { return c.incr(); });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(2, 100));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// A worker fills a result, then closes its end of a pipe; the reader waits for the end and then
// reads the result: the close orders the two, as the kernel does (no race).
int result_after_the_end() {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  int result = 0;
  std::thread worker([&] {
    result = 42;
    close(fds[1]);
  });
  char c = 0;
  const ssize_t end = read(fds[0], &c, 1);  // 0: the end of the pipe
  const int seen = end == 0 ? result : -1;
  worker.join();
  close(fds[0]);
  return seen;
}

TEST(Descriptors, WhatAWriterLeftBeforeClosingIsTheReadersAfterTheEnd) {
  struct Nothing {};
  auto lin = duet::Lin<Nothing>("handoff", "h").op("run", [](Nothing&) { return result_after_the_end(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 50));
  EXPECT_TRUE(r.passed()) << r.report;
}

}  // namespace
