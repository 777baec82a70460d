// The fiber runtime itself: determinism and replay, the picker's contract, pooled stacks,
// exceptions, and misuse of the scheduler.
#include <gtest/gtest.h>

#include <duet/sync.hpp>

#include <atomic>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>

#include "fiber_support.hpp"
#include "support/emulation.hpp"

namespace duet::fibertest {
extern std::atomic<bool> g_count_allocations;
extern std::atomic<long> g_allocations;
}  // namespace duet::fibertest

namespace {

using namespace duet::fibertest;

// Three fibers over atomics, a mutex, a var and a condition variable, with nodes allocated
// during the run (their addresses differ from run to run; the trace must not).
struct Mixed {
  struct Node {
    duet::atomic<int> value{0};
    Node* next = nullptr;
  };
  duet::atomic<int> counter{0};
  duet::atomic<Node*> head{nullptr};
  duet::mutex m;
  duet::condition_variable cv;
  duet::var<int> guarded{0};
  bool ready = false;

  ~Mixed() {
    for (Node* n = head.load(); n != nullptr;) delete std::exchange(n, n->next);
  }

  Branches branches() {
    auto push = [this](int v) {
      Node* n = new Node;
      n->value.store(v);
      Node* old = head.load();
      do n->next = old;
      while (!head.compare_exchange_weak(old, n));
    };
    return {
        [this, push] {
          counter.fetch_add(1);
          push(1);
          std::lock_guard g(m);
          guarded = guarded.get() + 1;
          ready = true;
          cv.notify_all();
        },
        [this, push] {
          push(2);
          std::unique_lock lk(m);
          cv.wait(lk, [&] { return ready; });
          guarded = guarded.get() + 10;
        },
        [this] {
          const int seen = counter.load();
          counter.store(seen + 5);
          duet::yield();
        },
    };
  }
};

TEST(FiberScheduler, SameDrawsGiveTheSameTraceByteForByte) {
  fb::Scheduler s;
  std::set<std::string> distinct;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<std::uint64_t> choices;
    std::vector<std::string> first;
    std::vector<fb::TraceEvent> raw;
    {
      Mixed m;
      const auto br = m.branches();
      const auto& r = run_seed(s, br, seed, &choices);
      ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
      first = fb::format_trace(s.trace());
      raw = s.trace();
    }
    Mixed again;
    const auto br = again.branches();
    const auto& r = run_replay(s, br, choices);
    ASSERT_EQ(r.outcome, fb::Outcome::completed);
    EXPECT_EQ(joined(fb::format_trace(s.trace())), joined(first));
    ASSERT_EQ(s.trace().size(), raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const fb::TraceEvent &a = raw[i], &b = s.trace()[i];
      EXPECT_TRUE(a.step == b.step && a.fiber == b.fiber && a.event.op == b.event.op && a.event.kind == b.event.kind &&
                  a.event.object == b.event.object && a.event.loc.line() == b.event.loc.line() &&
                  a.read.type == b.read.type && a.written.type == b.written.type &&
                  (a.read.type == fb::ValueType::pointer || (a.read == b.read && a.written == b.written)))
          << "event " << i;
    }
    distinct.insert(joined(first));
  }
  // The picks matter: 60 seeds must not all produce one interleaving.
  EXPECT_GT(distinct.size(), 10u);
}

TEST(FiberScheduler, AllZeroDrawsRunTheFibersOneAfterAnother) {
  fb::Scheduler s;
  Mixed m;
  const auto br = m.branches();
  // Fiber 1 waits for fiber 0's notify, so zero draws (never preempt) run 0, then 1, then 2.
  const auto& r = run_replay(s, br, {});
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
  std::uint32_t last = 0;
  for (const fb::TraceEvent& e : s.trace()) {
    EXPECT_GE(e.fiber, last) << joined(fb::format_trace(s.trace()));
    last = e.fiber;
  }
  EXPECT_EQ(m.guarded.get(), 11);
  EXPECT_EQ(m.counter.load(), 6);
}

// Records every decision the scheduler asks for, and checks the candidate order.
class CheckingPicker final : public fb::Picker {
 public:
  std::size_t pick(const fb::PickContext& ctx) override {
    ++picks;
    if (ctx.current_continues) {
      if (ctx.candidates[0] != ctx.current) bad = "current is not candidate 0";
      if (ctx.fibers[ctx.current].pending.op == fb::Op::start) bad = "a running fiber's pending event is start";
    }
    for (std::size_t i = ctx.current_continues ? 2 : 1; i < ctx.candidates.size(); ++i)
      if (ctx.candidates[i] <= ctx.candidates[i - 1]) bad = "other candidates are not ascending";
    for (std::uint32_t c : ctx.candidates)
      if (ctx.fibers[c].state != fb::FiberState::runnable) bad = "a candidate is not runnable";
    for (std::uint32_t c : ctx.candidates) pending_ops.insert(ctx.fibers[c].pending.op);
    return (picks * 7) % ctx.candidates.size();
  }
  int picks = 0;
  std::string bad;
  std::set<fb::Op> pending_ops;
};

