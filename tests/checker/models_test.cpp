// The checker's models on small crafted histories whose verdicts are clear by hand, and the
// checker's budgets, cancellation and errors.
#include <gtest/gtest.h>

#include <duet/history.hpp>
#include <string>
#include <chrono>
#include <limits>
#include <thread>

namespace {

using namespace duet::history;

Verdict verdict(const std::string& text, const std::string& model = "", bool partition = true) {
  const History h = parse_history(text, Format::automatic, "crafted");
  CheckOptions options;
  options.model = model;
  options.partition = partition;
  return check_history(h, options).verdict;
}

// Jepsen log lines: process, type, function, value.
std::string log(std::initializer_list<const char*> lines) {
  std::string s;
  for (const char* l : lines) s += std::string("INFO  jepsen.util - ") + l + "\n";
  return s;
}

TEST(CheckerModels, JepsenRegisterStartsEmptyAndFailedCasDidNotMatch) {
  EXPECT_EQ(verdict(log({"0\t:invoke\t:read\tnil", "0\t:ok\t:read\tnil"})), Verdict::linearizable);
  EXPECT_EQ(verdict(log({"0\t:invoke\t:read\tnil", "0\t:ok\t:read\t0"})), Verdict::not_linearizable);
  // A failed cas is legal only where the register does not hold the expected value.
  const char* write1[] = {"0\t:invoke\t:write\t1", "0\t:ok\t:write\t1"};
  EXPECT_EQ(verdict(log({write1[0], write1[1], "1\t:invoke\t:cas\t[1 2]", "1\t:fail\t:cas\t[1 2]"})),
            Verdict::not_linearizable);
  EXPECT_EQ(verdict(log({write1[0], write1[1], "1\t:invoke\t:cas\t[3 2]", "1\t:fail\t:cas\t[3 2]"})), Verdict::linearizable);
  // A timed-out read says nothing; a timed-out write may or may not have happened.
  EXPECT_EQ(verdict(log({write1[0], write1[1], "1\t:invoke\t:read\tnil", "1\t:fail\t:read\t:timed-out"})),
            Verdict::linearizable);
  EXPECT_EQ(verdict(log({"0\t:invoke\t:write\t5", "0\t:info\t:write\t:timed-out", "1\t:invoke\t:read\tnil",
                         "1\t:ok\t:read\t5", "2\t:invoke\t:read\tnil", "2\t:ok\t:read\t5"})),
            Verdict::linearizable);
  EXPECT_EQ(verdict(log(
                {"0\t:invoke\t:write\t5", "0\t:info\t:write\t:timed-out", "1\t:invoke\t:read\tnil", "1\t:ok\t:read\tnil"})),
            Verdict::linearizable);
  // Once seen, a pending write took effect: reading the old value later is a violation.
  EXPECT_EQ(verdict(log({"0\t:invoke\t:write\t5", "0\t:info\t:write\t:timed-out", "1\t:invoke\t:read\tnil",
                         "1\t:ok\t:read\t5", "2\t:invoke\t:read\tnil", "2\t:ok\t:read\tnil"})),
            Verdict::not_linearizable);
}

TEST(CheckerModels, KnossosRegisterStartsAtZeroAndNilReadsTellNothing) {
  EXPECT_EQ(verdict("[{:process 0, :type :invoke, :f :read, :value nil} {:process 0, :type :ok, :f :read, :value 0}]"),
            Verdict::linearizable);
  EXPECT_EQ(verdict("[{:process 0, :type :invoke, :f :read, :value nil} {:process 0, :type :ok, :f :read, :value nil}"
                    " {:process 0, :type :invoke, :f :cas, :value [0 4]} {:process 0, :type :ok, :f :cas, :value [0 4]}]"),
            Verdict::linearizable);
  // A failed operation did not happen at all.
  EXPECT_EQ(verdict("[{:process 0, :type :invoke, :f :write, :value 7} {:process 0, :type :fail, :f :write, :value 7}"
                    " {:process 1, :type :invoke, :f :read, :value nil} {:process 1, :type :ok, :f :read, :value 7}]"),
            Verdict::not_linearizable);
}

TEST(CheckerModels, MultiRegisterTransactions) {
  const std::string txn_ok = "[{:process 0, :type :invoke, :f :txn, :value [[:w 1 5] [:w 2 6]]}"
                             " {:process 0, :type :ok, :f :txn, :value [[:w 1 5] [:w 2 6]]}"
                             " {:process 1, :type :invoke, :f :txn, :value [[:r 1 nil] [:r 2 nil]]}"
                             " {:process 1, :type :ok, :f :txn, :value [[:r 1 5] [:r 2 6]]}]";
  EXPECT_EQ(verdict(txn_ok), Verdict::linearizable);
  // A torn read: half of an atomic transaction.
  const std::string torn = "[{:process 0, :type :invoke, :f :txn, :value [[:w 1 5] [:w 2 6]]}"
                           " {:process 0, :type :ok, :f :txn, :value [[:w 1 5] [:w 2 6]]}"
                           " {:process 1, :type :invoke, :f :txn, :value [[:r 1 nil] [:r 2 nil]]}"
                           " {:process 1, :type :ok, :f :txn, :value [[:r 1 5] [:r 2 nil]]}"
                           " {:process 2, :type :invoke, :f :txn, :value [[:r 2 nil]]}"
                           " {:process 2, :type :ok, :f :txn, :value [[:r 2 9]]}]";
  EXPECT_EQ(verdict(torn), Verdict::not_linearizable);
  EXPECT_EQ(parse_history(txn_ok, Format::automatic, "x").default_model, "multi-register");
}

TEST(CheckerModels, KvPartitionedAndWhole) {
  const std::string kv = "{:process 0, :type :invoke, :f :put, :key \"a\", :value \"1\"}\n"
                         "{:process 0, :type :ok, :f :put, :key \"a\", :value \"1\"}\n"
                         "{:process 1, :type :invoke, :f :append, :key \"b\", :value \"x\"}\n"
                         "{:process 1, :type :ok, :f :append, :key \"b\", :value \"x\"}\n"
                         "{:process 2, :type :invoke, :f :get, :key \"a\", :value nil}\n"
                         "{:process 2, :type :ok, :f :get, :key \"a\", :value \"1\"}\n"
                         "{:process 2, :type :invoke, :f :get, :key \"b\", :value nil}\n"
                         "{:process 2, :type :ok, :f :get, :key \"b\", :value \"\"}\n";
  for (bool partition : {true, false}) {
    EXPECT_EQ(verdict(kv, "", partition), Verdict::not_linearizable) << "stale read of b";
    std::string fixed = kv;
    fixed.replace(fixed.rfind("\"\""), 2, "\"x\"");
    EXPECT_EQ(verdict(fixed, "", partition), Verdict::linearizable);
  }
  const History h = parse_history(kv, Format::automatic, "x");
  EXPECT_EQ(check_history(h).partitions, 2u);
  CheckOptions whole;
  whole.partition = false;
  EXPECT_EQ(check_history(h, whole).partitions, 1u);
}

std::string duet_ops(const std::string& model, std::initializer_list<std::string> ops) {
  std::string s = ";duet-history 1\n;model " + model + "\n";
  std::uint64_t t = 10;
  for (const std::string& op : ops) {
    // op: "process f input output" in EDN, times spaced so that operations do not overlap.
    s += "{:process 0, :invoke " + std::to_string(t) + ", :complete " + std::to_string(t + 5) + ", :type :ok, " + op + "}\n";
    t += 10;
  }
  return s;
}

TEST(CheckerModels, QueueSetCounter) {
  EXPECT_EQ(verdict(duet_ops("queue", {":f :enqueue, :input 1", ":f :enqueue, :input 2", ":f :dequeue, :value 1",
                                       ":f :dequeue, :value 2", ":f :dequeue, :value nil"})),
            Verdict::linearizable);
  EXPECT_EQ(verdict(duet_ops("queue", {":f :enqueue, :input 1", ":f :enqueue, :input 2", ":f :dequeue, :value 2"})),
            Verdict::not_linearizable);
  EXPECT_EQ(verdict(duet_ops("set", {":f :add, :input 3", ":f :add, :input 4", ":f :remove, :input 3",
                                     ":f :contains, :input 3, :value false", ":f :read, :value [4]"})),
            Verdict::linearizable);
  EXPECT_EQ(verdict(duet_ops("set", {":f :add, :input 3", ":f :contains, :input 3, :value false"})),
            Verdict::not_linearizable);
  EXPECT_EQ(verdict(duet_ops("counter", {":f :add, :input 3", ":f :inc", ":f :read, :value 4"})), Verdict::linearizable);
  EXPECT_EQ(verdict(duet_ops("counter", {":f :add, :input 3", ":f :read, :value 4"})), Verdict::not_linearizable);
}

TEST(CheckerModels, OperationsThatDoNotFitTheModelAreErrorsWithTheirLine) {
  const History h =
      parse_history(log({"0\t:invoke\t:write\t1", "0\t:ok\t:write\t1", "1\t:invoke\t:cas\t7", "1\t:ok\t:cas\t7"}),
                    Format::automatic, "bad.log");
  try {
    (void)check_history(h);
    FAIL() << "a cas with a single value was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.log:3: cas expects [expected new], not 7", 0), 0u) << e.what();
  }
  CheckOptions kv;
  kv.model = "kv";
  EXPECT_THROW((void)check_history(h, kv), std::invalid_argument);
  CheckOptions unknown;
  unknown.model = "btree";
  try {
    (void)check_history(h, unknown);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'btree' (known: cas-register, cas-register-0, kv"),
              std::string::npos);
  }
}

