// Relaxed specifications (a spec's next_states sees each result and says which states may
// follow): a queue whose try_pop gives up under contention passes against SpuriousEmptyQueue and
// is found against the strict Queue; a LIFO work pool is a Bag and no queue; a bag that hands an
// item out twice is found; and a register whose writes may be lost keeps the model in several
// states at once, sequentially and in the parallel search.
#include <duet/gtest.hpp>

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <duet/models/bindings.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/relaxed_queue.hpp>
#include <duet/models/sync_traits.hpp>

#include "support/emulation.hpp"

namespace {

using duet::models::FiberSync;
using duet::models::StdSync;

// try_pop takes the lock only if it is free at once: under contention it comes back empty.
template <duet::models::SyncTraits Sync>
class TryLockQueue {
 public:
  void push(int x) {
    std::lock_guard lock(m_);
    items_.push_back(x);
  }
  std::optional<int> try_pop() {
    if (!m_.try_lock()) return std::nullopt;
    std::optional<int> x;
    if (!items_.empty()) {
      x = items_.front();
      items_.pop_front();
    }
    m_.unlock();
    return x;
  }

 private:
  typename Sync::mutex m_;
  std::deque<int> items_;
};

template <duet::models::SyncTraits Sync>
struct TryLockBinding {
  using Sut = TryLockQueue<Sync>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

TEST(Relaxed, TryLockQueuePassesAgainstTheSpuriousEmptyModelOnThreadsAndFibers) {
  const duet::CheckResult threads =
      duet::check_parallel<duet::models::SpuriousEmptyQueue<TryLockBinding<StdSync>>>({}, {.seed = 1, .count = 2000});
  EXPECT_TRUE(threads) << threads.report;
  for (auto schedule : {duet::random(), duet::pct(3), duet::exhaustive(2)}) {
    const duet::CheckResult fibers = duet::check_parallel<duet::models::SpuriousEmptyQueue<TryLockBinding<FiberSync>>>(
        {.executor = duet::fibers(schedule)}, {.seed = 1, .count = 300});
    EXPECT_TRUE(fibers) << fibers.report;
  }
}

TEST(Relaxed, TryLockQueueIsFoundAgainstTheStrictQueue) {
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Queue<TryLockBinding<FiberSync>>>(
      {.executor = duet::fibers(duet::pct(3))}, {.seed = 1, .count = 5000});
  ASSERT_TRUE(r) << r.report;
  EXPECT_NE(r.report.find("q.try_pop() : std::nullopt"), std::string::npos) << r.report;
}

// A strict FIFO queue is also a spurious-empty queue (the relaxation allows, never requires).
TEST(Relaxed, AStrictQueueSatisfiesTheRelaxedModels) {
  EXPECT_TRUE(
      duet::check_sequential<duet::models::SpuriousEmptyQueue<duet::models::MutexQueue>>({.seed = 1, .count = 2000}));
  EXPECT_TRUE(duet::check_sequential<duet::models::Bag<duet::models::MutexQueue>>({.seed = 1, .count = 2000}));
}

// A work pool that hands out the newest item first: a bag, not a queue.
struct LifoPool {
  std::mutex m;
  std::vector<int> items;
};
struct LifoBinding {
  using Sut = LifoPool;
  static void push(Sut& p, int x) {
    std::lock_guard lock(p.m);
    p.items.push_back(x);
  }
  static std::optional<int> try_pop(Sut& p) {
    std::lock_guard lock(p.m);
    if (p.items.empty()) return std::nullopt;
    const int x = p.items.back();
    p.items.pop_back();
    return x;
  }
};

TEST(Relaxed, ALifoPoolIsABagAndNotAQueue) {
  EXPECT_TRUE(duet::check_sequential<duet::models::Bag<LifoBinding>>({.seed = 1, .count = 2000}));
  const duet::CheckResult threads = duet::check_parallel<duet::models::Bag<LifoBinding>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads({.seed = 1, .count = 2000}));
  EXPECT_TRUE(threads) << threads.report;
  const duet::CheckResult queue = duet::check_sequential<duet::models::Queue<LifoBinding>>({.seed = 1, .count = 2000});
  EXPECT_EQ(queue.status, duet::CheckResult::Status::failed) << queue.report;
}

// Hands out the newest item but removes the oldest: an item comes out twice.
struct DuplicatingBinding : LifoBinding {
  static std::optional<int> try_pop(Sut& p) {
    std::lock_guard lock(p.m);
    if (p.items.empty()) return std::nullopt;
    const int x = p.items.back();
    p.items.erase(p.items.begin());
    return x;
  }
};

TEST(Relaxed, ABagThatHandsAnItemOutTwiceIsFound) {
  const duet::CheckResult r = duet::check_sequential<duet::models::Bag<DuplicatingBinding>>({.seed = 1, .count = 5000});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("the model allows no state after that from its state"), std::string::npos) << r.report;
}

