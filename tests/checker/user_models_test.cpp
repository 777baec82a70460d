// Models of a user's own (duet/history_model.hpp): the four in docs/examples/history_models.hpp
// on crafted histories with known verdicts, partitioned and not, through check_history and
// through cli_main; a nondeterministic model; errors that name the file and line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <duet/history.hpp>
#include <duet/history_model.hpp>

#include "history_models.hpp"

namespace {

using namespace duet::history;

const Models& models() {
  static const Models m = history_models::all();
  return m;
}

CheckReport check(const std::string& text, const std::string& model, bool partition = true,
                  std::optional<Value> init = std::nullopt) {
  const History h = parse_history(text, Format::automatic, "crafted");
  CheckOptions options;
  options.model = model;
  options.models = &models();
  options.partition = partition;
  options.init = std::move(init);
  return check_history(h, options);
}

std::string duet_file(const std::vector<std::string>& ops) {
  std::string s = ";duet-history 1\n";
  for (const std::string& op : ops) s += op + "\n";
  return s;
}

// A lock held by 1 and then by 2 after 1 released it; a second lock used alongside.
const std::string kLockOk = duet_file({
    "{:process 1, :invoke 0, :complete 10, :type :ok, :f :acquire, :key \"a\"}",
    "{:process 2, :invoke 5, :complete 12, :type :fail, :f :acquire, :key \"a\"}",
    "{:process 3, :invoke 6, :complete 8, :type :ok, :f :acquire, :key \"b\"}",
    "{:process 1, :invoke 20, :complete 30, :type :ok, :f :release, :key \"a\"}",
    "{:process 2, :invoke 25, :complete 40, :type :ok, :f :acquire, :key \"a\"}",
});
// 2 got lock a while 1 held it: 1's acquire returned before 2's began, and 1 never released.
const std::string kLockBad = duet_file({
    "{:process 1, :invoke 0, :complete 10, :type :ok, :f :acquire, :key \"a\"}",
    "{:process 3, :invoke 1, :complete 3, :type :ok, :f :acquire, :key \"b\"}",
    "{:process 2, :invoke 20, :complete 30, :type :ok, :f :acquire, :key \"a\"}",
});

TEST(UserModels, LockVerdictsPartitionedAndWhole) {
  for (bool partition : {true, false}) {
    SCOPED_TRACE(partition ? "partitioned" : "whole");
    const CheckReport ok = check(kLockOk, "lock", partition);
    EXPECT_EQ(ok.verdict, Verdict::linearizable) << ok.explanation;
    EXPECT_EQ(ok.partitions, partition ? 2u : 1u);
    EXPECT_EQ(ok.initial_state, "every lock starts free (use --init to change)");
    const CheckReport bad = check(kLockBad, "lock", partition);
    EXPECT_EQ(bad.verdict, Verdict::not_linearizable);
    ASSERT_TRUE(bad.stuck.has_value());
    EXPECT_EQ(*bad.stuck, 2u);  // the second acquire of a
    EXPECT_NE(bad.stuck_state.find("a held by 1"), std::string::npos) << bad.stuck_state;
  }
}

TEST(UserModels, FailedAcquireNeedsTheLockHeld) {
  // A :fail acquire on a lock nobody holds at any point it could take effect.
  const std::string h = duet_file({
      "{:process 1, :invoke 0, :complete 10, :type :fail, :f :acquire, :key \"a\"}",
  });
  EXPECT_EQ(check(h, "lock").verdict, Verdict::not_linearizable);
}

TEST(UserModels, FifoQueueWithTimedOutDequeue) {
  // enqueue 1, enqueue 2, a dequeue that timed out, then dequeue -> 2: the timed-out one must
  // have taken 1.
  const std::string ok = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :enqueue, :input 1}",
      "{:process 0, :invoke 2, :complete 3, :type :ok, :f :enqueue, :input 2}",
      "{:process 1, :invoke 4, :type :info, :f :dequeue}",
      "{:process 2, :invoke 10, :complete 11, :type :ok, :f :dequeue, :value 2}",
  });
  EXPECT_EQ(check(ok, "fifo").verdict, Verdict::linearizable);
  // Without the timed-out dequeue, 2 cannot come out first.
  const std::string bad = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :enqueue, :input 1}",
      "{:process 0, :invoke 2, :complete 3, :type :ok, :f :enqueue, :input 2}",
      "{:process 2, :invoke 10, :complete 11, :type :ok, :f :dequeue, :value 2}",
  });
  EXPECT_EQ(check(bad, "fifo").verdict, Verdict::not_linearizable);
}