// An operation the model cannot read in one partition stops the others and is reported with
// its line, never as a verdict.
TEST(CheckerModels, ModelErrorInOnePartitionIsAnError) {
  std::string kv;
  for (int i = 0; i < 20; ++i)  // a hard key, so that its part would run a long time
    kv += "{:process " + std::to_string(i) + ", :type :invoke, :f :append, :key \"hard\", :value \"" +
          std::to_string(i % 10) + ";\"}\n";
  kv += "{:process 50, :type :invoke, :f :cas, :key \"odd\", :value [1 2]}\n"
        "{:process 50, :type :ok, :f :cas, :key \"odd\", :value [1 2]}\n"
        "{:process 51, :type :invoke, :f :get, :key \"hard\", :value nil}\n"
        "{:process 51, :type :ok, :f :get, :key \"hard\", :value \"never0;\"}\n";
  for (int i = 0; i < 20; ++i)
    kv += "{:process " + std::to_string(i) + ", :type :ok, :f :append, :key \"hard\", :value \"" + std::to_string(i % 10) +
          ";\"}\n";
  const History h = parse_history(kv, Format::kv_log, "odd.txt");
  CheckOptions options;
  options.timeout_seconds = 20;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)check_history(h, options);
    FAIL() << "a cas on a kv store was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("odd.txt:21: the kv model has get, put and append, not 'cas'", 0), 0u) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << "the hard part was not stopped";
}

