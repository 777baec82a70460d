// Candidates that take their process down: they crash, hang or end it, each after a specific
// sequence of calls or on a specific argument. Isolation mode (DUET_FORK=1) must report each as
// a failure, say how the process died, and shrink it to that sequence. With DUET_DRAFT_FIXED
// defined, NullStack is fixed (its golden draft test must pass then).
#pragma once

#include <duet/api.hpp>
#include <duet/gen.hpp>
#include <duet/lin.hpp>
#include <duet/state_machine.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <unistd.h>

namespace crashing {

// ---- Crashes ----------------------------------------------------------------------------

// A linked stack that special-cases popping down to one element and forgets to keep the node:
// push, push, pop, then top dereferences null (the 4-call sequence).
struct NullStack {
  struct Node {
    int value;
    Node* next;
  };
  Node* head = nullptr;
  std::size_t size = 0;
  ~NullStack() {
    while (head) {
      Node* n = head;
      head = head->next;
      delete n;
    }
  }
  void push(int v) {
    head = new Node{v, head};
    ++size;
  }
  void pop() {
    Node* n = head;
#ifndef DUET_DRAFT_FIXED                      // the golden draft test must pass against the fixed stack
    head = size == 2 ? nullptr : head->next;  // the bug: drops the remaining node
    if (size == 2) delete n->next;
#else
    head = head->next;
#endif
    delete n;
    --size;
  }
  int top() const { return head->value; }
};

// A bounded buffer whose index wraps with a signed mask: reading back after exactly 3 writes
// into a 4-slot buffer reads index -1 through a pointer computed from it, far out of bounds.
struct WildBuffer {
  std::vector<std::int64_t> slots = std::vector<std::int64_t>(4);
  int written = 0;
  void write(std::int64_t v) { slots[static_cast<std::size_t>(written++ & 3)] = v; }
  std::int64_t read_last() const {
    const std::int64_t* base = slots.data();
    const long at = written == 3 ? -(1L << 40) : written - 1;  // the bug
    return base[at];
  }
};

// A tree whose depth() recurses without bound once a node points to itself, which insert of a
// value equal to the root's makes it do: a stack overflow.
struct LoopTree {
  struct Node {
    int key;
    Node* left = nullptr;
    Node* right = nullptr;
  };
  std::vector<std::unique_ptr<Node>> nodes;
  Node* root = nullptr;
  void insert(int k) {
    if (!root) {
      nodes.push_back(std::make_unique<Node>(Node{k}));
      root = nodes.back().get();
      return;
    }
    Node* n = root;
    for (;;) {
      if (k == n->key) {
        n->right = n;  // the bug: a duplicate links the node to itself
        return;
      }
      Node*& next = k < n->key ? n->left : n->right;
      if (!next) {
        nodes.push_back(std::make_unique<Node>(Node{k}));
        next = nodes.back().get();
        return;
      }
      n = next;
    }
  }
  static int depth_of(const Node* n) {
    if (!n) return 0;
    volatile int pad[16] = {};  // a frame large enough to overflow soon
    return 1 + std::max(depth_of(n->left), depth_of(n->right)) + pad[0];
  }
  int depth() const { return depth_of(root); }
};

// ---- Hangs ------------------------------------------------------------------------------

// reserve() rounds up to a power of two in 32 bits: past 2^31 the power overflows to 0 and the
// loop never ends (one call with one argument hangs).
struct Buffer {
  std::uint32_t capacity = 1;
  void reserve(std::uint64_t n) {
    std::uint32_t p = 1;
    while (p < n) p *= 2;  // the bug: 0 once p passes 2^31
    capacity = p;
  }
};

// A cache whose evict() takes its lock and calls size(), which takes it again: a self-deadlock
// on evict() after any put.
struct SelfLockCache {
  mutable std::timed_mutex m;
  std::vector<int> items;
  void put(int v) {
    std::lock_guard lock(m);
    items.push_back(v);
  }
  std::size_t size() const {
    std::lock_guard lock(m);
    return items.size();
  }
  void evict() {
    std::lock_guard lock(m);
    if (items.empty()) return;
    if (size() > 0) items.pop_back();  // the bug: size() locks m again
  }
};

// ---- Ends the process -------------------------------------------------------------------

// A logger that "flushes and exits" when its 3-entry buffer fills: the third log() calls
// std::exit(0), which used to look like a passed test.
struct ExitingLogger {
  std::vector<int> entries;
  int how = 0;  // 0: exit(0), 1: quick_exit(0), 2: _exit(0)
  void log(int v) {
    entries.push_back(v);
    if (entries.size() == 3) {
      if (how == 0) std::exit(0);
      if (how == 1) std::quick_exit(0);
      ::_exit(0);
    }
  }
  std::size_t count() const { return entries.size(); }
};

// A service whose second start() "daemonizes": it closes every file descriptor it has (the
// isolation child's socket to its parent and its stderr among them) and then waits for a
// signal that never comes. The parent's time limit must not hang on the child's descriptors.
struct ClosingService {
  int starts = 0;
  void start() {
    if (++starts < 2) return;
    const long open_max = ::sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < (open_max > 0 && open_max < 65536 ? open_max : 65536); ++fd) ::close(fd);
    for (;;) ::pause();
  }
};

