// duet::Lin with a subject costly to make: the candidate-as-oracle search keeps the subject of
// its last replay and goes on from it, and with Lin::reset it resets one subject instead of
// making a fresh one to replay from the start. The verdicts stay those of fresh replays: a
// correct table passes, a racy one is found, and a reset that leaves state behind is caught as a
// wrong oracle only by what it changes (so the reset must be right).
#include <duet/gtest.hpp>

#include <atomic>
#include <cstdio>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::atomic<std::size_t> g_tables_made{0};

// A table with 4096 slots behind one lock; kRacy: put() checks the slot and writes it under two
// separate holds of the lock (no data race; two puts of one key may both say it was fresh).
template <bool kRacy>
class Table {
 public:
  Table() : slots_(4096) { g_tables_made.fetch_add(1); }
  bool put(int k, int v) {
    std::unique_lock lock(m_);
    const bool fresh = !slots_[index(k)].has_value();
    if constexpr (kRacy) {  // another put may come in between: both report the slot fresh
      lock.unlock();
      lock.lock();
    }
    slots_[index(k)] = v;
    return fresh;
  }
  std::optional<int> get(int k) {
    std::lock_guard lock(m_);
    return slots_[index(k)];
  }
  void clear() {
    std::lock_guard lock(m_);
    for (auto& s : slots_) s.reset();
  }

 private:
  static std::size_t index(int k) { return static_cast<std::size_t>(k) % 4096; }
  std::mutex m_;
  std::vector<std::optional<int>> slots_;
};

template <bool kRacy>
duet::Lin<Table<kRacy>> table(bool with_reset) {
  duet::Lin<Table<kRacy>> lin(kRacy ? "racy_table" : "table", "t");
  lin.op(
         "put", [](Table<kRacy>& t, int k, int v) { return t.put(k, v); }, duet::integers(0, 2), duet::integers(0, 9))
      .op(
          "get", [](Table<kRacy>& t, int k) { return t.get(k); }, duet::integers(0, 2));
  if (with_reset) lin.reset([](Table<kRacy>& t) { t.clear(); });
  return lin;
}

std::size_t tables_made_by(const duet::Lin<Table<false>>& lin, duet::CheckResult& r) {
  g_tables_made = 0;
  duet::Config config;
  config.seed = 1;
  config.count = 300;
  config.isolate = false;  // counted in this process
  r = duet::check_parallel(lin, {}, config);
  return g_tables_made.load();
}

TEST(LinReset, ACorrectTablePassesAndResetMakesFewerTables) {
  duet::CheckResult plain, reset;
  const std::size_t made_plain = tables_made_by(table<false>(false), plain);
  const std::size_t made_reset = tables_made_by(table<false>(true), reset);
  EXPECT_TRUE(plain.passed()) << plain.report;
  EXPECT_TRUE(reset.passed()) << reset.report;
  std::printf("tables made: %zu without reset, %zu with (%llu trials each)\n", made_plain, made_reset,
              static_cast<unsigned long long>(reset.trials));
  // Without a reset: a table per trial and one per search (the search goes on from the subject
  // of its last replay); replays from the start after backtracking, a few more. With one, a
  // table per program: reset for each trial and each search.
  EXPECT_LE(made_plain, 3 * plain.trials);
  EXPECT_LT(made_reset * 5, made_plain) << made_reset << " tables with reset, " << made_plain << " without";
}

TEST(LinReset, ARacyTableIsFoundWithReset) {
  const duet::CheckResult r = duet::expect_unsafe(table<true>(true), {}, {.seed = 1});
  EXPECT_TRUE(r) << r.report;
}

// A reset that throws fails the check, naming the reset (as a throwing model does): never a pass.
TEST(LinReset, AResetThatThrowsFailsTheCheckNamingIt) {
  duet::Lin<Table<false>> lin = table<false>(false);
  lin.reset([](Table<false>&) { throw std::runtime_error("reset broke"); });
  const duet::CheckResult r = duet::check_parallel(lin, {}, {.seed = 1, .count = 50});
  EXPECT_NE(r.status, duet::CheckResult::Status::passed) << r.report;
  EXPECT_NE(r.report.find("`reset`"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("reset broke"), std::string::npos) << r.report;
}

}  // namespace