// A register whose writes may be lost (a cache that drops some): after a write the model is in
// two states (written or not), and a read keeps those that show the value read.
struct LossyWrite {
  int value;
};
struct LossyRead {};
std::string duet_show(const LossyWrite& w) { return "write(" + duet::show(w.value) + ")"; }
std::string duet_show(const LossyRead&) { return "read()"; }

template <class Register>
struct LossyRegisterSpec {
  using Sut = Register;
  using State = int;
  using Cmd = std::variant<LossyWrite, LossyRead>;
  static constexpr const char* sut_name = "r";
  static duet::Gen<Cmd> command(const State&) {
    static const duet::Gen<Cmd> gen =
        duet::one_of(duet::construct<LossyWrite>(duet::integers(1, 5)).map([](LossyWrite w) { return Cmd(w); }),
                     duet::just(Cmd(LossyRead{})));
    return gen;
  }
  static duet::Result run(const Cmd& c, Sut& r) {
    if (auto* w = std::get_if<LossyWrite>(&c)) {
      r.write(w->value);
      return {};
    }
    return r.read();
  }
  static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& got) {
    if (auto* w = std::get_if<LossyWrite>(&c)) return {s, w->value};
    if (got == duet::Result(s)) return {s};
    return {};
  }
};

// Keeps every second write.
struct HalfWrites {
  std::atomic<int> value{0};
  std::atomic<int> writes{0};
  void write(int v) {
    if (writes.fetch_add(1) % 2 == 0) value.store(v);
  }
  int read() { return value.load(); }
};
// Reads a value never written.
struct Inventing : HalfWrites {
  int read() { return writes.load() > 2 ? 7 : value.load(); }
};

TEST(Relaxed, SeveralStatesAtOnceSequentiallyAndUnderThreads) {
  EXPECT_TRUE(duet::check_sequential<LossyRegisterSpec<HalfWrites>>({.seed = 1, .count = 3000}));
  const duet::CheckResult threads = duet::check_parallel<LossyRegisterSpec<HalfWrites>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads({.seed = 1, .count = 2000}));
  EXPECT_TRUE(threads) << threads.report;
  const duet::CheckResult invented = duet::check_sequential<LossyRegisterSpec<Inventing>>({.seed = 1, .count = 3000});
  ASSERT_EQ(invented.status, duet::CheckResult::Status::failed) << invented.report;
  EXPECT_NE(invented.report.find("candidate returned 7; the model allows no state after that from any of its"),
            std::string::npos)
      << invented.report;
}

// A relaxed model whose next_states throws: an error of the check naming it, sequentially and in
// the parallel search, never a pass and never a crash.
struct ThrowingModelSpec : LossyRegisterSpec<HalfWrites> {
  static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& got) {
    if (std::holds_alternative<LossyRead>(c)) throw std::runtime_error("model bug");
    return LossyRegisterSpec<HalfWrites>::next_states(c, s, got);
  }
};

TEST(Relaxed, ANextStatesThatThrowsIsAnErrorOfTheCheck) {
  const duet::CheckResult seq = duet::check_sequential<ThrowingModelSpec>({.seed = 1, .count = 100});
  EXPECT_NE(seq.status, duet::CheckResult::Status::passed) << seq.report;
  EXPECT_NE(seq.report.find("next_states()"), std::string::npos) << seq.report;
  const duet::CheckResult par =
      duet::check_parallel<ThrowingModelSpec>({.executor = duet::fibers()}, {.seed = 1, .count = 100});
  EXPECT_NE(par.status, duet::CheckResult::Status::passed) << par.report;
  EXPECT_NE(par.report.find("model bug"), std::string::npos) << par.report;
}

}  // namespace
