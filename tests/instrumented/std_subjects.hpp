// Subjects written with plain std:: types only (std::atomic, std::mutex, std::shared_mutex,
// std::condition_variable, std::counting_semaphore, std::latch, std::barrier, std::thread), as
// users' libraries are: no duet type anywhere. Compiled with duet_instrument, they run on the
// fiber scheduler. Each Racy = true variant has a bug that only some interleavings show.
#pragma once

#include <atomic>
#include <barrier>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <latch>
#include <mutex>
#include <optional>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <semaphore>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace std_subjects {

// A Treiber stack over a fixed pool of nodes (never freed during the stack's life: no ABA).
// The racy push publishes with a load and a store instead of a compare-exchange.
template <bool Racy>
class TreiberStack {
 public:
  void push(int v) {
    Node* n = &pool_[used_.fetch_add(1) % kPool];
    n->value = v;
    if constexpr (Racy) {
      n->next = head_.load();
      head_.store(n);
    } else {
      n->next = head_.load();
      while (!head_.compare_exchange_weak(n->next, n)) {
      }
    }
  }
  std::optional<int> pop() {
    Node* h = head_.load();
    while (h != nullptr && !head_.compare_exchange_weak(h, h->next)) {
    }
    if (h == nullptr) return std::nullopt;
    return h->value;
  }

 private:
  struct Node {
    int value = 0;
    Node* next = nullptr;
  };
  static constexpr unsigned kPool = 64;
  Node pool_[kPool];
  std::atomic<unsigned> used_{0};
  std::atomic<Node*> head_{nullptr};
};

// Two accounts under one std::mutex; the racy total() reads them without it (a data race).
template <bool Racy>
class Bank {
 public:
  int transfer(int amount) {
    std::lock_guard<std::mutex> hold(m_);
    a_ -= amount;
    b_ += amount;
    return a_;
  }
  int total() {
    if constexpr (Racy) {
      return a_ + b_;
    } else {
      std::lock_guard<std::mutex> hold(m_);
      return a_ + b_;
    }
  }

 private:
  std::mutex m_;
  int a_ = 100, b_ = 0;
};

// A counter behind a ticket lock. The racy lock takes its ticket with a load and a store, so
// two callers can hold the same ticket and both enter.
template <bool Racy>
class TicketCounter {
 public:
  int incr() {
    lock();
    const int v = ++value_;
    unlock();
    return v;
  }

 private:
  void lock() {
    unsigned ticket;
    if constexpr (Racy) {
      ticket = next_.load();
      next_.store(ticket + 1);
    } else {
      ticket = next_.fetch_add(1);
    }
    while (serving_.load() != ticket) std::this_thread::yield();
  }
  void unlock() { serving_.store(serving_.load() + 1); }
  std::atomic<unsigned> next_{0}, serving_{0};
  int value_ = 0;
};

// A blocking queue: std::mutex and std::condition_variable; pop waits a moment for an item. On
// fibers the wait is on virtual time: it ends when nothing else can run, whatever its length
// (short, because the oracle replays the calls on a real thread).
class BlockingQueue {
 public:
  void push(int v) {
    {
      std::lock_guard<std::mutex> hold(m_);
      q_.push_back(v);
    }
    cv_.notify_one();
  }
  std::optional<int> pop() {
    std::unique_lock<std::mutex> hold(m_);
    if (!cv_.wait_for(hold, std::chrono::microseconds(1), [&] { return !q_.empty(); })) return std::nullopt;
    const int v = q_.front();
    q_.pop_front();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<int> q_;
};

// A register under a std::shared_mutex; the racy write takes the lock shared.
template <bool Racy>
class SharedRegister {
 public:
  void write(int v) {
    if constexpr (Racy) {
      std::shared_lock<std::shared_mutex> hold(m_);
      value_ = v;
    } else {
      std::unique_lock<std::shared_mutex> hold(m_);
      value_ = v;
    }
  }
  int read() {
    std::shared_lock<std::shared_mutex> hold(m_);
    return value_;
  }

 private:
  std::shared_mutex m_;
  int value_ = 0;
};

// At most two callers inside at once, by a std::counting_semaphore; use() returns how many
// were inside with it (the racy one lets three in).
template <bool Racy>
class Pool {
 public:
  int use() {
    slots_.acquire();
    const int inside = inside_.fetch_add(1) + 1;
    std::this_thread::yield();
    inside_.fetch_sub(1);
    slots_.release();
    return inside <= 2 ? 1 : 0;
  }

 private:
  std::counting_semaphore<4> slots_{Racy ? 3 : 2};
  std::atomic<int> inside_{0};
};

// GCC 12's std::counting_semaphore as it is compiled (bits/semaphore_base.h, bits/atomic_wait.h:
// __atomic_wait_address_bare), with either target's spin: before a futex wait on the count it
// read first, acquire() tries 16 times, and between tries x86 executes a pause (which no switch
// point sees) 12 times, then sched_yield() 4 times, where other targets call sched_yield() every
// time. The same code on every architecture: its lost wake-up (GCC bug 98033) is the library's.
template <bool YieldEveryTry>
class Gcc12Semaphore {
 public:
  explicit Gcc12Semaphore(int count) : count_(count) {}
  void acquire() {
    for (;;) {
      const int seen = count_.load(std::memory_order_acquire);
      for (int i = 0; i < 16; ++i) {
        if (try_acquire()) return;
        if (YieldEveryTry || i >= 12) sched_yield();
      }
      if (syscall(SYS_futex, &count_, FUTEX_WAIT, seen, nullptr) != 0 && errno != EAGAIN && errno != EINTR) std::abort();
      if (try_acquire()) return;
    }
  }
  void release() {
    if (count_.fetch_add(1, std::memory_order_release) > 0) return;
    syscall(SYS_futex, &count_, FUTEX_WAKE, INT_MAX);
  }