TEST(FiberScheduler, PickerSeesCandidatesInTheDocumentedOrderAndPendingOperations) {
  fb::Scheduler s;
  for (int round = 0; round < 20; ++round) {
    Mixed m;
    const auto br = m.branches();
    CheckingPicker p;
    const auto& r = s.run(br, p);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    EXPECT_EQ(p.bad, "");
    EXPECT_GT(p.picks, 3);
    // Switch points come before operations: the picker sees what each fiber is about to do.
    EXPECT_TRUE(p.pending_ops.count(fb::Op::start));
    EXPECT_TRUE(p.pending_ops.count(fb::Op::rmw) || p.pending_ops.count(fb::Op::load));
  }
}

TEST(FiberScheduler, StacksAreMappedOnceAndRunsDoNotAllocateAfterWarmUp) {
  fb::Scheduler s;
  duet::atomic<int> a{0};
  duet::mutex m;
  const Branches br = {
      [&] {
        for (int i = 0; i < 5; ++i) {
          std::lock_guard g(m);
          a.fetch_add(1);
        }
      },
      [&] {
        for (int i = 0; i < 5; ++i) a.load();
      },
      [&] { a.store(3); },
  };
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  for (int i = 0; i < 5; ++i) {
    src.restart(static_cast<std::uint64_t>(i));
    s.run(br, picker);
  }
  EXPECT_EQ(s.stats().stacks_mapped, 3u);
  g_allocations = 0;
  g_count_allocations = true;
  for (int i = 0; i < 200; ++i) {
    src.restart(static_cast<std::uint64_t>(i % 5));  // seeds already seen: buffers are warm
    s.run(br, picker);
  }
  g_count_allocations = false;
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_EQ(s.stats().stacks_mapped, 3u);
  EXPECT_EQ(s.stats().runs, 205u);
  // Fewer fibers reuse the same stacks; more map only the missing ones.
  s.run(Branches(br.begin(), br.begin() + 2), picker);
  EXPECT_EQ(s.stats().stacks_mapped, 3u);
  s.run(Branches{br[0], br[1], br[2], br[2]}, picker);
  EXPECT_EQ(s.stats().stacks_mapped, 4u);
}

volatile bool g_keep_recursing = true;  // volatile: the compiler cannot see the end coming
void recurse_forever(volatile char* previous) {
  volatile char frame[512];
  frame[0] = previous ? previous[0] : 1;
  if (g_keep_recursing) recurse_forever(frame);
  frame[1] = 0;  // not a tail call
}

TEST(FiberSchedulerDeathTest, StackOverflowHitsTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_DEATH(
      {
        fb::Scheduler s(fb::SchedulerConfig{.stack_size = 64 * 1024});
        run_seed(s, Branches{[] { recurse_forever(nullptr); }}, 1);
      },
      "");
}

TEST(FiberScheduler, ExceptionsEscapingABranchAreCapturedPerFiber) {
  fb::Scheduler s;
  duet::atomic<int> done{0};
  const Branches br = {
      [&] {
        done.fetch_add(1);
        throw std::runtime_error("branch zero failed");
      },
      [&] { done.fetch_add(1); },
      [&] {
        done.fetch_add(1);
        throw 42;
      },
  };
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    done.store(0);
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed);
    EXPECT_EQ(done.load(), 3);
    ASSERT_EQ(r.fibers.size(), 3u);
    EXPECT_TRUE(r.fibers[0].finished && r.fibers[1].finished && r.fibers[2].finished);
    ASSERT_TRUE(r.fibers[0].error);
    EXPECT_FALSE(r.fibers[1].error);
    ASSERT_TRUE(r.fibers[2].error);
    EXPECT_THROW(std::rethrow_exception(r.fibers[0].error), std::runtime_error);
    EXPECT_THROW(std::rethrow_exception(r.fibers[2].error), int);
    EXPECT_NE(fb::describe(r, s.trace()).find("fiber 0 ended by an exception: branch zero failed"), std::string::npos);
    int exits = 0;
    for (const auto& e : s.trace()) exits += e.event.op == fb::Op::exit_exception;
    EXPECT_EQ(exits, 2);
  }
}