// ---- Concurrent subjects that hang or crash their process on threads --------------------

// A ticket lock whose grab is a load then a store, not a fetch_add. Two grabs at once take the
// same ticket; or one reads the ticket, the other grabs, runs and releases, and the first then
// waits for a ticket already served: it spins forever. The counter it guards is atomic, so
// the only way the bug shows is that hang. A yield between the load and the store widens the
// window, so that the hang shows within the default search on a loaded machine too (what the
// test exercises is the hang's report, not the search's luck).
class TicketLockCounter {
 public:
  long incr() {
    lock();
    const long v = value_.fetch_add(1, std::memory_order_relaxed) + 1;
    unlock();
    return v;
  }
  long get() const { return value_.load(std::memory_order_relaxed); }

 private:
  void lock() {
    const unsigned ticket = next_.load(std::memory_order_relaxed);
    std::this_thread::yield();
    next_.store(ticket + 1, std::memory_order_relaxed);  // the bug: not next_.fetch_add(1)
    while (serving_.load(std::memory_order_acquire) != ticket) {
    }
  }
  void unlock() { serving_.fetch_add(1, std::memory_order_release); }
  std::atomic<unsigned> next_{0}, serving_{0};
  std::atomic<long> value_{0};
};

inline duet::Lin<TicketLockCounter> ticket_lock_counter() {
  return duet::Lin<TicketLockCounter>("TicketLockCounter", "c")
      .op("incr", [](TicketLockCounter& c) { return c.incr(); })
      .op("get", [](TicketLockCounter& c) { return c.get(); });
}

// A work-stealing deque (Chase-Lev; made full, 16 tasks) whose pop() is for its one owner
// thread, used by two: pop() is a load then a store of `bottom`, so two pops at once take the
// same slot. Each takes the slot's task with an exchange (so that a slot never holds a task
// twice) and runs it; the second finds the slot empty, a case the one-owner design rules out,
// and dereferences null. So the misuse always shows as a segmentation fault, never as a wrong
// result.
class TwoOwnerDeque {
 public:
  static constexpr long kTasks = 16;
  TwoOwnerDeque() {
    for (long i = 0; i < kTasks; ++i) {
      tasks_[i] = static_cast<int>(i + 1);
      slots_[i].store(&tasks_[i], std::memory_order_relaxed);
    }
    bottom_.store(kTasks, std::memory_order_relaxed);
  }
  int pop() {
    const long b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    long t = top_.load(std::memory_order_relaxed);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return 0;
    }
    const int* task = slots_[b].exchange(nullptr, std::memory_order_acq_rel);
    const int value = *task;  // null when another owner took this slot
    if (t == b) {             // the last task: a thief may race for it
      const bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
      bottom_.store(b + 1, std::memory_order_relaxed);
      if (!won) return 0;
    }
    return value;
  }

 private:
  int tasks_[kTasks];
  std::atomic<int*> slots_[kTasks];
  std::atomic<long> top_{0}, bottom_{0};
};

