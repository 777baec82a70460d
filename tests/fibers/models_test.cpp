// The concurrent subjects of models/ (spin locks, Treiber stacks, the Michael–Scott queue,
// seqlocks, bounded buffers) and their buggy versions (support/buggy_subjects.hpp), driven
// directly by the fiber scheduler under seeded random picks: the correct ones keep their
// invariants over thousands of schedules, the buggy ones are caught within a bounded number of
// seeds, the same seed catching them the same way. Then the same classes instantiated with the
// std types on real threads, and their specs checked sequentially against their models.
#include <gtest/gtest.h>

#include <duet/duet.hpp>
#include <duet/models/bounded_buffer.hpp>
#include <duet/models/lazy_list.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/seqlock.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/sync_traits.hpp>
#include <duet/models/treiber_stack.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fiber_support.hpp"
#include "support/buggy_subjects.hpp"

// Every member of every subject compiles with both kinds of types, buggy ones included.
namespace duet::models {
template class TasSpinLock<StdSync>;
template class TasSpinLock<FiberSync>;
template class TtasSpinLock<StdSync>;
template class TtasSpinLock<FiberSync>;
template class LockedCounter<TasSpinLock<StdSync>, StdSync>;
template class LockedCounter<TtasSpinLock<FiberSync>, FiberSync>;
template class TreiberStack<int, StdSync>;
template class TreiberStack<int, FiberSync>;
template class AbaTreiberStack<int, StdSync>;
template class AbaTreiberStack<int, FiberSync>;
template class MsQueue<int, StdSync>;
template class MsQueue<int, FiberSync>;
template class BasicSeqLock<int, StdSync, SeqLockRecheck>;
template class BasicSeqLock<int, StdSync, SeqLockNoRecheck>;
template class BasicSeqLock<int, FiberSync, SeqLockRecheck>;
template class BasicSeqLock<int, FiberSync, SeqLockNoRecheck>;
template class BasicBoundedBuffer<int, StdSync, WaitInLoop>;
template class BasicBoundedBuffer<int, StdSync, WaitOnce>;
template class BasicBoundedBuffer<int, FiberSync, WaitInLoop>;
template class BasicBoundedBuffer<int, FiberSync, WaitOnce>;
}  // namespace duet::models