// Each fiber switches away inside a catch block while the other throws and catches its own
// exception, then rethrows. Without per-fiber exception state (__cxa_eh_globals), `throw;`
// would rethrow the other fiber's exception and uncaught_exceptions() would be off.
TEST(FiberScheduler, FibersSwitchingInsideCatchBlocksKeepTheirOwnExceptions) {
  fb::Scheduler s;
  duet::atomic<int> tick{0};
  int uncaught_in_handlers = 0;
  auto body = [&](int id) {
    try {
      try {
        throw id;
      } catch (int) {
        tick.fetch_add(1);  // switch points inside the handler
        tick.fetch_add(1);
        uncaught_in_handlers += std::uncaught_exceptions();
        throw;
      }
    } catch (int rethrown) {
      if (rethrown != id) throw std::logic_error("rethrew the other fiber's exception");
    }
  };
  const Branches br = {[&] { body(0); }, [&] { body(1); }};
  AlternatingPicker p;
  const auto& r = s.run(br, p);
  ASSERT_EQ(r.outcome, fb::Outcome::completed);
  EXPECT_FALSE(r.fibers[0].error) << fb::describe(r, s.trace());
  EXPECT_FALSE(r.fibers[1].error) << fb::describe(r, s.trace());
  EXPECT_EQ(uncaught_in_handlers, 0);
  EXPECT_EQ(std::uncaught_exceptions(), 0);
  // The interleaving really was inside the handlers: the fibers alternated on tick.
  std::vector<std::uint32_t> order;
  for (const auto& e : s.trace())
    if (e.event.op == fb::Op::rmw) order.push_back(e.fiber);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{0, 1, 0, 1}));
}

// Values live across a switch sit where the ABI says a call keeps them (on POWER f14-f31 and
// v20-v31, d8-d15 on arm64, f8-f15 on s390x): each side of a switch fills those registers with
// its own values, and each must find its own after. Boost.Context's jump on POWER keeps none of
// them; GCC's zero kept in v31 then came back as another fiber's pointer.
#if defined(__powerpc64__)
#define DUET_FP_REG "d"
#elif defined(__x86_64__) || defined(__i386__)
#define DUET_FP_REG "x"
#elif defined(__aarch64__)
#define DUET_FP_REG "w"
#else
#define DUET_FP_REG "f"
#endif
// Twelve values the compiler must keep, each on its own, across `step` (a call, so the
// registers a call keeps are where they go); their weighted sum, from values only known at run
// time, is the same before and after when nothing disturbed them.
template <class Step>
[[gnu::noinline]] bool keeps_values_across(double seed, Step step) {
  double a0 = seed + 1, a1 = seed * 2, a2 = seed + 3, a3 = seed * 4, a4 = seed + 5, a5 = seed * 6;
  double a6 = seed + 7, a7 = seed * 8, a8 = seed + 9, a9 = seed * 10, a10 = seed + 11, a11 = seed * 12;
  const double before =
      a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7 + 9 * a8 + 10 * a9 + 11 * a10 + 12 * a11;
  step();
  asm volatile(""
               : "+" DUET_FP_REG(a0), "+" DUET_FP_REG(a1), "+" DUET_FP_REG(a2), "+" DUET_FP_REG(a3), "+" DUET_FP_REG(a4),
                 "+" DUET_FP_REG(a5), "+" DUET_FP_REG(a6), "+" DUET_FP_REG(a7), "+" DUET_FP_REG(a8), "+" DUET_FP_REG(a9),
                 "+" DUET_FP_REG(a10), "+" DUET_FP_REG(a11));
  const double after =
      a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7 + 9 * a8 + 10 * a9 + 11 * a10 + 12 * a11;
  return before == after;
}

TEST(FiberScheduler, EachSideOfASwitchKeepsTheRegistersACallKeeps) {
  fb::Scheduler s;
  duet::atomic<int> tick{0};
  volatile double seed = 0.5;  // known at run time only
  std::atomic<int> kept{0};
  auto body = [&](double own) {
    for (int i = 0; i < 4; ++i)
      if (keeps_values_across(own + i, [&] { tick.fetch_add(1); })) kept.fetch_add(1);  // a switch point
  };
  const Branches br = {[&] { body(seed * 3); }, [&] { body(seed * 7); }};
  AlternatingPicker p;
  const bool main_kept = keeps_values_across(seed, [&] {
    const auto& r = s.run(br, p);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
  });
  EXPECT_TRUE(main_kept) << "the scheduling side's values changed across the run";
  EXPECT_EQ(kept.load(), 8) << "a fiber's values changed across a switch";
  EXPECT_EQ(tick.load(), 8);
}

