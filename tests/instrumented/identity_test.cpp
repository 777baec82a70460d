// Stable identities in a fiber run: an object (an atomic, a mutex) and a pointer value are
// numbered by first use in the run and forgotten when their memory is freed, so a node allocated
// where an earlier one was freed is a new object with a new number whether or not malloc reused
// the address; and duet's own handling of a duet::Api value (copying a handle in, destroying it)
// is no step of the subject's schedule.
#include <duet/api.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "instrumented/checks.hpp"

namespace {

namespace fb = duet::detail::fiber;

struct Node {
  std::atomic<int> value{0};
  long padding[3]{};
};

const fb::RunResult& run_one(fb::Scheduler& sched, std::function<void()> body) {
  const std::vector<std::function<void()>> branches{std::move(body)};
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  return sched.run(branches, picker);
}

// The objects of the run's atomic operations on the node's field, in trace order.
std::vector<std::uint32_t> objects_of(const std::vector<fb::TraceEvent>& trace, fb::Op op) {
  std::vector<std::uint32_t> ids;
  for (const fb::TraceEvent& e : trace)
    if (e.event.op == op && e.event.kind == fb::ObjectKind::atomic) ids.push_back(e.event.object);
  return ids;
}

TEST(InstrumentedIdentity, AnObjectAllocatedWhereAFreedOneWasIsANewObject) {
  fb::Scheduler sched;
  const void* first = nullptr;
  const void* second = nullptr;
  const fb::RunResult& r = run_one(sched, [&] {
    auto* a = new Node;
    a->value.store(1);
    first = a;
    delete a;
    auto* b = new Node;  // the allocator's cache hands the same block back
    b->value.store(2);
    second = b;
    delete b;
  });
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  if (first != second) GTEST_SKIP() << "the allocator did not reuse the freed block here";
  const std::vector<std::uint32_t> ids = objects_of(sched.trace(), fb::Op::store);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]) << "the second node kept the freed node's number";
}

TEST(InstrumentedIdentity, APointerToAFreedNodeIsForgotten) {
  fb::Scheduler sched;
  std::atomic<Node*> head{nullptr};
  const void* first = nullptr;
  const void* second = nullptr;
  const fb::RunResult& r = run_one(sched, [&] {
    auto* a = new Node;
    head.store(a);
    first = a;
    head.store(nullptr);
    delete a;
    auto* b = new Node;
    head.store(b);
    second = b;
    head.store(nullptr);
    delete b;
  });
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  if (first != second) GTEST_SKIP() << "the allocator did not reuse the freed block here";
  std::string stores;
  for (const std::string& line : fb::format_trace(sched.trace())) stores += line + "\n";
  EXPECT_NE(stores.find("p2"), std::string::npos) << "the second node's pointer kept the first's name:\n" << stores;
}

// Numbers do not depend on what earlier runs left in the allocator: the same run after a
// different allocation history prints the same trace.
TEST(InstrumentedIdentity, EqualRunsPrintEqualTracesWhateverTheAllocatorHolds) {
  fb::Scheduler sched;
  auto body = [] {
    std::atomic<Node*> head{nullptr};
    for (int i = 0; i < 4; ++i) {
      auto* n = new Node;
      n->value.store(i);
      head.store(n);
      head.store(nullptr);
      delete n;
    }
  };
  const std::vector<std::string> before = fb::format_trace(
      run_one(sched, body).outcome == fb::Outcome::completed ? sched.trace() : std::vector<fb::TraceEvent>{});
  std::vector<void*> held;
  for (int i = 0; i < 7; ++i) held.push_back(std::malloc(sizeof(Node)));  // the allocator's cache changes
  const std::vector<std::string> after = fb::format_trace(
      run_one(sched, body).outcome == fb::Outcome::completed ? sched.trace() : std::vector<fb::TraceEvent>{});
  for (void* p : held) std::free(p);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before, after);
}

// duet::Api on instrumented fibers: the handles are shared pointers; their reference counts,
// updated when duet copies a handle into a call or drops one, are duet's work, not the subject's.
namespace bank {
struct Account {
  std::atomic<long> balance{0};
};
using Handle = std::shared_ptr<Account>;
long open_ref() { return 0; }
void deposit_ref(long& b, int amount) { b += amount; }
long balance_ref(const long& b) { return b; }
Handle open() { return std::make_shared<Account>(); }
void deposit(const Handle& a, int amount) { a->balance.fetch_add(amount); }
long balance(const Handle& a) { return a->balance.load(); }

duet::Api spec() {
  duet::Api api("InstrumentedBank");
  auto account = api.abstract<long, Handle>("acct");
  api.op("open", duet::args(), account, open_ref, open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), deposit_ref, deposit);
  api.op("balance", duet::args(account), duet::value<long>(), balance_ref, balance);
  return api;
}
}  // namespace bank

TEST(InstrumentedIdentity, ApiHandlesAreNoStepsOfTheSubject) {
  fb::Scheduler sched;
  duet::detail::ErasedValue held;
  const bank::Handle h = bank::open();
  const fb::RunResult& r = run_one(sched, [&] {
    held.emplace<bank::Handle>(h);  // a copy: the count goes up
    held.reset();                   // and down
  });
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  EXPECT_TRUE(sched.trace().size() <= 2u) << fb::format_trace(sched.trace()).size() << " events, the first: "
                                          << (sched.trace().size() > 1 ? fb::format_trace(sched.trace())[1] : "");
}

TEST(InstrumentedIdentity, ApiOnFibersIsDeterministicOnEverySeed) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    duet::Config config = instrumented_test::seeded(seed, 300);
    config.verbose = -1;
    const duet::CheckResult r = bank::spec().check_parallel(instrumented_test::on_fibers(), config);
    EXPECT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
  }
}

}  // namespace