TEST(UserModels, NondeterministicBagFollowsEveryState) {
  // put 1, put 2; a take that timed out; take -> 1; take -> nil. Only the world where the
  // timed-out take removed 2 explains it: a deterministic guess (say, the smallest) would
  // call this a violation.
  const std::string ok = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :put, :input 1}",
      "{:process 0, :invoke 2, :complete 3, :type :ok, :f :put, :input 2}",
      "{:process 1, :invoke 4, :type :info, :f :take}",
      "{:process 2, :invoke 10, :complete 11, :type :ok, :f :take, :value 1}",
      "{:process 2, :invoke 12, :complete 13, :type :ok, :f :take, :value nil}",
  });
  const CheckReport r = check(ok, "bag");
  EXPECT_EQ(r.verdict, Verdict::linearizable) << r.explanation;
  // take -> 2 after only 1 was put.
  const std::string bad = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :put, :input 1}",
      "{:process 1, :invoke 2, :type :info, :f :take}",
      "{:process 2, :invoke 10, :complete 11, :type :ok, :f :take, :value 2}",
  });
  const CheckReport b = check(bad, "bag");
  EXPECT_EQ(b.verdict, Verdict::not_linearizable);
  // The states along the way print as the model prints them; a set of states as "one of".
  const std::string wide = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :put, :input 1}",
      "{:process 0, :invoke 2, :complete 3, :type :ok, :f :put, :input 2}",
      "{:process 1, :invoke 4, :type :info, :f :take}",
      "{:process 2, :invoke 10, :complete 11, :type :ok, :f :take, :value 3}",
  });
  const CheckReport w = check(wide, "bag");
  EXPECT_EQ(w.verdict, Verdict::not_linearizable);
  EXPECT_NE(w.stuck_state.find("one of {"), std::string::npos) << w.stuck_state;
}

// A nondeterministic register: "pick" sets 1 or 2; reads are declared read-only. For such a
// model a read narrows the states it may be in, so the search must not place it early as it does
// reads of a deterministic model: pick, cas 2 -> 1, read 1 is a linearization.
struct PickRegister {
  using State = int;
  State init() const { return 0; }
  void step(const State& s, const Operation& op, std::vector<State>& next) const {
    if (op.f == "pick") {
      next.push_back(1);
      next.push_back(2);
    } else if (op.f == "cas") {
      if (s == op.input.items.at(0).number) next.push_back(static_cast<int>(op.input.items.at(1).number));
    } else if (op.outcome != Outcome::ok || s == op.output.number) {
      next.push_back(s);
    }
  }
  bool read_only(const Operation& op) const { return op.f == "read"; }
};

TEST(UserModels, NondeterministicReadsAreNotPlacedEarly) {
  Models mine;
  mine.add("pick", "a register a pick sets to 1 or 2", PickRegister{});
  const History h = parse_history(duet_file({
                                      "{:process 0, :invoke 0, :complete 10, :type :ok, :f :pick}",
                                      "{:process 1, :invoke 20, :complete 40, :type :ok, :f :cas, :input [2 1]}",
                                      "{:process 2, :invoke 20, :complete 40, :type :ok, :f :read, :value 1}",
                                  }),
                                  Format::automatic, "crafted");
  CheckOptions options;
  options.model = "pick";
  options.models = &mine;
  const CheckReport r = check_history(h, options);
  EXPECT_EQ(r.verdict, Verdict::linearizable) << r.explanation;
}