TEST(FiberScheduler, APickerExceptionEndsTheRunAndTheSchedulerStaysUsable) {
  fb::Scheduler s;
  duet::atomic<int> a{0};
  const Branches br = {[&] {
                         for (int i = 0; i < 50; ++i) a.fetch_add(1);
                       },
                       [&] {
                         for (int i = 0; i < 50; ++i) a.fetch_add(1);
                       }};
  const std::uint8_t bytes[3] = {1, 0, 1};
  duet::Source src = duet::Source::from_bytes(bytes);
  fb::RandomPicker picker(src);
  EXPECT_THROW(s.run(br, picker), duet::Overrun);
  EXPECT_EQ(fb::current(), nullptr);
  a.store(0);
  const auto& r = run_seed(s, br, 3);
  EXPECT_EQ(r.outcome, fb::Outcome::completed);
  EXPECT_EQ(a.load(), 100);
}

// Every picker decision can fail (a Source out of bytes): the run ends and run() rethrows.
class FailingPicker final : public fb::Picker {
 public:
  explicit FailingPicker(int which) : which_(which) {}
  std::size_t pick(const fb::PickContext&) override {
    if (which_ == 0) throw std::runtime_error("pick");
    return 0;
  }
  bool spurious_wakeup(std::uint32_t, const fb::Event&) override {
    if (which_ == 1) throw std::runtime_error("spurious_wakeup");
    return false;
  }
  std::size_t pick_waiter(std::uint32_t, std::span<const std::uint32_t>) override {
    if (which_ == 2) throw std::runtime_error("pick_waiter");
    return 0;
  }

 private:
  int which_;
};

TEST(FiberScheduler, EveryKindOfPickerFailureIsRethrown) {
  fb::Scheduler s;
  duet::mutex m;
  duet::condition_variable cv;
  bool go = false;
  const auto waiter = [&] {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return go; });
  };
  const Branches br = {waiter, waiter, [&] {
                         duet::yield();  // let both waiters block first (zero picks)
                         std::lock_guard g(m);
                         go = true;
                         cv.notify_one();
                         cv.notify_one();
                       }};
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    go = false;
    FailingPicker p(which);
    try {
      s.run(br, p);
      ADD_FAILURE() << "run() returned";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), which == 0 ? "pick" : which == 1 ? "spurious_wakeup" : "pick_waiter");
    }
    EXPECT_EQ(fb::current(), nullptr);
  }
}

TEST(FiberScheduler, RejectsBadBranchCountsAndNestedRuns) {
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  EXPECT_THROW(s.run(Branches{}, picker), std::invalid_argument);
  EXPECT_THROW(s.run(Branches(fb::kMaxFibers + 1, [] {}), picker), std::invalid_argument);
  bool nested_threw = false;
  const auto& r = s.run(Branches{[&] {
                          fb::Scheduler inner;
                          duet::Source src2 = duet::Source::from_seed(2);
                          fb::RandomPicker p2(src2);
                          try {
                            inner.run(Branches{[] {}}, p2);
                          } catch (const std::logic_error&) {
                            nested_threw = true;
                          }
                        }},
                        picker);
  EXPECT_EQ(r.outcome, fb::Outcome::completed);
  EXPECT_TRUE(nested_threw);
  const auto& full = s.run(Branches(fb::kMaxFibers, [] { duet::yield(); }), picker);
  EXPECT_EQ(full.outcome, fb::Outcome::completed);
}

TEST(FiberScheduler, StepAndFiberAreVisibleFromInsideARun) {
  fb::Scheduler s;
  duet::atomic<int> a{0};
  std::vector<std::pair<std::uint32_t, std::size_t>> seen;
  const Branches br = {[&] {
                         seen.push_back({s.current_fiber(), s.step()});
                         a.store(1);
                         seen.push_back({s.current_fiber(), s.step()});
                       },
                       [&] {
                         seen.push_back({s.current_fiber(), s.step()});
                       }};
  run_replay(s, br, {});
  // Zero draws: fiber 0 runs first; its start is step 0, its store step 1.
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::pair<std::uint32_t, std::size_t>{0, 1}));
  EXPECT_EQ(seen[1], (std::pair<std::uint32_t, std::size_t>{0, 2}));
  EXPECT_EQ(seen[2].first, 1u);
  EXPECT_EQ(s.current_fiber(), fb::kNoFiber);
}

}  // namespace