inline duet::Lin<TwoOwnerDeque> two_owner_deque() {
  return duet::Lin<TwoOwnerDeque>("TwoOwnerDeque", "d").op("pop", [](TwoOwnerDeque& d) { return d.pop(); });
}

// ---- State-machine specs for them -------------------------------------------------------

struct Push {
  int v;
};
struct Pop {};
struct Top {};
inline std::string duet_show(const Push& c) { return "push(" + std::to_string(c.v) + ")"; }
inline std::string duet_show(const Pop&) { return "pop()"; }
inline std::string duet_show(const Top&) { return "top()"; }

struct NullStackSpec {
  using Sut = NullStack;
  using State = std::vector<int>;
  using Cmd = std::variant<Push, Pop, Top>;
  static constexpr const char* sut_name = "s";
  static duet::Gen<Cmd> command(const State& s) {
    auto push = duet::construct<Push>(duet::range(0, 9)).map([](Push p) { return Cmd(p); });
    if (s.empty()) return push;
    return duet::one_of(push, duet::just(Cmd(Pop{})), duet::just(Cmd(Top{})));
  }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (auto* p = std::get_if<Push>(&c)) {
      s.push(p->v);
      return {};
    }
    if (std::holds_alternative<Pop>(c)) {
      s.pop();
      return {};
    }
    return s.top();
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Top>(c)) return s.back();
    return {};
  }
  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<Push>(&c)) s.push_back(p->v);
    if (std::holds_alternative<Pop>(c)) s.pop_back();
  }
};

struct Reserve {
  std::uint64_t n;
};
inline std::string duet_show(const Reserve& c) { return "reserve(" + std::to_string(c.n) + ")"; }

struct BufferSpec {
  using Sut = Buffer;
  using State = std::uint64_t;  // the capacity asked for so far
  using Cmd = std::variant<Reserve>;
  static constexpr const char* sut_name = "b";
  static duet::Gen<Cmd> command(const State&) {
    return duet::construct<Reserve>(duet::integers<std::uint64_t>(0, std::uint64_t{1} << 33)).map([](Reserve r) {
      return Cmd(r);
    });
  }
  static duet::Result run(const Cmd& c, Sut& b) {
    b.reserve(std::get<Reserve>(c).n);
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State&) {}
};

struct Log {
  int v;
};
struct Count {};
inline std::string duet_show(const Log& c) { return "log(" + std::to_string(c.v) + ")"; }
inline std::string duet_show(const Count&) { return "count()"; }

template <int How>
struct LoggerSpec {
  using Sut = ExitingLogger;
  using State = std::size_t;
  using Cmd = std::variant<Log, Count>;
  static constexpr const char* sut_name = "logger";
  static std::unique_ptr<Sut> init_sut() {
    auto l = std::make_unique<Sut>();
    l->how = How;
    return l;
  }
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::construct<Log>(duet::range(0, 99)).map([](Log l) { return Cmd(l); }),
                        duet::just(Cmd(Count{})));
  }
  static duet::Result run(const Cmd& c, Sut& l) {
    if (auto* p = std::get_if<Log>(&c)) {
      l.log(p->v);
      return {};
    }
    return l.count();
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Count>(c)) return s;
    return {};
  }
  static void next(const Cmd& c, State& s) {
    if (std::holds_alternative<Log>(c)) ++s;
  }
};

struct Start {};
inline std::string duet_show(const Start&) { return "start()"; }

struct ClosingServiceSpec {
  using Sut = ClosingService;
  using State = int;
  using Cmd = std::variant<Start>;
  static constexpr const char* sut_name = "service";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Start{})); }
  static duet::Result run(const Cmd&, Sut& s) {
    s.start();
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State&) {}
};

}  // namespace crashing