TEST(UserModels, GrowOnlySetFromEdn) {
  const std::string ok = "[{:process 0, :type :invoke, :f :add, :value 1}\n"
                         " {:process 1, :type :invoke, :f :read, :value nil}\n"
                         " {:process 0, :type :ok, :f :add, :value 1}\n"
                         " {:process 1, :type :ok, :f :read, :value []}\n"
                         " {:process 1, :type :invoke, :f :read, :value nil}\n"
                         " {:process 1, :type :ok, :f :read, :value [1]}]\n";
  EXPECT_EQ(check(ok, "gset").verdict, Verdict::linearizable);
  const std::string bad = "[{:process 0, :type :invoke, :f :add, :value 1}\n"
                          " {:process 0, :type :ok, :f :add, :value 1}\n"
                          " {:process 1, :type :invoke, :f :read, :value nil}\n"
                          " {:process 1, :type :ok, :f :read, :value []}]\n";
  EXPECT_EQ(check(bad, "gset").verdict, Verdict::not_linearizable);
}

TEST(UserModels, BadOperationsAndInitAreClearErrors) {
  const std::string h = duet_file({
      "{:process 0, :invoke 0, :complete 1, :type :ok, :f :add, :input \"x\"}",
  });
  try {
    (void)check(h, "gset");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 34), "crafted:2: add takes an integer (p") << e.what();
  }
  try {
    (void)check(kLockOk, "lock", true, Value::integer(1));
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "the model lock takes no initial value (--init)");
  }
  // An unknown model lists the user's models too.
  try {
    (void)check(kLockOk, "locks");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: lock, fifo, bag, gset, cas-register"), std::string::npos) << e.what();
  }
}

TEST(UserModels, AModelOfTheSameNameReplacesDuets) {
  Models mine;
  mine.add("queue", "a FIFO queue of integers", history_models::FifoQueue{});
  const History h = parse_history(duet_file({"{:process 0, :invoke 0, :complete 1, :type :ok, :f :dequeue, :value nil}"}),
                                  Format::duet, "x");
  CheckOptions options;
  options.model = "queue";
  options.models = &mine;
  const CheckReport r = check_history(h, options);
  EXPECT_EQ(r.verdict, Verdict::linearizable);
  // The user's model, whose state duet::show prints.
  EXPECT_EQ(r.initial_state, "the state starts as std::vector<long>{} (use --init to change)");
}

TEST(UserModels, CliMainWithUserModels) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "duet_user_models_cli";
  std::filesystem::create_directories(dir);
  const std::string ok = (dir / "lock-ok.duet").string(), bad = (dir / "lock-bad.duet").string();
  std::ofstream(ok) << kLockOk;
  std::ofstream(bad) << kLockBad;
  auto run = [&](std::vector<std::string> args, std::string& out) {
    std::vector<char*> argv;
    std::string name = "lock-check";
    argv.push_back(name.data());
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    testing::internal::CaptureStdout();
    const int status = cli_main(static_cast<int>(argv.size() - 1), argv.data(), models());
    out = testing::internal::GetCapturedStdout();
    return status;
  };
  std::string out;
  EXPECT_EQ(run({"--model", "lock", ok}, out), 0) << out;
  EXPECT_NE(out.find("\tlinearizable\t"), std::string::npos) << out;
  EXPECT_NE(out.find("assuming every lock starts free"), std::string::npos) << out;
  EXPECT_EQ(run({"--model", "lock", ok, bad}, out), 1) << out;
  EXPECT_NE(out.find("lock-bad.duet\tnot-linearizable"), std::string::npos) << out;
  EXPECT_NE(out.find("in state: a held by 1"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