namespace {

using namespace duet::fibertest;
namespace dm = duet::models;
using dm::FiberSync;
using dm::StdSync;

constexpr std::uint64_t kRuns = 10'000;     // schedules each correct subject must survive
constexpr std::uint64_t kMaxSeeds = 2'000;  // seeds within which each bug must show

std::string describe_run(const fb::Scheduler& s) { return fb::describe(s.result(), s.trace()); }
std::string trace_text(const fb::Scheduler& s) { return joined(fb::format_trace(s.trace())); }

std::string error_of(const fb::RunResult& r) {
  for (const auto& f : r.fibers) {
    if (!f.error) continue;
    try {
      std::rethrow_exception(f.error);
    } catch (const std::exception& e) {
      return e.what();
    } catch (...) {
      return "unknown exception";
    }
  }
  return "";
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// A buggy subject under seeded random schedules. `reset` builds a fresh subject before each
// run; `symptom` looks at the finished run and says what went wrong ("" when nothing did).
// Finds the first failing seed below kMaxSeeds, then checks that running that seed again, and
// replaying its draws, fails the same way with the same trace.
struct Hunt {
  Branches branches;
  std::function<void()> reset;
  std::function<std::string(const fb::RunResult&)> symptom;
  std::uint64_t spurious_one_in = 8;

  struct Found {
    std::uint64_t seed = 0;
    std::string symptom, trace;
  };

  const fb::RunResult& run(fb::Scheduler& s, duet::Source& src) const {
    reset();
    fb::RandomPicker picker(src, spurious_one_in);
    return s.run(branches, picker);
  }

  std::optional<Found> first_failure(fb::Scheduler& s) const {
    for (std::uint64_t seed = 0; seed < kMaxSeeds; ++seed) {
      duet::Source src = duet::Source::from_seed(seed);
      const std::string what = symptom(run(s, src));
      if (what.empty()) continue;
      Found f{seed, what, trace_text(s)};
      testing::Test::RecordProperty("first_failing_seed", std::to_string(seed));
      testing::Test::RecordProperty("symptom", what);
      // Deterministic: the same seed again, then its recorded draws replayed.
      duet::Source again = duet::Source::from_seed(seed);
      EXPECT_EQ(symptom(run(s, again)), f.symptom) << "seed " << seed;
      EXPECT_EQ(trace_text(s), f.trace) << "seed " << seed;
      duet::Source replay = duet::Source::replay(src.choices());
      EXPECT_EQ(symptom(run(s, replay)), f.symptom) << "seed " << seed;
      EXPECT_EQ(trace_text(s), f.trace) << "seed " << seed;
      return f;
    }
    return std::nullopt;
  }
};

// ---- spin locks ----

// Three fibers increment a duet::var through the lock three times each, then read it: the var
// must never be raced on (the detector would end the run) and no increment may be lost.
template <class Lock>
void spin_lock_gives_mutual_exclusion() {
  fb::Scheduler s;
  std::optional<dm::LockedCounter<Lock, FiberSync>> c;
  std::array<long, 3> seen{};
  Branches br;
  for (std::size_t f = 0; f < seen.size(); ++f)
    br.push_back([&, f] {
      for (int i = 0; i < 3; ++i) c->incr();
      seen[f] = c->get();
    });
  std::size_t max_steps = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    c.emplace();
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    ASSERT_EQ(c->get(), 9) << "seed " << seed;
    for (long v : seen) ASSERT_TRUE(v >= 3 && v <= 9) << "seed " << seed << ": get() = " << v;
    max_steps = std::max(max_steps, r.steps);
  }
  EXPECT_LT(max_steps, s.config().max_steps / 4) << "fairness: spinning should stay far from the bound";
}

TEST(FiberModels, TasSpinLockGivesMutualExclusion) { spin_lock_gives_mutual_exclusion<dm::TasSpinLock<FiberSync>>(); }
TEST(FiberModels, TtasSpinLockGivesMutualExclusion) { spin_lock_gives_mutual_exclusion<dm::TtasSpinLock<FiberSync>>(); }
TEST(FiberModels, TicketLockGivesMutualExclusion) { spin_lock_gives_mutual_exclusion<dm::TicketLock<FiberSync>>(); }

// The control: without a lock the same counter is a data race, and the detector says so.
TEST(FiberModels, CounterWithoutALockIsADataRace) {
  struct NoLock {
    void lock() {}
    void unlock() {}
  };
  fb::Scheduler s;
  dm::LockedCounter<NoLock, FiberSync> c;
  const auto body = [&] { c.incr(); };
  std::uint64_t seed = 0;
  for (; seed < 100; ++seed)
    if (run_seed(s, Branches{body, body}, seed).outcome == fb::Outcome::data_race) break;
  ASSERT_LT(seed, 100u);
  EXPECT_NE(describe_run(s).find("spin_lock.hpp"), std::string::npos) << describe_run(s);
}

// ---- Treiber stacks ----

// Four values before the run; three fibers each push two and pop three times. Every value
// pushed comes out exactly once: popped during the run or drained after it.
TEST(FiberModels, TreiberStackPopsEveryValueExactlyOnce) {
  fb::Scheduler s;
  std::optional<dm::TreiberStack<int, FiberSync>> st;
  std::array<std::vector<int>, 3> popped;
  Branches br;
  for (int f = 0; f < 3; ++f)
    br.push_back([&, f] {
      st->push(10 * (f + 1) + 1);
      if (auto v = st->pop()) popped[f].push_back(*v);
      st->push(10 * (f + 1) + 2);
      if (auto v = st->pop()) popped[f].push_back(*v);
      if (auto v = st->pop()) popped[f].push_back(*v);
    });
  const std::vector<int> pushed = sorted({1, 2, 3, 4, 11, 12, 21, 22, 31, 32});
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    st.emplace();
    for (int v = 1; v <= 4; ++v) st->push(v);
    for (auto& p : popped) p.clear();
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    std::vector<int> all;
    for (const auto& p : popped) {
      ASSERT_EQ(p.size(), 3u) << "seed " << seed << ": a pop found the stack empty, yet 4 were left over";
      all.insert(all.end(), p.begin(), p.end());
    }
    while (auto v = st->pop()) all.push_back(*v);
    ASSERT_EQ(sorted(all), pushed) << "seed " << seed << "\n" << trace_text(s);
  }
}

