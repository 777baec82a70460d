// Initial states: --init / CheckOptions::init for every model, the formats' defaults, and the
// report saying which initial state it assumed.
#include <gtest/gtest.h>

#include <string>

#include <duet/history.hpp>

namespace {

using namespace duet::history;

CheckReport check(const std::string& text, std::optional<Value> init = std::nullopt, const std::string& model = "") {
  const History h = parse_history(text, Format::automatic, "crafted");
  CheckOptions options;
  options.init = std::move(init);
  options.model = model;
  return check_history(h, options);
}

// Jepsen log: a read that returns 0 with nothing written.
const std::string kReadsZero = "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
                               "INFO  jepsen.util - 0\t:ok\t:read\t0\n";
// ... and one that returns nil (the empty register) after a write of 0 that may come after it.
const std::string kReadsNil = "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
                              "INFO  jepsen.util - 0\t:ok\t:read\tnil\n"
                              "INFO  jepsen.util - 1\t:invoke\t:write\t0\n"
                              "INFO  jepsen.util - 1\t:ok\t:write\t0\n";

TEST(CheckerInit, RegisterFromZeroAndFromNil) {
  const CheckReport from_nil = check(kReadsZero);
  EXPECT_EQ(from_nil.verdict, Verdict::not_linearizable);
  EXPECT_EQ(from_nil.initial_state, "the register starts empty (nil) (use --init to change)");
  EXPECT_NE(from_nil.explanation.find("assuming the register starts empty (nil)"), std::string::npos)
      << from_nil.explanation;
  const CheckReport from_zero = check(kReadsZero, Value::integer(0));
  EXPECT_EQ(from_zero.verdict, Verdict::linearizable);
  EXPECT_EQ(from_zero.initial_state, "the register starts at 0 (--init)");
  // And the reverse.
  EXPECT_EQ(check(kReadsNil).verdict, Verdict::linearizable);
  EXPECT_EQ(check(kReadsNil, Value::integer(0)).verdict, Verdict::not_linearizable);
  EXPECT_EQ(check(kReadsNil, Value::nil()).verdict, Verdict::linearizable);
  // cas-register-0 is cas-register with --init 0.
  EXPECT_EQ(check(kReadsZero, std::nullopt, "cas-register-0").verdict, Verdict::linearizable);
}

TEST(CheckerInit, EdnRegistersStartAtZeroAndSaySo) {
  const std::string edn = "[{:process 0, :type :invoke, :f :read, :value nil}\n"
                          " {:process 0, :type :ok, :f :read, :value 0}]\n";
  const CheckReport r = check(edn);
  EXPECT_EQ(r.verdict, Verdict::linearizable);
  EXPECT_EQ(r.initial_state, "the register starts at 0 (the edn format's default; use --init to change)");
  EXPECT_EQ(check(edn, Value::integer(5)).verdict, Verdict::not_linearizable);
  // Knossos: a read of nil tells nothing, whatever the register holds.
  const std::string nil_read = "[{:process 0, :type :invoke, :f :write, :value 3}\n"
                               " {:process 0, :type :ok, :f :write, :value 3}\n"
                               " {:process 0, :type :invoke, :f :read, :value nil}\n"
                               " {:process 0, :type :ok, :f :read, :value nil}]\n";
  EXPECT_EQ(check(nil_read).verdict, Verdict::linearizable);
  // The format's default holds for the model it names, not for another one given.
  const std::string counter = "[{:process 0, :type :invoke, :f :read, :value nil}\n"
                              " {:process 0, :type :ok, :f :read, :value 0}]\n";
  EXPECT_EQ(check(counter, std::nullopt, "counter").initial_state, "the counter starts at 0 (use --init to change)");
}

TEST(CheckerInit, MultiRegisterFromAValueOrAMap) {
  // Knossos multi-register: a transaction reads x = 0 and y = 1 before anything is written.
  const std::string edn = "[{:process 0, :type :invoke, :f :txn, :value [[:r :x nil] [:r :y nil]]}\n"
                          " {:process 0, :type :ok, :f :txn, :value [[:r :x 0] [:r :y 1]]}]\n";
  const CheckReport nil = check(edn);
  EXPECT_EQ(nil.verdict, Verdict::not_linearizable);
  EXPECT_EQ(nil.initial_state, "every register starts at nil (use --init to change)");
  EXPECT_EQ(check(edn, Value::integer(0)).verdict, Verdict::not_linearizable);  // y is not 0
  const History h = parse_history(edn, Format::automatic, "crafted");
  Value map;
  map.kind = Value::Kind::map;
  map.items = {Value::keyword("x"), Value::integer(0), Value::keyword("y"), Value::integer(1)};
  const CheckReport given = check(edn, map);
  EXPECT_EQ(given.verdict, Verdict::linearizable) << given.explanation;
  EXPECT_EQ(given.initial_state, "registers start as --init gives (2), the others at nil (--init)");
}

TEST(CheckerInit, KvQueueSetAndCounter) {
  const std::string kv = "{:process 0, :type :invoke, :f :get, :key \"k\", :value nil}\n"
                         "{:process 0, :type :ok, :f :get, :key \"k\", :value \"v\"}\n";
  EXPECT_EQ(check(kv).verdict, Verdict::not_linearizable);
  Value init;
  init.kind = Value::Kind::map;
  init.items = {Value::string("k"), Value::string("v")};
  EXPECT_EQ(check(kv, init).verdict, Verdict::linearizable);

  const std::string queue = ";duet-history 1\n;model queue\n"
                            "{:process 0, :invoke 0, :complete 1, :type :ok, :f :dequeue, :value 7}\n";
  EXPECT_EQ(check(queue).verdict, Verdict::not_linearizable);
  EXPECT_EQ(check(queue, Value::vector({Value::integer(7), Value::integer(8)})).verdict, Verdict::linearizable);
  EXPECT_EQ(check(queue, Value::vector({Value::integer(8), Value::integer(7)})).verdict, Verdict::not_linearizable);

  const std::string set = ";duet-history 1\n;model set\n"
                          "{:process 0, :invoke 0, :complete 1, :type :ok, :f :contains, :input 3, :value true}\n";
  EXPECT_EQ(check(set).verdict, Verdict::not_linearizable);
  EXPECT_EQ(check(set, Value::vector({Value::integer(3)})).verdict, Verdict::linearizable);

  const std::string counter = ";duet-history 1\n;model counter\n"
                              "{:process 0, :invoke 0, :complete 1, :type :ok, :f :read, :value 10}\n";
  EXPECT_EQ(check(counter).verdict, Verdict::not_linearizable);
  EXPECT_EQ(check(counter, Value::integer(10)).verdict, Verdict::linearizable);
}

TEST(CheckerInit, TheDuetFormatCarriesItsInitialState) {
  const std::string text = ";duet-history 1\n;model counter\n;init 10\n"
                           "{:process 0, :invoke 0, :complete 1, :type :ok, :f :read, :value 10}\n";
  const History h = parse_history(text, Format::automatic, "crafted");
  ASSERT_TRUE(h.default_init.has_value());
  EXPECT_EQ(*h.default_init, Value::integer(10));
  const CheckReport r = check_history(h);
  EXPECT_EQ(r.verdict, Verdict::linearizable);
  EXPECT_EQ(r.initial_state, "the counter starts at 10 (the file's ;init line; use --init to change)");
  // Written back as read.
  EXPECT_EQ(parse_history(write_duet_history(h), Format::duet, "again").default_init, h.default_init);
}

TEST(CheckerInit, InitThatDoesNotFitIsAClearError) {
  auto message = [](const std::string& text, Value init) {
    try {
      (void)check(text, std::move(init));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message(kReadsZero, Value::string("x")), "--init for cas-register must be an integer or nil, not \"x\"");
  const std::string counter = ";duet-history 1\n;model counter\n{:process 0, :invoke 0, :complete 1, :type :ok, :f :inc}\n";
  EXPECT_EQ(message(counter, Value::vector({})), "--init for counter must be an integer, not []");
  const std::string queue = ";duet-history 1\n;model queue\n{:process 0, :invoke 0, :complete 1, :type :ok, :f :dequeue}\n";
  EXPECT_EQ(message(queue, Value::integer(1)), "--init for queue must be a vector of elements, not 1");
  for (const char* bad : {";init\n", ";init [1\n"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_history(std::string(";duet-history 1\n") + bad, Format::duet, "x"), ParseError);
  }
}

}  // namespace
