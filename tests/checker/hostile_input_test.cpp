// Hostile input: a huge value is quoted briefly in every message, numbers read exactly as the
// formats define them, a deadline stops reading and parsing, and every error about the input
// names its file and line.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include <duet/history.hpp>

#include "support/emulation.hpp"

namespace {
using namespace duet::history;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The message check_history throws for a history its model cannot read ("" if none).
std::string check_error(const History& h, const CheckOptions& options = {}) {
  try {
    (void)check_history(h, options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The whole ParseError message, "file:line: what" ("" if it parses).
std::string parse_error(const std::string& text, Format format = Format::automatic, const std::string& source = "t") {
  try {
    (void)parse_history(text, format, source);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

std::string jepsen(std::initializer_list<std::string> lines) {
  std::string s;
  for (const std::string& l : lines) s += "INFO  jepsen.util - " + l + "\n";
  return s;
}

std::string known_models() {
  std::string names;
  for (const std::string& n : model_names()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---- 1. bounded quotes ----

TEST(HostileInput, HugeValueInAModelErrorIsQuotedBriefly) {
  const std::string x(10'000'000, 'x');
  const History h = parse_history(jepsen({"0\t:invoke\t:write\t\"" + x + "\"", "0\t:ok\t:write\t\"" + x + "\""}),
                                  Format::automatic, "big.log");
  auto t0 = Clock::now();
  const std::string e = check_error(h);
  EXPECT_LT(seconds_since(t0), 1.0 * duet_test::time_scale());
  EXPECT_LT(e.size(), 1024u) << e.substr(0, 2000);
  EXPECT_EQ(e.rfind("big.log:1: the value written must be an integer or nil, not \"" + std::string(199, 'x') +
                        "... (10000002 bytes) (process 0: write \"",
                    0),
            0u)
      << e.substr(0, 2000);

  // A million-element vector where a counter wants an integer, and a 10 MB function name.
  std::string items;
  for (int i = 0; i < 1'000'000; ++i) items += "1 ";
  const History v =
      parse_history(";duet-history 1\n;model counter\n{:process 0, :invoke 1, :complete 2, :type :ok, :f :add, "
                    ":input [" +
                        items + "]}\n",
                    Format::automatic, "v.duet");
  t0 = Clock::now();
  const std::string ev = check_error(v);
  EXPECT_LT(seconds_since(t0), 1.0 * duet_test::time_scale());
  EXPECT_LT(ev.size(), 1024u);
  EXPECT_EQ(ev.rfind("v.duet:3: add needs an integer, not [1 1 1", 0), 0u) << ev.substr(0, 300);
  EXPECT_NE(ev.find("... (2000001 bytes)"), std::string::npos) << ev.substr(0, 600);

  const History f = parse_history(
      ";duet-history 1\n;model kv\n{:process 0, :invoke 1, :complete 2, :type :ok, :f :" + x + ", :key \"k\"}\n",
      Format::automatic, "f.duet");
  const std::string ef = check_error(f);
  EXPECT_LT(ef.size(), 1024u);
  EXPECT_EQ(
      ef.rfind("f.duet:3: the kv model has get, put and append, not '" + std::string(200, 'x') + "... (10000000 bytes)'", 0),
      0u)
      << ef.substr(0, 600);
}

TEST(HostileInput, HugeInputInAParseErrorIsQuotedBriefly) {
  const std::string x(10'000'000, 'x');
  // A completion whose function does not match its invocation's: both names are quoted.
  std::string e = parse_error("{:process 0, :type :invoke, :f :" + x + "}\n{:process 0, :type :ok, :f :" + x + "y}\n");
  EXPECT_LT(e.size(), 1024u) << e.substr(0, 600);
  EXPECT_EQ(e, "t:2: `:ok :" + std::string(200, 'x') +
                   "... (10000001 bytes)` for process 0 does not match its pending `:invoke :" + std::string(200, 'x') +
                   "... (10000000 bytes)` from line 1");
  // A value in the wrong place.
  const auto t0 = Clock::now();
  e = parse_error(";duet-history 1\n{:process \"" + x + "\", :invoke 1, :complete 2, :type :ok, :f :read}\n");
  EXPECT_LT(seconds_since(t0), 1.0 * duet_test::time_scale());
  EXPECT_EQ(e, "t:2: :process must be an integer, found `\"" + std::string(59, 'x') + "... (10000002 bytes)`");
  // A huge model name in the header.
  const History h = parse_history(";duet-history 1\n;model " + x + "\n", Format::automatic, "m.duet");
  const std::string em = check_error(h);
  EXPECT_LT(em.size(), 1024u);
  EXPECT_EQ(em, "m.duet:2: unknown model '" + std::string(200, 'x') +
                    "... (10000000 bytes)' in the `;model` line (known: " + known_models() + ")");
}

// ---- 2. a deadline for reading and parsing ----

std::string kv_lines(int operations) {
  std::string kv;
  for (int i = 0; i < operations; ++i) {
    kv += "{:process 0, :type :invoke, :f :put, :key \"k\", :value \"" + std::to_string(i) + "\"}\n";
    kv += "{:process 0, :type :ok, :f :put, :key \"k\", :value \"" + std::to_string(i) + "\"}\n";
  }
  return kv;
}

TEST(HostileInput, DeadlineStopsParsingAndReading) {
  const std::string text = kv_lines(5000);
  const auto past = Clock::now() - std::chrono::seconds(1);
  try {
    (void)parse_history(text, Format::automatic, "big.txt", past);
    ADD_FAILURE() << "parsed past its deadline";
  } catch (const TimeBudgetExceeded& e) {
    const std::string prefix =
        "the time budget ran out while parsing the file (" + std::to_string(text.size()) + " bytes read, stopped at line ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
  // Every format checks it.
  for (Format f : {Format::kv_log, Format::edn, Format::jepsen_log, Format::duet}) {
    std::string other;
    for (int i = 0; i < 3000; ++i) {
      if (f == Format::edn)
        other += (i == 0 ? "[" : "") + std::string("{:process ") + std::to_string(i) + ", :type :invoke, :f :read}\n";
      if (f == Format::jepsen_log) other += "INFO  jepsen.util - " + std::to_string(i) + "\t:invoke\t:read\tnil\n";
      if (f == Format::duet) other += i == 0 ? ";duet-history 1\n" : "{:process 0, :invoke 1, :type :info, :f :read}\n";
    }
    if (f == Format::kv_log) other = text;
    EXPECT_THROW((void)parse_history(other, f, "x", past), TimeBudgetExceeded) << format_name(f);
  }
  // A deadline in the future changes nothing.
  EXPECT_EQ(parse_history(text, Format::automatic, "big.txt", Clock::now() + std::chrono::hours(1)).ops.size(), 5000u);

  const std::string path = testing::TempDir() + "duet_hostile_deadline.txt";
  std::ofstream(path) << text;
  try {
    (void)read_history(path, Format::automatic, past);
    ADD_FAILURE() << "read past its deadline";
  } catch (const TimeBudgetExceeded& e) {
    EXPECT_STREQ(e.what(), "the time budget ran out while reading the file (0 bytes read)");
  }
  EXPECT_EQ(read_history(path, Format::automatic, Clock::now() + std::chrono::hours(1)).ops.size(), 5000u);
}

// ---- 3. a bound on the input's size, and a deadline for inputs that are not files ----

// The whole ParseError message of reading `path` ("" if it reads).
std::string read_error(const std::string& path, const ReadLimits& limits) {
  try {
    (void)read_history(path, Format::automatic, kNoDeadline, limits);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(HostileInput, InputLargerThanTheLimitIsRefused) {
  EXPECT_EQ(ReadLimits{}.max_bytes, std::size_t{512} << 20);
  ReadLimits one_mib;
  one_mib.max_bytes = std::size_t{1} << 20;
  const std::string refused =
      ":0: the input is larger than 1 MiB, the limit for one history (raise it with --max-input MIB, or "
      "ReadLimits::max_bytes)";
  // A regular file: refused by its size, before it is read.
  const std::string path = testing::TempDir() + "duet_hostile_large.txt";
  std::ofstream(path) << kv_lines(20'000);  // about 2 MB
  auto t0 = Clock::now();
  EXPECT_EQ(read_error(path, one_mib), path + refused);
  EXPECT_LT(seconds_since(t0), 1.0 * duet_test::time_scale());
  std::remove(path.c_str());
  // A device that never ends: refused once the limit is read, not grown until killed.
  t0 = Clock::now();
  EXPECT_EQ(read_error("/dev/zero", one_mib), "/dev/zero" + refused);
  EXPECT_LT(seconds_since(t0), 2.0 * duet_test::time_scale());
  // Exactly at the limit is fine.
  const std::string text = kv_lines(100);
  const std::string exact = testing::TempDir() + "duet_hostile_exact.txt";
  std::ofstream(exact) << text;
  ReadLimits tight;
  tight.max_bytes = text.size();
  EXPECT_EQ(read_history(exact, Format::automatic, kNoDeadline, tight).ops.size(), 100u);
  tight.max_bytes = text.size() - 1;
  EXPECT_NE(read_error(exact, tight).find("the input is larger than"), std::string::npos);
  std::remove(exact.c_str());
}

TEST(HostileInput, InputThatIsNotAFileHasADeadlineOfItsOwn) {
  EXPECT_EQ(ReadLimits{}.non_regular_seconds, 10.0);
  const std::string dir = testing::TempDir() + "duet_hostile_fifo";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir + " && mkfifo " + dir + "/h.fifo").c_str()), 0);
  ReadLimits quick;
  quick.non_regular_seconds = 0.3;
  const auto t0 = Clock::now();
  try {
    // No deadline of the caller's: a FIFO with no writer still ends.
    (void)read_history(dir + "/h.fifo", Format::automatic, kNoDeadline, quick);
    ADD_FAILURE() << "read a FIFO with no writer";
  } catch (const TimeBudgetExceeded& e) {
    EXPECT_STREQ(e.what(),
                 "reading took longer than 0.3 s, the limit for an input that is not a regular file (a FIFO, a pipe, a "
                 "device); 0 bytes read (change it with --input-timeout SECONDS)");
  }
  const double seconds = seconds_since(t0);
  EXPECT_GE(seconds, 0.25);
  EXPECT_LT(seconds, 3.0);
  // The caller's deadline, when sooner, is the one that ends it (and says so).
  try {
    (void)read_history(dir + "/h.fifo", Format::automatic, Clock::now() + std::chrono::milliseconds(100));
    ADD_FAILURE() << "read a FIFO with no writer";
  } catch (const TimeBudgetExceeded& e) {
    EXPECT_STREQ(e.what(), "the time budget ran out while reading the file (0 bytes read)");
  }
  std::system(("rm -rf " + dir).c_str());
}

// The search's deadline can be given as a point in time (duet-check's starts with the file).
TEST(HostileInput, CheckDeadlineAlreadyPassedIsUnknown) {
  const History h = parse_history(kv_lines(10), Format::kv_log, "t");
  CheckOptions options;
  options.deadline = Clock::now() - std::chrono::seconds(1);
  const CheckReport r = check_history(h, options);
  EXPECT_EQ(r.verdict, Verdict::unknown);
  EXPECT_NE(r.explanation.find("ran out of time"), std::string::npos) << r.explanation;
}

// ---- 4. numbers as the formats define them ----

Value value_of(const std::string& number) {
  return parse_history("{:process 0, :type :invoke, :f :write, :value " + number + "}", Format::kv_log, "t").ops.at(0).input;
}

TEST(HostileInput, EdnNumbersHaveNoLeadingZeros) {
  for (const char* bad : {"010", "-010", "+010", "00", "-00", "007N"})
    EXPECT_EQ(parse_error("{:process 0, :type :invoke, :f :write, :value " + std::string(bad) + "}"),
              "t:1: invalid number `" + std::string(bad) + "` (EDN integers have no leading zeros)");
  for (const char* bad : {"00.5", "-01.5", "00e1", "01M"})
    EXPECT_EQ(parse_error("{:process 0, :type :invoke, :f :write, :value " + std::string(bad) + "}"),
              "t:1: invalid number `" + std::string(bad) + "` (EDN numbers have no leading zeros)");
  // A real needs digits on both sides of its `.`.
  for (const char* bad : {"1.", "-1.", "1.e5", "1.M"})
    EXPECT_EQ(parse_error("{:process 0, :type :invoke, :f :write, :value " + std::string(bad) + "}"),
              "t:1: invalid number `" + std::string(bad) + "` (EDN needs a digit after the `.`)");
  for (const char* bad : {".5", "-.5", "+.5e3"})
    EXPECT_EQ(parse_error("{:process 0, :type :invoke, :f :write, :value " + std::string(bad) + "}"),
              "t:1: invalid number `" + std::string(bad) + "` (EDN numbers start with a digit)");
  EXPECT_EQ(value_of(".a").kind, Value::Kind::symbol);  // still a symbol
  EXPECT_EQ(value_of("-").kind, Value::Kind::symbol);
  EXPECT_EQ(parse_error("[{:process 0, :type :invoke,\n :f :write, :value [1 010]}]"),
            "t:2: invalid number `010` (EDN integers have no leading zeros)");
  EXPECT_EQ(value_of("0"), Value::integer(0));
  EXPECT_EQ(value_of("-0"), Value::integer(0));
  EXPECT_EQ(value_of("+0"), Value::integer(0));
  EXPECT_EQ(value_of("0N"), Value::integer(0));
  EXPECT_EQ(value_of("10"), Value::integer(10));
  EXPECT_EQ(value_of("100"), Value::integer(100));
  EXPECT_EQ(value_of("0.5").real_number, 0.5);
  EXPECT_EQ(value_of("0.05").real_number, 0.05);
  EXPECT_EQ(value_of("0e1").kind, Value::Kind::real);
  EXPECT_EQ(value_of("-0.0").kind, Value::Kind::real);
  EXPECT_EQ(value_of("1e05").real_number, 1e5);  // an exponent's digits may start with 0
  EXPECT_EQ(value_of("0M").kind, Value::Kind::real);
}

TEST(HostileInput, RegisterModelsTakeEveryInt64) {
  const std::string lo = std::to_string(kMin), hi = std::to_string(kMax);
  // Write INT64_MIN, read it back, cas it to INT64_MAX, read that.
  const std::string ok = jepsen({"0\t:invoke\t:write\t" + lo, "0\t:ok\t:write\t" + lo, "0\t:invoke\t:read\tnil",
                                 "0\t:ok\t:read\t" + lo, "0\t:invoke\t:cas\t[" + lo + " " + hi + "]",
                                 "0\t:ok\t:cas\t[" + lo + " " + hi + "]", "0\t:invoke\t:read\tnil", "0\t:ok\t:read\t" + hi});
  for (const char* model : {"cas-register", "cas-register-0"}) {
    CheckOptions options;
    options.model = model;
    EXPECT_EQ(check_history(parse_history(ok, Format::automatic, "min.log"), options).verdict, Verdict::linearizable)
        << model;
  }
  // INT64_MIN is a value, not the empty register: reading it from the empty register is wrong,
  // and the state shows it as the number it is.
  const History h = parse_history(jepsen({"0\t:invoke\t:read\tnil", "0\t:ok\t:read\t" + lo}), Format::automatic, "min.log");
  const CheckReport r = check_history(h);
  EXPECT_EQ(r.verdict, Verdict::not_linearizable);
  EXPECT_EQ(r.stuck_state, "nil");
  const History w = parse_history(
      jepsen({"0\t:invoke\t:write\t" + lo, "0\t:ok\t:write\t" + lo, "0\t:invoke\t:read\tnil", "0\t:ok\t:read\tnil"}),
      Format::automatic, "min.log");
  const CheckReport rw = check_history(w);
  EXPECT_EQ(rw.verdict, Verdict::not_linearizable);
  EXPECT_EQ(rw.stuck_state, lo);
}

TEST(HostileInput, ProcessIdsAreEdnIntegersInEveryFormat) {
  // Jepsen log: the process field.
  EXPECT_EQ(parse_history(jepsen({"+5\t:invoke\t:read\tnil"}), Format::automatic, "t").ops.at(0).process, 5);
  EXPECT_EQ(
      parse_history(jepsen({std::to_string(kMin) + "\t:invoke\t:read\tnil"}), Format::automatic, "t").ops.at(0).process,
      kMin);
  EXPECT_EQ(parse_history(jepsen({"-0\t:invoke\t:read\tnil"}), Format::automatic, "t").ops.at(0).process, 0);
  EXPECT_EQ(parse_error(jepsen({"010\t:invoke\t:read\tnil"})),
            "t:1: process id `010` is not an integer (EDN integers have no leading zeros)");
  EXPECT_EQ(parse_error(jepsen({"\t:invoke\t:read\tnil"})), "t:1: empty process field");
  EXPECT_EQ(parse_error(jepsen({"+\t:invoke\t:read\tnil"})), "t:1: process id `+` is not an integer");
  EXPECT_EQ(parse_error(jepsen({"+-5\t:invoke\t:read\tnil"})), "t:1: process id `+-5` is not an integer");
  EXPECT_EQ(parse_error(jepsen({"-9223372036854775809\t:invoke\t:read\tnil"})),
            "t:1: process id `-9223372036854775809` is out of range (64-bit)");
  // ... and its value field, read as EDN.
  EXPECT_EQ(parse_error(jepsen({"0\t:invoke\t:write\t010"})),
            "t:1: invalid number `010` (EDN integers have no leading zeros)");
  EXPECT_EQ(parse_history(jepsen({"0\t:invoke\t:write\t+7"}), Format::automatic, "t").ops.at(0).input, Value::integer(7));

  // kv log: :process. A keyword (:nemesis) is not a client; anything else that is not an
  // integer is an error, not an operation silently dropped.
  const auto kv = [](const std::string& process) {
    return "{:process " + process + ", :type :invoke, :f :get, :key \"1\", :value nil}\n";
  };
  EXPECT_EQ(parse_history(kv("+3"), Format::kv_log, "t").ops.at(0).process, 3);
  EXPECT_EQ(parse_history(kv(std::to_string(kMin)), Format::kv_log, "t").ops.at(0).process, kMin);
  EXPECT_TRUE(parse_history(kv(":nemesis"), Format::kv_log, "t").ops.empty());
  EXPECT_EQ(parse_error(kv("010")), "t:1: invalid number `010` (EDN integers have no leading zeros)");
  EXPECT_EQ(parse_error(kv("nil")), "t:1: :process must be an integer (or a keyword such as :nemesis), found `nil`");
  EXPECT_EQ(parse_error(kv("\"\"")), "t:1: :process must be an integer (or a keyword such as :nemesis), found `\"\"`");
  EXPECT_EQ(parse_error("[" + kv("1.5") + "]"),
            "t:1: :process must be an integer (or a keyword such as :nemesis), found `1.5`");
}

// ---- 5. every error about the input has its file and line ----

TEST(HostileInput, ModelErrorsNameTheFileAndLine) {
  const std::string op = "{:process 0, :invoke 1, :complete 2, :type :ok, :f :get, :key \"k\", :value \"\"}\n";
  const History nope = parse_history("; a comment\n;duet-history 1\n;model nope\n" + op, Format::automatic, "m.duet");
  EXPECT_EQ(nope.model_line, 3u);
  EXPECT_EQ(check_error(nope), "m.duet:3: unknown model 'nope' in the `;model` line (known: " + known_models() + ")");
  // The caller's model wins over the file's.
  CheckOptions kv;
  kv.model = "kv";
  EXPECT_EQ(check_history(nope, kv).verdict, Verdict::linearizable);
  // A file that names no model: the header's line, where `;model` would go.
  const History none = parse_history("\n;duet-history 1\n" + op, Format::automatic, "n.duet");
  EXPECT_EQ(none.model_line, 2u);
  EXPECT_EQ(check_error(none), "n.duet:2: the history does not say which model it follows; pass one (--model)");
  // Histories recorded in memory have no lines: the source alone, not ":0".
  Recorder rec(1, "kv");
  rec.complete(0, rec.invoke(0, "cas", Value::string("k"), Value::nil()), Value::nil());
  EXPECT_EQ(check_error(rec.history("run")).rfind("run: the kv model has get, put and append, not 'cas' (process 0: cas", 0),
            0u)
      << check_error(rec.history("run"));
  Recorder unnamed(1, "");
  EXPECT_EQ(check_error(unnamed.history("run")), "run: the history does not say which model it follows; pass one (--model)");
}

}  // namespace