// Many concurrent writes, and reads no order can explain: a full search has to try a great many
// orders, which a budget stops with unknown, never a guess. Each value is written twice: with
// unique values the register's decision would settle it at once.
History hard_history(int writers) {
  History h;
  h.source = "hard";
  h.default_model = "cas-register-0";
  for (int i = 0; i < writers; ++i) {
    Operation op;
    op.process = i;
    op.f = "write";
    op.input = Value::integer(i % (writers / 2) + 1);
    op.invoke = 0;
    op.response = 1000;
    h.ops.push_back(op);
  }
  for (int i = 0; i < 3; ++i) {
    Operation read;
    read.process = 1000 + i;
    read.f = "read";
    read.output = Value::integer(i % 2 == 0 ? 1 : 2);
    read.invoke = 0;
    read.response = 1000;
    h.ops.push_back(read);
  }
  Operation last;
  last.process = 2000;
  last.f = "read";
  last.output = Value::integer(-1);  // nobody wrote it
  last.invoke = 0;
  last.response = 1000;
  h.ops.push_back(last);
  return h;
}

TEST(CheckerBudgets, TimeoutAndMemoryEndInUnknown) {
  const History h = hard_history(26);
  CheckOptions quick;
  quick.timeout_seconds = 0.05;
  const CheckReport r = check_history(h, quick);
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_NE(r.explanation.find("ran out of time"), std::string::npos) << r.explanation;
  CheckOptions small;
  small.max_memory_bytes = 1 << 20;
  const CheckReport m = check_history(h, small);
  EXPECT_EQ(m.verdict, Verdict::unknown);
  EXPECT_NE(m.explanation.find("memory budget"), std::string::npos) << m.explanation;
  EXPECT_LE(m.peak_memo_bytes, std::size_t{2} << 20);
}