 private:
  bool try_acquire() {
    int old = count_.load(std::memory_order_acquire);
    return old != 0 && count_.compare_exchange_strong(old, old - 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  std::atomic<int> count_;
};

// Pool<false> over that semaphore.
template <bool YieldEveryTry>
class Gcc12Pool {
 public:
  int use() {
    slots_.acquire();
    const int inside = inside_.fetch_add(1) + 1;
    std::this_thread::yield();
    inside_.fetch_sub(1);
    slots_.release();
    return inside <= 2 ? 1 : 0;
  }

 private:
  Gcc12Semaphore<YieldEveryTry> slots_{2};
  std::atomic<int> inside_{0};
};

// The same pool over a POSIX semaphore, as C libraries write it.
template <bool Racy>
class PosixPool {
 public:
  PosixPool() { sem_init(&slots_, 0, Racy ? 3 : 2); }
  ~PosixPool() { sem_destroy(&slots_); }
  PosixPool(const PosixPool&) = delete;
  PosixPool& operator=(const PosixPool&) = delete;
  int use() {
    sem_wait(&slots_);
    const int inside = inside_.fetch_add(1) + 1;
    std::this_thread::yield();
    inside_.fetch_sub(1);
    sem_post(&slots_);
    return inside <= 2 ? 1 : 0;
  }

 private:
  sem_t slots_;
  std::atomic<int> inside_{0};
};

// Work done by threads the subject starts itself: std::thread, std::latch, std::barrier and
// std::atomic::wait inside one call. Returns the sum the workers computed (always 2 * rounds).
class Workers {
 public:
  int run(int rounds) {
    std::atomic<int> sum{0};
    std::latch started(2);
    std::barrier round(2);
    std::atomic<int> done{0};
    auto work = [&] {
      started.count_down();
      for (int i = 0; i < rounds; ++i) {
        sum.fetch_add(1);
        round.arrive_and_wait();
      }
      if (done.fetch_add(1) + 1 == 2) done.notify_all();
    };
    std::thread a(work), b(work);
    started.wait();
    int d = done.load();
    while (d != 2) {
      done.wait(d);
      d = done.load();
    }
    a.join();
    b.join();
    return sum.load() + calls_.fetch_add(1) * 0;
  }

 private:
  std::atomic<int> calls_{0};
};

// Values made on first use, each through std::call_once on its own flag. libstdc++ hands the
// function to pthread_once's callback through thread-local variables: fibers that share their
// thread's storage (every architecture but x86-64) must still each run their own function.
// get(k) is always k + 1.
class LazySlots {
 public:
  int get(int k) {
    std::call_once(made_[k], [this, k] { values_[k] = k + 1; });
    return values_[k];
  }

 private:
  std::once_flag made_[3];
  int values_[3] = {};
};

// A counter whose step is a function-local static, made on first use (the compiler's guard:
// __cxa_guard_acquire, __cxa_guard_release), its initialiser a switch point so that another
// fiber may come to the guard while the first makes it. `Instance` gives each check a static of
// its own, made within that check. add() returns the step twice the count before (7 * 2k + 7).
template <int Instance>
class StaticStepCounter {
 public:
  int add() {
    const int before = count_.fetch_add(1);
    return step() * before * 2 + step();
  }

 private:
  static int step() {
    static const int made = [] {
      static std::atomic<int> seen{0};
      seen.fetch_add(1);  // a switch point within the construction
      return 7;
    }();
    return made;
  }
  std::atomic<int> count_{0};
};

// C threads meeting at a pthread_barrier_t, inside one call: each writes its half of a plain
// array, waits, then reads the other's half. The barrier orders the writes before the reads;
// without it (Racy) a read races with the other thread's write.
template <bool Racy>
class PosixPhases {
 public:
  int run(int v) {
    Meeting m;
    pthread_barrier_init(&m.barrier, nullptr, 2);
    Arg args[2] = {{&m, 0, v}, {&m, 1, v + 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) pthread_create(&t[i], nullptr, &PosixPhases::work, &args[i]);
    for (int i = 0; i < 2; ++i) pthread_join(t[i], nullptr);
    pthread_barrier_destroy(&m.barrier);
    return args[0].seen + args[1].seen;  // always 2 * v + 1
  }

 private:
  struct Meeting {
    pthread_barrier_t barrier;
    int halves[2] = {0, 0};
  };
  struct Arg {
    Meeting* m;
    int half;
    int value;
    int seen = 0;
  };
  static void* work(void* p) {
    auto* a = static_cast<Arg*>(p);
    a->m->halves[a->half] = a->value;
    if (!Racy) pthread_barrier_wait(&a->m->barrier);
    a->seen = a->m->halves[1 - a->half];
    return nullptr;
  }
};

// Two accounts locked in opposite orders by the two transfers: a deadlock.
class Accounts {
 public:
  int ab() {
    std::lock_guard<std::mutex> x(a_);
    std::lock_guard<std::mutex> y(b_);
    return 1;
  }
  int ba() {
    std::lock_guard<std::mutex> y(b_);
    std::lock_guard<std::mutex> x(a_);
    return 1;
  }

 private:
  std::mutex a_, b_;
};

}  // namespace std_subjects
