// xenium (Debian's libxenium-dev), unmodified, on the fiber scheduler: its queues and hash map
// with an epoch-based reclaimer pass their documented semantics (linearizable against the
// candidate run sequentially), the Chase-Lev deque passes with one owner at a time, and two
// owners popping at once are found. The reclaimers keep per-thread state in thread_local
// variables: each fiber is a thread of its own to them.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#if DUET_HAVE_XENIUM
#include <xenium/chase_work_stealing_deque.hpp>
#include <xenium/harris_michael_hash_map.hpp>
#include <xenium/michael_scott_queue.hpp>
#include <xenium/policy.hpp>
#include <xenium/ramalhete_queue.hpp>
#include <xenium/reclamation/generic_epoch_based.hpp>
#else
// Why its tests skip: set by the build (tests/instrumented/header_libraries.cmake): not installed,
// or its headers do not compile for this target.
#ifndef DUET_SKIP_XENIUM
#define DUET_SKIP_XENIUM "xenium not installed (apt-get install libxenium-dev)"
#endif
#endif

#include <array>
#include <mutex>
#include <optional>

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

#if DUET_HAVE_XENIUM
using Reclaimer = xenium::reclamation::epoch_based<>;

// The values the pointer-holding structures carry: pointers into a fixed table. A result is the
// pointer's index, never read through it: a structure used wrongly may hand out any pointer.
std::array<int, 10> g_values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
long index_of(const int* p) { return p - g_values.data(); }

template <class Queue>
duet::Lin<Queue> pointer_queue_spec(const char* name) {
  return duet::Lin<Queue>(name, "q")
      .op(
          "push", [](Queue& q, int v) { q.push(&g_values[static_cast<std::size_t>(v)]); }, duet::integers(0, 9))
      .op("try_pop", [](Queue& q) {
        int* p = nullptr;
        return q.try_pop(p) ? std::optional<long>(index_of(p)) : std::nullopt;
      });
}

using MichaelScottQueue = xenium::michael_scott_queue<int, xenium::policy::reclaimer<Reclaimer>>;

TEST(InstrumentedXenium, MichaelScottQueue) {
  auto lin = duet::Lin<MichaelScottQueue>("michael_scott_queue", "q")
                 .op(
                     "push", [](MichaelScottQueue& q, int v) { q.push(v); }, duet::integers(0, 9))
                 .op("try_pop", [](MichaelScottQueue& q) {
                   int v = 0;
                   return q.try_pop(v) ? std::optional<int>(v) : std::nullopt;
                 });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(1, 300));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// Small nodes, so that runs cross from one node to the next.
using RamalheteQueue =
    xenium::ramalhete_queue<int*, xenium::policy::reclaimer<Reclaimer>, xenium::policy::entries_per_node<2>>;

// Every operation as seq_cst. Under the C++ memory model try_pop can report the queue empty
// while it is not: its fetch_add on pop_idx (11) is release only, so the acquire load of next
// (12) that follows need not see the node another thread linked (4) before its own fetch_add.
// duet finds it, but cannot replay it: xenium's global epoch counter keeps counting from run to
// run, so a replay reads other values, and the check ends as "nondeterministic" (an error).
TEST(InstrumentedXenium, RamalheteQueue) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), {.memory_model = duet::MemoryModel::sc});
  const duet::CheckResult r =
      duet::check_parallel(pointer_queue_spec<RamalheteQueue>("ramalhete_queue"), pc, seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

// Two buckets: the keys share the lists that the map's operations traverse and unlink.
using HashMap = xenium::harris_michael_hash_map<int, int, xenium::policy::reclaimer<Reclaimer>, xenium::policy::buckets<2>>;

TEST(InstrumentedXenium, HarrisMichaelHashMap) {
  auto lin = duet::Lin<HashMap>("harris_michael_hash_map", "m")
                 .op(
                     "emplace", [](HashMap& m, int k, int v) { return m.emplace(k, v); }, duet::integers(0, 3),
                     duet::integers(0, 9))
                 .op(
                     "erase", [](HashMap& m, int k) { return m.erase(k); }, duet::integers(0, 3))
                 .op(
                     "find",
                     [](HashMap& m, int k) {
                       auto it = m.find(k);
                       return it != m.end() ? std::optional<int>(it->second) : std::nullopt;
                     },
                     duet::integers(0, 3));
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

// The Chase-Lev deque: push and pop are its owner's, steal anyone's, and a steal may fail when
// it loses a race with another thief (that is the algorithm: the thief retries). Mutexes make
// one owner and one thief at a time, which the deque allows, and then it is linearizable as a
// deque; without the owner's mutex two threads pop the same end at once, which it does not allow.
template <bool OneOwner>
class WorkDeque {
 public:
  bool push(int v) {
    return owner([&] { return deque_.try_push(&g_values[static_cast<std::size_t>(v)]); });
  }
  std::optional<long> pop() {
    return owner([&] {
      int* p = nullptr;
      return deque_.try_pop(p) ? std::optional<long>(index_of(p)) : std::nullopt;
    });
  }
  std::optional<long> steal() {
    const std::lock_guard<std::mutex> hold(thief_);
    int* p = nullptr;
    return deque_.try_steal(p) ? std::optional<long>(index_of(p)) : std::nullopt;
  }

 private:
  template <class F>
  auto owner(F f) {
    if constexpr (OneOwner) {
      const std::lock_guard<std::mutex> hold(owner_);
      return f();
    } else {
      return f();
    }
  }
  std::mutex owner_;
  std::mutex thief_;
  xenium::chase_work_stealing_deque<int, xenium::policy::capacity<8>> deque_;
};

template <bool OneOwner>
duet::Lin<WorkDeque<OneOwner>> deque_spec() {
  using D = WorkDeque<OneOwner>;
  return duet::Lin<D>("chase_work_stealing_deque", "d")
      .op(
          "push", [](D& d, int v) { return d.push(v); }, duet::integers(0, 9))
      .op("pop", [](D& d) { return d.pop(); })
      .op("steal", [](D& d) { return d.steal(); });
}

TEST(InstrumentedXenium, ChaseLevDequeWithOneOwnerAndOneThiefPasses) {
  const duet::CheckResult r = duet::check_parallel(deque_spec<true>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedXenium, ChaseLevDequePoppedByTwoOwnersFound) {
  instrumented_test::found_on_every_seed(deque_spec<false>(), 7);
}

#else
TEST(InstrumentedXenium, Skipped) { GTEST_SKIP() << DUET_SKIP_XENIUM; }
#endif

}  // namespace
