// Acceptance: every recorded history in tests/data/histories/VERDICTS.tsv gets its known
// verdict, never unknown; kv histories both partitioned per key and as one search.
#include <gtest/gtest.h>

#include <duet/history.hpp>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace duet::history;

struct Expected {
  std::string file, model, verdict;
};

std::vector<Expected> expected_verdicts() {
  std::ifstream in(std::string(DUET_HISTORIES_DIR) + "/VERDICTS.tsv");
  std::vector<Expected> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Expected e;
    std::getline(fields, e.file, '\t');
    std::getline(fields, e.model, '\t');
    std::getline(fields, e.verdict, '\t');
    if (!e.file.empty()) out.push_back(e);
  }
  return out;
}

void check_all(bool partition, const std::string& only_model) {
  const std::vector<Expected> all = expected_verdicts();
  ASSERT_GE(all.size(), 107u) << "VERDICTS.tsv not found or short";
  std::size_t checked = 0;
  for (const Expected& e : all) {
    if (!only_model.empty() && e.model != only_model) continue;
    SCOPED_TRACE(e.file);
    const History h = read_history(std::string(DUET_HISTORIES_DIR) + "/" + e.file);
    CheckOptions options;
    options.partition = partition;
    options.timeout_seconds = 60;  // generous: the whole set takes well under a second
    const CheckReport r = check_history(h, options);
    EXPECT_EQ(verdict_name(r.verdict), e.verdict) << r.explanation;
    // The default model of each format is the one the table names (cas-register-0 is the
    // register starting at 0 that Knossos' files use).
    EXPECT_EQ(r.model.substr(0, e.model.size()), e.model);
    if (r.verdict == Verdict::not_linearizable) {
      ASSERT_TRUE(r.stuck.has_value());
      EXPECT_FALSE(r.stuck_state.empty());
      EXPECT_NE(r.explanation.find("cannot be placed"), std::string::npos);
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(CheckerVerdicts, EveryRecordedHistoryPartitioned) { check_all(true, ""); }
TEST(CheckerVerdicts, KvHistoriesUnpartitioned) { check_all(false, "kv"); }

// A witness is a real linearization: every completed operation appears once, real-time order
// holds between its elements, and (for the register) replaying it by hand explains every result.
TEST(CheckerVerdicts, WitnessRespectsRealTime) {
  for (const char* file : {"etcd/etcd_002.log", "knossos/cas-register/good/memstress3-1.edn", "kv/c10-ok.txt"}) {
    SCOPED_TRACE(file);
    const History h = read_history(std::string(DUET_HISTORIES_DIR) + "/" + file);
    for (bool partition : {true, false}) {
      CheckOptions options;
      options.partition = partition;
      const CheckReport r = check_history(h, options);
      ASSERT_EQ(r.verdict, Verdict::linearizable);
      std::vector<int> seen(h.ops.size(), 0);
      for (std::size_t i : r.order) ++seen[i];
      for (std::size_t i = 0; i < h.ops.size(); ++i) {
        EXPECT_LE(seen[i], 1);
        if (h.ops[i].outcome != Outcome::info) EXPECT_EQ(seen[i], 1) << "operation " << i << " missing";
      }
      // No operation is placed after one invoked after it returned (partitioned or not: the
      // partitions' witnesses are merged into one).
      for (std::size_t a = 0; a < r.order.size(); ++a)
        for (std::size_t b = a + 1; b < r.order.size(); ++b)
          EXPECT_FALSE(h.ops[r.order[b]].response < h.ops[r.order[a]].invoke)
              << "#" << r.order[b] << " returned before #" << r.order[a] << " was invoked, yet comes after it";
      if (h.default_model == "cas-register") {  // Jepsen log semantics, replayed independently
        std::optional<std::int64_t> reg;
        for (std::size_t i : r.order) {
          const Operation& op = h.ops[i];
          const auto value = [](const Value& v) {
            return v.is_nil() ? std::optional<std::int64_t>() : std::optional(v.number);
          };
          if (op.f == "read" && op.outcome == Outcome::ok) EXPECT_EQ(reg, value(op.output)) << describe(op);
          if (op.f == "write" && op.outcome != Outcome::fail) reg = value(op.input);
          if (op.f == "cas") {
            const bool match = reg == value(op.input.items[0]);
            if (op.outcome == Outcome::ok) EXPECT_TRUE(match) << describe(op);
            if (op.outcome == Outcome::fail) EXPECT_FALSE(match) << describe(op);
            if (match && op.outcome != Outcome::fail) reg = value(op.input.items[1]);
          }
        }
      }
    }
  }
}

}  // namespace