TEST(CheckerBudgets, CancelFromAnotherThread) {
  const History h = hard_history(26);
  std::atomic<bool> cancel{false};
  CheckOptions options;
  options.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel.store(true);
  });
  const auto t0 = std::chrono::steady_clock::now();
  const CheckReport r = check_history(h, options);
  stopper.join();
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_NE(r.explanation.find("cancelled"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// One key's violation stops the search of the others: a hard key next to a broken one.
TEST(CheckerBudgets, FirstViolationCancelsOtherPartitions) {
  std::string kv;
  // Key "hard": 24 concurrent appends of distinct values and a get that sees none of them in
  // an impossible combination; key "bad": an immediate stale read.
  for (int i = 0; i < 24; ++i)
    kv += "{:process " + std::to_string(i) + ", :type :invoke, :f :append, :key \"hard\", :value \"" +
          std::to_string(i % 10) + ";\"}\n";
  kv += "{:process 100, :type :invoke, :f :put, :key \"bad\", :value \"1\"}\n"
        "{:process 100, :type :ok, :f :put, :key \"bad\", :value \"1\"}\n"
        "{:process 101, :type :invoke, :f :get, :key \"bad\", :value nil}\n"
        "{:process 101, :type :ok, :f :get, :key \"bad\", :value \"\"}\n"
        "{:process 102, :type :invoke, :f :get, :key \"hard\", :value nil}\n"
        "{:process 102, :type :ok, :f :get, :key \"hard\", :value \"never0;\"}\n";
  for (int i = 0; i < 24; ++i)
    kv += "{:process " + std::to_string(i) + ", :type :ok, :f :append, :key \"hard\", :value \"" + std::to_string(i % 10) +
          ";\"}\n";
  const History h = parse_history(kv, Format::kv_log, "two-keys");
  CheckOptions options;
  options.timeout_seconds = 20;  // were the cancel broken, the hard key would run this long
  const CheckReport r = check_history(h, options);
  EXPECT_EQ(r.verdict, Verdict::not_linearizable);
  EXPECT_EQ(r.partitions, 2u);
  ASSERT_TRUE(r.stuck.has_value());
  EXPECT_EQ(h.ops[*r.stuck].key->text, "bad");
  ASSERT_EQ(r.partition_ops.size(), 2u);  // the failing partition: key "bad"'s put and get
  for (std::size_t i : r.partition_ops) EXPECT_EQ(h.ops[i].key->text, "bad");
  EXPECT_LT(r.milliseconds, 5000);
}

}  // namespace

namespace {

using namespace duet::history;

// kv: `keys` keys, each with 20 concurrent appends and a get of a value no order produces.
// Each text is appended twice and the value read ends in one of them ("never0;"), so that the
// one-key decision, which needs to know which append made a value, stays out: the search has
// to try the orders. (The same in the tests above.)
std::string hard_keys(int keys) {
  std::string kv;
  int process = 0;
  for (int k = 0; k < keys; ++k) {
    const std::string key = "\"k" + std::to_string(k) + "\"";
    for (int i = 0; i < 20; ++i)
      kv += "{:process " + std::to_string(process + i) + ", :type :invoke, :f :append, :key " + key + ", :value \"" +
            std::to_string(i % 10) + ";\"}\n";
    kv += "{:process " + std::to_string(process + 20) + ", :type :invoke, :f :get, :key " + key + ", :value nil}\n";
    kv += "{:process " + std::to_string(process + 20) + ", :type :ok, :f :get, :key " + key + ", :value \"never0;\"}\n";
    for (int i = 0; i < 20; ++i)
      kv += "{:process " + std::to_string(process + i) + ", :type :ok, :f :append, :key " + key + ", :value \"" +
            std::to_string(i % 10) + ";\"}\n";
    process += 21;
  }
  return kv;
}

// One deadline for the file: sixteen hard parts on two threads must not take sixteen halves
// of the budget each.
TEST(CheckerBudgets, TimeoutCoversTheWholeFile) {
  const History h = parse_history(hard_keys(16), Format::kv_log, "hard keys");
  CheckOptions options;
  options.timeout_seconds = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  const CheckReport r = check_history(h, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_EQ(r.partitions, 16u);
  EXPECT_LT(seconds, 1.2) << "each part seems to have had its own 0.2 s";
}

TEST(CheckerBudgets, HugeTimeoutAndZeroMemoryMeanNoLimit) {
  const History h =
      parse_history("[{:process 0, :type :invoke, :f :write, :value 1} {:process 0, :type :ok, :f :write, :value 1}]",
                    Format::edn, "one write");
  for (double timeout : {1e12, std::numeric_limits<double>::infinity()}) {
    CheckOptions options;
    options.timeout_seconds = timeout;
    EXPECT_EQ(check_history(h, options).verdict, Verdict::linearizable) << timeout;
  }
  CheckOptions unlimited;
  unlimited.max_memory_bytes = 0;
  EXPECT_EQ(check_history(h, unlimited).verdict, Verdict::linearizable);
}

// Each process's two operations tie (the second invoked at the very time the first returned):
// program order then orders them, an edge between keys that per-key parts cannot see. The
// history is kept whole, and both ways agree.
TEST(CheckerModels, TiesWithinAProcessKeepTheHistoryWhole) {
  const std::string text = ";duet-history 1\n;model kv\n"
                           "{:process 0, :invoke 0, :complete 5, :type :ok, :f :get, :key \"x\", :value \"v\"}\n"
                           "{:process 0, :invoke 5, :complete 10, :type :ok, :f :put, :key \"y\", :input \"w\"}\n"
                           "{:process 1, :invoke 0, :complete 5, :type :ok, :f :get, :key \"y\", :value \"w\"}\n"
                           "{:process 1, :invoke 5, :complete 10, :type :ok, :f :put, :key \"x\", :input \"v\"}\n";
  const History h = parse_history(text, Format::automatic, "ties");
  const CheckReport parts = check_history(h);
  EXPECT_EQ(parts.verdict, Verdict::not_linearizable);
  EXPECT_EQ(parts.partitions, 1u);
  CheckOptions whole;
  whole.partition = false;
  EXPECT_EQ(check_history(h, whole).verdict, Verdict::not_linearizable);
}

TEST(CheckerBudgets, CancelAfterTheEndChangesNothing) {
  const History h =
      parse_history("[{:process 0, :type :invoke, :f :write, :value 1} {:process 0, :type :ok, :f :write, :value 1}]",
                    Format::edn, "one write");
  std::atomic<bool> cancel{true};  // set, but the search finishes before it looks
  CheckOptions options;
  options.cancel = &cancel;
  EXPECT_EQ(check_history(h, options).verdict, Verdict::linearizable);
}

}  // namespace