// The same stack with a node free list: four fibers each pop and push once, on a stack of four.
// Some schedule pops a value twice or loses one (the stale CAS of the header's comment).
TEST(FiberModels, AbaTreiberStackLosesOrDuplicatesAValue) {
  fb::Scheduler s;
  std::optional<dm::AbaTreiberStack<int, FiberSync>> st;
  std::vector<int> popped;
  Hunt h;
  for (int f = 0; f < 4; ++f)
    h.branches.push_back([&, f] {
      if (auto v = st->pop()) popped.push_back(*v);
      st->push(10 * (f + 1));
    });
  h.reset = [&] {
    st.emplace();
    for (int v = 1; v <= 4; ++v) st->push(v);
    popped.clear();
  };
  h.symptom = [&](const fb::RunResult& r) -> std::string {
    if (r.outcome != fb::Outcome::completed) return fb::outcome_name(r.outcome);
    std::vector<int> all = popped;
    for (int k = 0; k <= 8; ++k) {  // bounded: a corrupted stack may link a node to itself
      auto v = st->pop();
      if (!v) break;
      all.push_back(*v);
    }
    const std::vector<int> want = {1, 2, 3, 4, 10, 20, 30, 40};
    if (sorted(all) == want) return "";
    std::string got;
    for (int v : sorted(all)) got += std::to_string(v) + " ";
    return "pushed 1 2 3 4 10 20 30 40, popped " + got;
  };
  const auto found = h.first_failure(s);
  ASSERT_TRUE(found.has_value()) << "the ABA was not scheduled within " << kMaxSeeds << " seeds";
  EXPECT_EQ(found->symptom.rfind("pushed ", 0), 0u) << found->symptom;
}

// ---- Michael–Scott queue ----

// Two producers enqueue three values each; two consumers try three dequeues each. Each value
// comes out once, and each producer's values come out in the order it pushed them: in every
// consumer's sequence, and in what is left over after the run (all later than anything popped).
TEST(FiberModels, MsQueueKeepsEachProducersOrderAndLosesNothing) {
  fb::Scheduler s;
  std::optional<dm::MsQueue<int, FiberSync>> q;
  std::array<std::vector<int>, 2> got;
  Branches br;
  for (int p = 1; p <= 2; ++p)
    br.push_back([&, p] {
      for (int k = 1; k <= 3; ++k) q->push(10 * p + k);
    });
  for (std::size_t c = 0; c < got.size(); ++c)
    br.push_back([&, c] {
      for (int k = 0; k < 3; ++k)
        if (auto v = q->try_pop()) got[c].push_back(*v);
    });
  const auto in_producer_order = [](const std::vector<int>& seq) {
    std::map<int, int> last;  // producer -> last value seen
    for (int v : seq) {
      if (v <= last[v / 10]) return false;
      last[v / 10] = v;
    }
    return true;
  };
  std::size_t empty_pops = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    q.emplace();
    for (auto& g : got) g.clear();
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    std::vector<int> rest;
    while (auto v = q->try_pop()) rest.push_back(*v);
    std::vector<int> all = rest;
    for (const auto& g : got) {
      ASSERT_TRUE(in_producer_order(g)) << "seed " << seed << "\n" << trace_text(s);
      all.insert(all.end(), g.begin(), g.end());
      empty_pops += 3 - g.size();
      std::vector<int> then = g;  // this consumer's values, then the leftovers
      then.insert(then.end(), rest.begin(), rest.end());
      ASSERT_TRUE(in_producer_order(then)) << "seed " << seed << "\n" << trace_text(s);
    }
    ASSERT_EQ(sorted(all), (std::vector<int>{11, 12, 13, 21, 22, 23})) << "seed " << seed << "\n" << trace_text(s);
  }
  EXPECT_GT(empty_pops, 0u) << "the schedules should include dequeues that find the queue empty";
}

// ---- seqlocks ----

// Two writers write (v, v) pairs under the seqlock; two readers read three times each. A pair
// whose halves differ is torn.
struct SeqLockRig {
  template <class Lock>
  static Branches branches(std::optional<Lock>& lock, std::array<std::vector<std::pair<int, int>>, 2>& reads) {
    Branches br;
    for (int w = 1; w <= 2; ++w)
      br.push_back([&, w] {
        for (int k = 1; k <= 2; ++k) lock->write(10 * w + k, 10 * w + k);
      });
    for (std::size_t rd = 0; rd < reads.size(); ++rd)
      br.push_back([&, rd] {
        for (int k = 0; k < 3; ++k) reads[rd].push_back(lock->read());
      });
    return br;
  }
  static std::string torn(const std::array<std::vector<std::pair<int, int>>, 2>& reads) {
    for (const auto& rs : reads)
      for (const auto& [a, b] : rs)
        if (a != b) return "torn read (" + std::to_string(a) + ", " + std::to_string(b) + ")";
    return "";
  }
};

