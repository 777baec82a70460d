// A run's happens-before order kept step by step (src/execute/fibers/dpor/run_order.hpp): the
// exhaustive search keeps the order of the prefix its next run replays and pushes the new
// steps; the result must be the order computed from scratch, step for step and race for race.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "execute/fibers/dpor/run_order.hpp"

namespace {

namespace fb = duet::detail::fiber;
using fb::dpor::Race;
using fb::dpor::RunOrder;
using fb::dpor::Step;

// A random run of `fibers` fibers over `objects` atomics: loads, stores, compare-exchanges
// (some failed), seq_cst fences and, under the model, steps ending with the check's fence.
std::vector<Step> random_run(std::mt19937_64& rng, std::size_t length, std::uint32_t fibers, std::uint32_t objects,
                             bool model) {
  const fb::Op ops[] = {fb::Op::load, fb::Op::store, fb::Op::cas, fb::Op::cas_fail, fb::Op::fence};
  const std::memory_order orders[] = {std::memory_order_relaxed, std::memory_order_acquire, std::memory_order_release,
                                      std::memory_order_seq_cst};
  std::vector<Step> run;
  for (std::size_t i = 0; i < length; ++i) {
    Step s;
    s.fiber = static_cast<std::uint32_t>(rng() % fibers);
    s.event.op = ops[rng() % std::size(ops)];
    s.event.order = orders[rng() % std::size(orders)];
    if (s.event.op != fb::Op::fence) {
      s.event.kind = fb::ObjectKind::atomic;
      s.event.object = static_cast<std::uint32_t>(rng() % objects);
    }
    s.model = model;
    s.fenced = model && rng() % 8 == 0;
    s.calls = rng() % 2 == 0;
    s.invokes = s.calls && rng() % 6 == 0;
    s.responds = s.calls && rng() % 6 == 0;
    run.push_back(s);
  }
  return run;
}

void expect_same_order(const RunOrder& kept, const RunOrder& fresh) {
  ASSERT_EQ(kept.size(), fresh.size());
  for (std::size_t j = 0; j < fresh.size(); ++j)
    for (std::size_t i = 0; i < fresh.size(); ++i) ASSERT_EQ(kept.before(i, j), fresh.before(i, j)) << i << " -> " << j;
  ASSERT_EQ(kept.races().size(), fresh.races().size());
  for (std::size_t r = 0; r < fresh.races().size(); ++r) {
    const Race a = kept.races()[r], b = fresh.races()[r];
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
  }
}

// A search's runs share prefixes: the order of a run made by truncating the previous run's and
// pushing the new steps equals the order of that run computed whole, over many random runs
// (lengths across the 64-step word boundaries of the order's rows).
TEST(RunOrder, KeptAcrossRunsItIsTheOrderComputedWhole) {
  std::mt19937_64 rng(47);
  for (int round = 0; round < 300; ++round) {
    const bool model = round % 2 == 1;
    const std::uint32_t fibers = 2 + static_cast<std::uint32_t>(round % 3);
    std::vector<Step> run = random_run(rng, 1 + rng() % 150, fibers, 3, model);
    RunOrder kept;
    kept.assign(run);
    for (int next = 0; next < 4; ++next) {
      const std::size_t shared = rng() % (run.size() + 1);
      std::vector<Step> other(run.begin(), run.begin() + static_cast<std::ptrdiff_t>(shared));
      for (const Step& s : random_run(rng, rng() % 150, fibers, 3, model)) other.push_back(s);
      kept.truncate(shared);
      for (std::size_t i = shared; i < other.size(); ++i) kept.push(other[i]);
      RunOrder fresh;
      fresh.assign(other);
      expect_same_order(kept, fresh);
      run = std::move(other);
    }
  }
}

// A spawn orders its fiber's first step after it, and truncating before the spawn forgets it.
TEST(RunOrder, TruncatingForgetsASpawn) {
  Step spawn{.fiber = 0, .event = fb::Event{.op = fb::Op::spawn}, .spawned = 1};
  Step child{.fiber = 1, .event = fb::Event{.op = fb::Op::store, .kind = fb::ObjectKind::atomic, .object = 0}};
  Step other{.fiber = 0, .event = fb::Event{.op = fb::Op::store, .kind = fb::ObjectKind::atomic, .object = 1}};
  RunOrder order;
  order.assign(std::vector<Step>{spawn, child});
  EXPECT_TRUE(order.before(0, 1));
  order.truncate(0);
  order.push(other);
  order.push(child);
  EXPECT_FALSE(order.before(0, 1));
  EXPECT_TRUE(order.races().empty());
}

// The trial's own fiber (TrialFrame), fiber 2 after branches 0 and 1: its steps before the
// branches start happen before each branch's first step, and the branches' steps before its
// steps after them; conflicting steps on either side of the frame are no races (no schedule
// runs them the other way round), while the branches still race with each other.
TEST(RunOrder, TheTrialsOwnFiberOrdersItsSetupBeforeTheBranchesAndItsTeardownAfter) {
  const auto store = [](std::uint32_t fiber) {
    return Step{.fiber = fiber, .event = fb::Event{.op = fb::Op::store, .kind = fb::ObjectKind::atomic, .object = 0}};
  };
  const std::vector<Step> run = {store(2), store(0), store(1), store(2)};
  RunOrder framed;
  framed.set_trial_fiber(2);
  framed.assign(run);
  EXPECT_TRUE(framed.before(0, 1));  // setup, then branch 0
  EXPECT_TRUE(framed.before(0, 2));  // and branch 1
  EXPECT_TRUE(framed.before(1, 3));  // the branches, then the teardown
  EXPECT_TRUE(framed.before(2, 3));
  ASSERT_EQ(framed.races().size(), 1u);  // branch 0's store and branch 1's
  EXPECT_EQ(framed.races()[0].first, 1u);
  EXPECT_EQ(framed.races()[0].second, 2u);
  RunOrder plain;  // without a frame, fiber 2 is a fiber like the others: every store races
  plain.assign(run);
  EXPECT_EQ(plain.races().size(), 3u);
  framed.set_trial_fiber(fb::kNoFiber);  // another value empties the order
  EXPECT_EQ(framed.size(), 0u);
}

}  // namespace