TEST(FiberModels, SeqLockReaderNeverSeesATornPair) {
  fb::Scheduler s;
  std::optional<dm::SeqLock<int, FiberSync>> lock;
  std::array<std::vector<std::pair<int, int>>, 2> reads;
  const Branches br = SeqLockRig::branches(lock, reads);
  std::size_t mid_write_reads = 0;  // reads that began while a write was in progress
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    lock.emplace();
    for (auto& r : reads) r.clear();
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    ASSERT_EQ(SeqLockRig::torn(reads), "") << "seed " << seed << "\n" << trace_text(s);
    for (const auto& e : s.trace()) mid_write_reads += e.event.op == fb::Op::yield;
  }
  EXPECT_GT(mid_write_reads, 0u) << "readers should sometimes find a write in progress and retry";
}

TEST(FiberModels, SeqLockWithoutTheRecheckTearsAPair) {
  fb::Scheduler s;
  std::optional<dm::NoRecheckSeqLock<int, FiberSync>> lock;
  std::array<std::vector<std::pair<int, int>>, 2> reads;
  Hunt h;
  h.branches = SeqLockRig::branches(lock, reads);
  h.reset = [&] {
    lock.emplace();
    for (auto& r : reads) r.clear();
  };
  h.symptom = [&](const fb::RunResult& r) -> std::string {
    if (r.outcome != fb::Outcome::completed) return fb::outcome_name(r.outcome);
    return SeqLockRig::torn(reads);
  };
  const auto found = h.first_failure(s);
  ASSERT_TRUE(found.has_value()) << "no torn read within " << kMaxSeeds << " seeds";
  EXPECT_EQ(found->symptom.rfind("torn read", 0), 0u) << found->symptom;
}

// ---- bounded buffers ----

// Capacity 1; two producers push two values each, two consumers pop two each. One producer and
// one consumer use the blocking calls, the others the timed ones, which must never give up
// here (a timed wait ends by timeout only when no fiber can proceed, and some always can).
TEST(FiberModels, BoundedBufferDeliversEveryItemInOrder) {
  fb::Scheduler s;
  std::optional<dm::BoundedBuffer<int, FiberSync>> q;
  std::array<std::vector<int>, 2> got;
  int timeouts = 0;
  Branches br;
  br.push_back([&] {
    for (int k = 1; k <= 2; ++k) q->push(10 + k);
  });
  br.push_back([&] {
    for (int k = 1; k <= 2; ++k)
      if (!q->try_push_for(20 + k, std::chrono::seconds(1))) ++timeouts;
  });
  br.push_back([&] {
    for (int k = 0; k < 2; ++k) got[0].push_back(q->pop());
  });
  br.push_back([&] {
    for (int k = 0; k < 2; ++k) {
      if (auto v = q->try_pop_for(std::chrono::seconds(1))) got[1].push_back(*v);
      else ++timeouts;
    }
  });
  std::size_t waits = 0, spurious = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    q.emplace(1);
    for (auto& g : got) g.clear();
    timeouts = 0;
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    ASSERT_EQ(error_of(r), "") << "seed " << seed;
    ASSERT_EQ(timeouts, 0) << "seed " << seed << "\n" << trace_text(s);
    std::vector<int> all;
    for (const auto& g : got) {
      for (std::size_t i = 1; i < g.size(); ++i)
        if (g[i - 1] / 10 == g[i] / 10) ASSERT_LT(g[i - 1], g[i]) << "seed " << seed << "\n" << trace_text(s);
      all.insert(all.end(), g.begin(), g.end());
    }
    ASSERT_EQ(sorted(all), (std::vector<int>{11, 12, 21, 22})) << "seed " << seed;
    for (const auto& e : s.trace()) {
      waits += e.event.op == fb::Op::wait && e.event.kind == fb::ObjectKind::condition_variable;
      spurious += e.event.op == fb::Op::wake && e.read.bits == static_cast<std::uint64_t>(fb::WakeReason::spurious);
    }
  }
  EXPECT_GT(waits, kRuns) << "producers and consumers should often wait";
  EXPECT_GT(spurious, 0u) << "spurious wake-ups should be drawn";
}

TEST(FiberModels, BoundedBufferTimedCallsGiveUpWhenNobodyCanHelp) {
  fb::Scheduler s;
  dm::BoundedBuffer<int, FiberSync> q(1);
  std::optional<int> popped = 5;
  bool second_push = true;
  const Branches br = {[&] {
    popped = q.try_pop_for(std::chrono::hours(1));  // empty, and nobody else: times out
    q.push(1);
    second_push = q.try_push_for(2, std::chrono::hours(1));  // full, and nobody else
  }};
  ASSERT_EQ(run_seed(s, br, 1).outcome, fb::Outcome::completed) << describe_run(s);
  EXPECT_EQ(popped, std::nullopt);
  EXPECT_FALSE(second_push);
  EXPECT_EQ(q.pop(), 1);
}

// `if` instead of `while`, with spurious wake-ups: one producer, one consumer, capacity 1. A
// wait that wakes spuriously pushes into a full buffer or pops from an empty one.
TEST(FiberModels, IfWaitBoundedBufferIsCaughtBySpuriousWakeUps) {
  fb::Scheduler s;
  std::optional<dm::IfWaitBoundedBuffer<int, FiberSync>> q;
  Hunt h;
  h.branches = {[&] {
                  for (int k = 1; k <= 2; ++k) q->push(k);
                },
                [&] {
                  for (int k = 0; k < 2; ++k) q->pop();
                }};
  h.reset = [&] { q.emplace(1); };
  h.symptom = [](const fb::RunResult& r) { return error_of(r); };
  const auto found = h.first_failure(s);
  ASSERT_TRUE(found.has_value()) << "no spurious wake-up tripped the buffer within " << kMaxSeeds << " seeds";
  EXPECT_TRUE(found->symptom == "BoundedBuffer: pop from an empty buffer" ||
              found->symptom == "BoundedBuffer: push into a full buffer")
      << found->symptom;
  EXPECT_NE(found->trace.find("wake"), std::string::npos) << found->trace;
}

// The same bug without any spurious wake-up: a stolen wake-up. Consumer A waits on the empty
// buffer; the producer pushes and notifies it; consumer B, not waiting, gets the mutex first
// and takes the item; A returns from its wait and pops from the empty buffer.
TEST(FiberModels, IfWaitBoundedBufferIsCaughtByAStolenWakeUp) {
  fb::Scheduler s;
  std::optional<dm::IfWaitBoundedBuffer<int, FiberSync>> q;
  Hunt h;
  h.spurious_one_in = 0;
  h.branches = {[&] { q->push(1); }, [&] { q->pop(); }, [&] { q->pop(); }, [&] { q->push(2); }};
  h.reset = [&] { q.emplace(1); };
  h.symptom = [](const fb::RunResult& r) { return error_of(r); };
  const auto found = h.first_failure(s);
  ASSERT_TRUE(found.has_value()) << "no stolen wake-up within " << kMaxSeeds << " seeds";
  EXPECT_EQ(found->symptom, "BoundedBuffer: pop from an empty buffer");
  EXPECT_EQ(found->trace.find("spurious"), std::string::npos) << found->trace;
  EXPECT_NE(found->trace.find("notified"), std::string::npos) << found->trace;

  // The correct buffer, same program, same seeds: never.
  std::optional<dm::BoundedBuffer<int, FiberSync>> good;
  const Branches br = {[&] { good->push(1); }, [&] { good->pop(); }, [&] { good->pop(); }, [&] { good->push(2); }};
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
    good.emplace(1);
    duet::Source src = duet::Source::from_seed(seed);
    fb::RandomPicker picker(src, 0);
    const auto& r = s.run(br, picker);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << describe_run(s);
    ASSERT_EQ(error_of(r), "") << "seed " << seed;
  }
}

// ---- the std instantiations, on real threads ----

template <class F>
void on_threads(int n, F f) {
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i) ts.emplace_back([&f, i] { f(i); });
  for (auto& t : ts) t.join();
}

TEST(FiberModelsOnThreads, StdInstantiationsWork) {
  constexpr int kThreads = 4, kOps = 1'000;

  dm::LockedCounter<dm::TasSpinLock<StdSync>, StdSync> tas;
  dm::LockedCounter<dm::TtasSpinLock<StdSync>, StdSync> ttas;
  on_threads(kThreads, [&](int) {
    for (int k = 0; k < kOps; ++k) {
      tas.incr();
      ttas.incr();
    }
  });
  EXPECT_EQ(tas.get(), kThreads * kOps);
  EXPECT_EQ(ttas.get(), kThreads * kOps);

  // Each thread pushes its own values and pops as many; every value comes out exactly once.
  dm::TreiberStack<int, StdSync> stack;
  std::array<std::vector<int>, kThreads> popped;
  on_threads(kThreads, [&](int t) {
    for (int k = 0; k < kOps; ++k) {
      stack.push(t * kOps + k);
      if (auto v = stack.pop()) popped[t].push_back(*v);
    }
  });
  std::vector<int> all;
  for (const auto& p : popped) all.insert(all.end(), p.begin(), p.end());
  while (auto v = stack.pop()) all.push_back(*v);
  std::vector<int> want(kThreads * kOps);
  for (int i = 0; i < kThreads * kOps; ++i) want[i] = i;
  EXPECT_EQ(sorted(all), want);

  // Two producers, two consumers; each consumer sees each producer's values in order.
  dm::MsQueue<int, StdSync> queue;
  std::array<std::vector<int>, 2> got;
  std::atomic<int> taken{0};
  on_threads(4, [&](int t) {
    if (t < 2) {
      for (int k = 0; k < kOps; ++k) queue.push(t * kOps + k);
      return;
    }
    while (taken.load() < 2 * kOps) {
      if (auto v = queue.try_pop()) {
        got[t - 2].push_back(*v);
        taken.fetch_add(1);
      } else {
        std::this_thread::yield();
      }
    }
  });
  all.clear();
  for (const auto& g : got) {
    std::array<int, 2> last{-1, -1};
    for (int v : g) {
      EXPECT_GT(v, last[v / kOps]);
      last[v / kOps] = v;
    }
    all.insert(all.end(), g.begin(), g.end());
  }
  want.resize(2 * kOps);
  EXPECT_EQ(sorted(all), want);

  // One writer of (k, k) pairs, three readers: no torn pair.
  dm::SeqLock<int, StdSync> seq;
  std::atomic<int> torn{0};
  on_threads(4, [&](int t) {
    for (int k = 1; k <= kOps; ++k) {
      if (t == 0) {
        seq.write(k, k);
      } else {
        const auto [a, b] = seq.read();
        if (a != b) torn.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(seq.read(), std::make_pair(kOps, kOps));

  // Two producers and two consumers through a buffer of 4, blocking both ways.
  dm::BoundedBuffer<int, StdSync> buffer(4);
  std::array<std::vector<int>, 2> out;
  on_threads(4, [&](int t) {
    for (int k = 0; k < kOps; ++k) {
      if (t < 2) buffer.push(t * kOps + k);
      else out[t - 2].push_back(buffer.pop());
    }
  });
  all.clear();
  for (const auto& o : out) all.insert(all.end(), o.begin(), o.end());
  EXPECT_EQ(sorted(all), want);
  EXPECT_EQ(buffer.try_pop_for(std::chrono::milliseconds(1)), std::nullopt);
}

// ---- the specs, sequentially: each model agrees with its subject ----
// (The buggy subjects are correct without concurrency, so their specs pass too.)

TEST(FiberModelSpecs, AgreeWithTheirSubjectsSequentially) {
  constexpr duet::Config many{.count = 2'000};
  constexpr duet::Config timed{.count = 200};  // an empty pop or a full push waits out its timeout
  EXPECT_TRUE(duet::check_sequential<dm::TasSpinLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::TtasSpinLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::TicketLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::RelaxedTicketLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::LazyListSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::UnvalidatedLazyListSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::LazyListSpec<StdSync>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::TreiberStackSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::AbaTreiberStackSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::MsQueueSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::SeqLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::NoRecheckSeqLockSpec<>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::BoundedBufferSpec<>>(timed));
  EXPECT_TRUE(duet::check_sequential<dm::IfWaitBoundedBufferSpec<>>(timed));
  EXPECT_TRUE(duet::check_sequential<dm::TreiberStackSpec<StdSync>>(many));
  EXPECT_TRUE(duet::check_sequential<dm::BoundedBufferSpec<StdSync>>(timed));
}

}  // namespace
