// The history parsers: every recorded history reads with its format and model, operations
// pair up with the right outcomes and times, crafted bad files fail with exact "file:line:"
// messages, and duet's own format round-trips.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <duet/history.hpp>

namespace {
using namespace duet::history;

const std::string kHistories = DUET_HISTORIES_DIR;
const std::string kData = DUET_CHECKER_DATA_DIR;

std::string data(const std::string& name) { return kData + "/" + name; }

// The message of a ParseError without its "file:line: " prefix.
std::string message_of(const ParseError& e) {
  const std::string prefix = e.file() + ":" + std::to_string(e.line()) + ": ";
  const std::string what = e.what();
  EXPECT_EQ(what.substr(0, prefix.size()), prefix) << "what() must start with file:line:";
  return what.substr(prefix.size());
}

struct Failure {
  bool thrown = false;
  std::string file;
  std::size_t line = 0;
  std::string message;
};

Failure failure_of_file(const std::string& path, Format format = Format::automatic) {
  Failure f;
  try {
    (void)read_history(path, format);
  } catch (const ParseError& e) {
    f = {true, e.file(), e.line(), message_of(e)};
  }
  return f;
}

Failure failure_of_text(const std::string& text, Format format = Format::automatic) {
  Failure f;
  try {
    (void)parse_history(text, format, "t");
  } catch (const ParseError& e) {
    f = {true, e.file(), e.line(), message_of(e)};
  }
  return f;
}

std::size_t count(const History& h, Outcome o) {
  std::size_t n = 0;
  for (const Operation& op : h.ops) n += op.outcome == o;
  return n;
}

Value ints(std::int64_t a, std::int64_t b) { return Value::vector({Value::integer(a), Value::integer(b)}); }

// Invariants every parsed history keeps, whatever its format.
void expect_well_formed(const History& h) {
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    const Operation& op = h.ops[i];
    SCOPED_TRACE(h.source + " op " + std::to_string(i) + " (line " + std::to_string(op.invoke_line) + ")");
    if (i > 0) {
      EXPECT_LE(h.ops[i - 1].invoke, op.invoke) << "ops are sorted by invocation";
    }
    EXPECT_GT(op.invoke_line, 0u);
    if (op.outcome == Outcome::info) {
      EXPECT_EQ(op.response, Operation::kPending);
      EXPECT_EQ(op.response_line, 0u);
    } else {
      EXPECT_NE(op.response, Operation::kPending);
      EXPECT_GE(op.response_line, op.invoke_line);
      if (h.format == Format::duet) {
        EXPECT_LE(op.invoke, op.response);
      } else {
        EXPECT_LT(op.invoke, op.response) << "positions in the file are strictly ordered";
      }
    }
  }
}

void expect_same_ops(const History& a, const History& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  EXPECT_EQ(a.default_model, b.default_model);
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const Operation& x = a.ops[i];
    const Operation& y = b.ops[i];
    SCOPED_TRACE("op " + std::to_string(i));
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.f, y.f);
    EXPECT_EQ(x.key.has_value(), y.key.has_value());
    if (x.key && y.key) {
      EXPECT_EQ(*x.key, *y.key);
    }
    EXPECT_EQ(x.input, y.input) << x.input.to_string() << " vs " << y.input.to_string();
    EXPECT_EQ(x.output, y.output) << x.output.to_string() << " vs " << y.output.to_string();
    EXPECT_EQ(x.outcome, y.outcome);
    EXPECT_EQ(x.result_unknown, y.result_unknown);
    EXPECT_EQ(x.invoke, y.invoke);
    EXPECT_EQ(x.response, y.response);
  }
}

// ---- the recorded histories ----

TEST(HistoryParse, EveryRecordedHistoryParsesWithItsFormatAndModel) {
  std::ifstream verdicts(kHistories + "/VERDICTS.tsv");
  ASSERT_TRUE(verdicts) << "cannot open VERDICTS.tsv";
  std::string line;
  std::getline(verdicts, line);  // header
  std::size_t files = 0, empty_files = 0;
  while (std::getline(verdicts, line)) {
    if (line.empty()) continue;
    const std::string file = line.substr(0, line.find('\t'));
    const std::string path = kHistories + "/" + file;
    SCOPED_TRACE(file);
    ++files;
    if (std::filesystem::file_size(path) == 0) {
      // An empty recording (Porcupine's set has one): said clearly, not a crash.
      const Failure f = failure_of_file(path);
      EXPECT_TRUE(f.thrown);
      EXPECT_EQ(f.line, 1u);
      EXPECT_EQ(f.message, "empty history file (no operations)");
      ++empty_files;
      continue;
    }
    const History h = read_history(path);
    EXPECT_EQ(h.source, path);
    expect_well_formed(h);
    const std::string folder = file.substr(0, file.find('/'));
    if (folder == "etcd") {
      EXPECT_EQ(h.format, Format::jepsen_log);
      EXPECT_EQ(h.default_model, "cas-register");
    } else if (folder == "kv") {
      EXPECT_EQ(h.format, Format::kv_log);
      EXPECT_EQ(h.default_model, "kv");
    } else {
      ASSERT_EQ(folder, "knossos");
      EXPECT_EQ(h.format, Format::edn);
      EXPECT_EQ(h.default_model, "cas-register");
      ASSERT_TRUE(h.default_init.has_value());  // Knossos' register starts at 0
      EXPECT_EQ(*h.default_init, Value::integer(0));
    }
    // Three Knossos histories hold no client operation that happened: only nemesis entries
    // (rollback-) or only failed operations, which are dropped (rollback-10, -11). They are
    // trivially linearizable, as VERDICTS.tsv says, so they parse to an empty list.
    const bool no_client_ops = file.find("mongodb-v0-ack-rollback-.edn") != std::string::npos ||
                               file.find("mongodb-v0-ack-rollback-10.edn") != std::string::npos ||
                               file.find("mongodb-v0-ack-rollback-11.edn") != std::string::npos;
    if (no_client_ops) {
      EXPECT_TRUE(h.ops.empty());
    } else {
      EXPECT_FALSE(h.ops.empty());
    }
  }
  EXPECT_EQ(files, 107u);
  EXPECT_LE(empty_files, 1u);
}

TEST(HistoryParse, EtcdLogPairsOperationsWithTheirCompletions) {
  const History h = read_history(kHistories + "/etcd/etcd_000.log");
  // grep: 85 :invoke, 49 :ok, 20 :fail (all :cas), 16 :info lines.
  ASSERT_EQ(h.ops.size(), 85u);
  EXPECT_EQ(count(h, Outcome::ok), 49u);
  EXPECT_EQ(count(h, Outcome::fail), 20u);
  EXPECT_EQ(count(h, Outcome::info), 16u);
  // Line 1 `0 :invoke :read nil` completes at line 7 `0 :ok :read nil`: times are positions
  // among the events.
  const Operation& first = h.ops[0];
  EXPECT_EQ(first.process, 0);
  EXPECT_EQ(first.f, "read");
  EXPECT_TRUE(first.input.is_nil());
  EXPECT_EQ(first.outcome, Outcome::ok);
  EXPECT_TRUE(first.output.is_nil());
  EXPECT_EQ(first.invoke, 0u);
  EXPECT_EQ(first.response, 6u);
  EXPECT_EQ(first.invoke_line, 1u);
  EXPECT_EQ(first.response_line, 7u);
  EXPECT_FALSE(first.key.has_value());
  // Line 3 `2 :invoke :write 4`.
  EXPECT_EQ(h.ops[2].f, "write");
  EXPECT_EQ(h.ops[2].input, Value::integer(4));
  EXPECT_EQ(h.ops[2].process, 2);
  std::size_t cas = 0;
  for (const Operation& op : h.ops) {
    if (op.f == "cas") {
      ++cas;
      ASSERT_EQ(op.input.kind, Value::Kind::vector);
      ASSERT_EQ(op.input.items.size(), 2u);
      EXPECT_TRUE(op.input.items[0].is_integer());
      EXPECT_TRUE(op.input.items[1].is_integer());
    }
    if (op.outcome == Outcome::fail) {
      EXPECT_EQ(op.f, "cas");  // `:fail :cas`: completed without effect, result known
      EXPECT_FALSE(op.result_unknown);
      EXPECT_TRUE(op.output.is_nil());
    }
  }
  EXPECT_GT(cas, 0u);
}

TEST(HistoryParse, JepsenLogAfterOtherLinesWithNemesisTimedOutReadAndReusedProcess) {
  const History h = read_history(data("jepsen_with_preamble.log"));
  EXPECT_EQ(h.format, Format::jepsen_log);  // found below two lines that are not events
  ASSERT_EQ(h.ops.size(), 5u);              // the :nemesis line is not a client operation
  // write 1 by process 0: events 0 and 2.
  EXPECT_EQ(h.ops[0].f, "write");
  EXPECT_EQ(h.ops[0].outcome, Outcome::ok);
  EXPECT_EQ(h.ops[0].invoke, 0u);
  EXPECT_EQ(h.ops[0].response, 2u);
  EXPECT_EQ(h.ops[0].invoke_line, 3u);
  EXPECT_EQ(h.ops[0].response_line, 6u);
  // `:fail :read :timed-out`: completed, result unknown.
  EXPECT_EQ(h.ops[1].f, "read");
  EXPECT_EQ(h.ops[1].outcome, Outcome::fail);
  EXPECT_TRUE(h.ops[1].result_unknown);
  EXPECT_EQ(h.ops[1].response, 3u);
  // `:fail :cas [1 2]`: completed without effect.
  EXPECT_EQ(h.ops[2].f, "cas");
  EXPECT_EQ(h.ops[2].input, ints(1, 2));
  EXPECT_EQ(h.ops[2].outcome, Outcome::fail);
  EXPECT_FALSE(h.ops[2].result_unknown);
  EXPECT_EQ(h.ops[2].response, 5u);
  // `:info :write :timed-out`: indeterminate; process 3 then invokes again, left pending.
  EXPECT_EQ(h.ops[3].process, 3);
  EXPECT_EQ(h.ops[3].outcome, Outcome::info);
  EXPECT_EQ(h.ops[3].input, Value::integer(4));
  EXPECT_TRUE(h.ops[3].output.is_nil());
  EXPECT_EQ(h.ops[3].response, Operation::kPending);
  EXPECT_EQ(h.ops[4].process, 3);
  EXPECT_EQ(h.ops[4].f, "read");
  EXPECT_EQ(h.ops[4].outcome, Outcome::info);
  EXPECT_EQ(h.ops[4].invoke, 8u);
  EXPECT_EQ(h.ops[4].response_line, 0u);
  expect_well_formed(h);
}

TEST(HistoryParse, KvLogKeysAndValuesAreStrings) {
  const History h = read_history(kHistories + "/kv/c01-ok.txt");
  ASSERT_EQ(h.ops.size(), 58u);  // grep -c ':type :invoke'
  EXPECT_EQ(count(h, Outcome::ok), 58u);
  const Operation& first = h.ops[0];  // {:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}
  EXPECT_EQ(first.f, "append");
  ASSERT_TRUE(first.key.has_value());
  EXPECT_EQ(*first.key, Value::string("0"));
  EXPECT_EQ(first.input, Value::string("x 0 0 y"));
  EXPECT_EQ(first.output, Value::string("x 0 0 y"));
  EXPECT_EQ(first.invoke, 0u);
  EXPECT_EQ(first.response, 1u);
  std::size_t gets = 0;
  for (const Operation& op : h.ops) {
    ASSERT_TRUE(op.key.has_value());
    EXPECT_EQ(op.key->kind, Value::Kind::string);
    EXPECT_TRUE(op.f == "get" || op.f == "put" || op.f == "append") << op.f;
    if (op.f == "get") {
      ++gets;
      EXPECT_TRUE(op.input.is_nil());
      EXPECT_EQ(op.output.kind, Value::Kind::string);
    }
  }
  EXPECT_GT(gets, 0u);
  EXPECT_EQ(read_history(kHistories + "/kv/c10-bad.txt").ops.size(), 405u);
}

TEST(HistoryParse, KnossosDropsFailedOperationsAndSkipsTheNemesis) {
  const History h = read_history(kHistories + "/knossos/cas-register/good/memstress3-1.edn");
  // 305 invocations, 88 of them :fail (dropped), no :info.
  ASSERT_EQ(h.ops.size(), 217u);
  EXPECT_EQ(count(h, Outcome::fail), 0u);
  EXPECT_EQ(count(h, Outcome::info), 0u);
  // Lines 1-2: process 16's cas [1 0] failed, so the first operation is line 3's read.
  EXPECT_EQ(h.ops[0].invoke_line, 3u);
  EXPECT_EQ(h.ops[0].process, 12);
  EXPECT_EQ(h.ops[0].f, "read");
  EXPECT_TRUE(h.ops[0].output.is_nil());  // a nil read stays nil ("any value")
  for (const Operation& op : h.ops)
    if (op.f == "cas") {
      ASSERT_EQ(op.input.kind, Value::Kind::vector);
      ASSERT_EQ(op.input.items.size(), 2u);
      EXPECT_TRUE(op.input.items[0].is_integer() && op.input.items[1].is_integer());
    }
  // Only :nemesis entries: no client operation at all.
  EXPECT_TRUE(read_history(kHistories + "/knossos/cas-register/good/mongodb-v0-ack-rollback-.edn").ops.empty());
  // 702 client invocations, 681 failed, 8 of the rest indeterminate.
  const History m = read_history(kHistories + "/knossos/cas-register/good/mongodb-v0-ack-rollback-0.edn");
  EXPECT_EQ(m.ops.size(), 21u);
  EXPECT_EQ(count(m, Outcome::info), 8u);
  // A list `(...)` with comments.
  EXPECT_EQ(read_history(kHistories + "/knossos/cas-register/bad/rethink-fail-minimal.edn").ops.size(), 4u);
}

TEST(HistoryParse, KnossosReaderFeatures) {
  // Comments, commas, a list, a set, a tagged map, a discarded form, extra keys.
  const History h = read_history(data("knossos_features.edn"));
  EXPECT_EQ(h.format, Format::edn);
  EXPECT_EQ(h.default_model, "cas-register");
  ASSERT_EQ(h.ops.size(), 4u);  // write 0, read, write #{4} (info), read (pending); cas failed
  EXPECT_EQ(h.ops[0].f, "write");
  EXPECT_EQ(h.ops[0].outcome, Outcome::ok);
  EXPECT_EQ(h.ops[0].invoke, 0u);
  EXPECT_EQ(h.ops[0].response, 1u);  // the nemesis entry between them is not an event
  EXPECT_EQ(h.ops[1].f, "read");
  EXPECT_EQ(h.ops[1].process, 2);
  EXPECT_EQ(h.ops[1].outcome, Outcome::ok);
  EXPECT_EQ(h.ops[1].output, Value::integer(0));  // from the #jepsen.history.Op{...} map
  EXPECT_EQ(h.ops[1].response_line, 12u);
  EXPECT_EQ(h.ops[2].input, Value::vector({Value::integer(4)}));  // #{4} read as a vector
  EXPECT_EQ(h.ops[2].outcome, Outcome::info);
  EXPECT_EQ(h.ops[3].process, 4);
  EXPECT_EQ(h.ops[3].outcome, Outcome::info);
  expect_well_formed(h);

  const History t = read_history(data("knossos_txn.edn"));
  EXPECT_EQ(t.default_model, "multi-register");
  ASSERT_EQ(t.ops.size(), 1u);
  EXPECT_EQ(t.ops[0].output.to_string(), "[[:write :x 1] [:read :y 2]]");
}

TEST(HistoryParse, EdnValues) {
  const std::string line =
      "{:process -7, :type :invoke, :f :put, :key [1 \"a\"], :value "
      "[nil true false -12 +5 0 3N 1.5 -2e3 4M \"q\\\"\\\\\\n\\t\\u00e9\\u0041\" :kw ns/sym (1 2) #{3} {:a 1, \"b\" [2]}]}";
  const History h = parse_history(line, Format::kv_log, "t");
  ASSERT_EQ(h.ops.size(), 1u);
  const Operation& op = h.ops[0];
  EXPECT_EQ(op.process, -7);
  EXPECT_EQ(op.outcome, Outcome::info);  // pending at the end of the file
  ASSERT_TRUE(op.key.has_value());
  EXPECT_EQ(*op.key, Value::vector({Value::integer(1), Value::string("a")}));
  const Value& v = op.input;
  ASSERT_EQ(v.items.size(), 16u);
  EXPECT_TRUE(v.items[0].is_nil());
  EXPECT_EQ(v.items[1], Value::boolean(true));
  EXPECT_EQ(v.items[2], Value::boolean(false));
  EXPECT_EQ(v.items[3], Value::integer(-12));
  EXPECT_EQ(v.items[4], Value::integer(5));
  EXPECT_EQ(v.items[5], Value::integer(0));
  EXPECT_EQ(v.items[6], Value::integer(3));
  EXPECT_EQ(v.items[7].kind, Value::Kind::real);
  EXPECT_EQ(v.items[7].real_number, 1.5);
  EXPECT_EQ(v.items[8].real_number, -2000.0);
  EXPECT_EQ(v.items[9].kind, Value::Kind::real);
  EXPECT_EQ(v.items[9].real_number, 4.0);
  EXPECT_EQ(v.items[10], Value::string("q\"\\\n\t\xC3\xA9"
                                       "A"));
  EXPECT_EQ(v.items[11], Value::keyword("kw"));
  EXPECT_EQ(v.items[12].kind, Value::Kind::symbol);
  EXPECT_EQ(v.items[12].text, "ns/sym");
  EXPECT_EQ(v.items[13], ints(1, 2));
  EXPECT_EQ(v.items[14], Value::vector({Value::integer(3)}));
  ASSERT_EQ(v.items[15].kind, Value::Kind::map);
  ASSERT_NE(v.items[15].find("a"), nullptr);
  EXPECT_EQ(*v.items[15].find("a"), Value::integer(1));
  EXPECT_EQ(v.items[15].items[2], Value::string("b"));
}

TEST(HistoryParse, IntegerLimits) {
  const auto value_of = [](const std::string& number) {
    return parse_history("{:process 0, :type :invoke, :f :write, :value " + number + "}", Format::kv_log, "t")
        .ops.at(0)
        .input;
  };
  EXPECT_EQ(value_of("9223372036854775807"), Value::integer(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(value_of("-9223372036854775808"), Value::integer(std::numeric_limits<std::int64_t>::min()));
  Failure f = failure_of_text("{:process 0, :type :invoke, :f :write, :value 9223372036854775808}");
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(f.message, "integer `9223372036854775808` is out of range (64-bit)");
  f = failure_of_text("\n{:process 0, :type :invoke, :f :write, :value -9223372036854775809}");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.message, "integer `-9223372036854775809` is out of range (64-bit)");
  f = failure_of_text("{:process 0, :type :invoke, :f :write, :value 1e999}");
  EXPECT_EQ(f.message, "number `1e999` is out of range");
  f = failure_of_text("{:process 0, :type :invoke, :f :write, :value 12ab}");
  EXPECT_EQ(f.message, "invalid number `12ab`");
  f = failure_of_text("INFO  jepsen.util - 99999999999999999999\t:invoke\t:read\tnil\n");
  EXPECT_EQ(f.message, "process id `99999999999999999999` is out of range (64-bit)");
}

TEST(HistoryParse, NestingIsBounded) {
  // The map is level 0, so 256 brackets inside it are the deepest accepted.
  const auto nested = [](int n) {
    return "{:process 0, :type :invoke, :f :write, :value " + std::string(n, '[') + std::string(n, ']') + "}";
  };
  EXPECT_EQ(parse_history(nested(256), Format::kv_log, "t").ops.size(), 1u);
  const Failure f = failure_of_text(nested(257));
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(f.message, "nesting too deep (more than 256 levels)");
  // Far deeper input, of every nesting kind, ends in the same error, not a stack overflow.
  for (const char* open : {"[", "(", "{", "#{", "#_", "#tag "}) {
    std::string text = "[";
    for (int i = 0; i < 100000; ++i) text += open;
    EXPECT_EQ(failure_of_text(text, Format::edn).message, "nesting too deep (more than 256 levels)") << open;
  }
}

TEST(HistoryParse, DuetFormatReadsHeaderModelAndSortsByInvocation) {
  const History h = read_history(data("sample.duet"));
  EXPECT_EQ(h.format, Format::duet);
  EXPECT_EQ(h.default_model, "kv");
  ASSERT_EQ(h.ops.size(), 4u);
  EXPECT_EQ(h.ops[0].invoke, 1200u);
  EXPECT_EQ(h.ops[0].response, 1350u);
  EXPECT_EQ(h.ops[0].input, Value::string("x"));
  EXPECT_EQ(h.ops[0].invoke_line, 5u);
  EXPECT_EQ(h.ops[1].invoke, 2000u);
  EXPECT_EQ(h.ops[1].output, Value::string("x"));
  EXPECT_EQ(h.ops[2].outcome, Outcome::info);
  EXPECT_EQ(h.ops[2].response, Operation::kPending);
  EXPECT_EQ(h.ops[2].response_line, 0u);
  EXPECT_EQ(h.ops[3].outcome, Outcome::fail);
  EXPECT_TRUE(h.ops[3].result_unknown);
  EXPECT_EQ(*h.ops[3].key, Value::string("4"));
  expect_well_formed(h);
}

TEST(HistoryParse, DetectsFormats) {
  EXPECT_EQ(detect_format("INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"), Format::jepsen_log);
  EXPECT_EQ(detect_format("\n; comment\n[{:process 0}]"), Format::edn);
  EXPECT_EQ(detect_format("(\n{:process 0})"), Format::edn);
  EXPECT_EQ(detect_format("  {:process 0, :type :invoke}\n"), Format::kv_log);
  EXPECT_EQ(detect_format("; a comment\n;duet-history 1\n"), Format::duet);
  EXPECT_EQ(detect_format("\xEF\xBB\xBF[]"), Format::edn);  // UTF-8 byte order mark
  EXPECT_EQ(detect_format("setting up\nmore setup\nx jepsen.util - 1\t:invoke\t:read\tnil\n"), Format::jepsen_log);
  try {
    (void)detect_format("\n\nhello\n", "f.txt");
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(),
                 "f.txt:3: cannot tell the format of this file; pass --format (jepsen-log, kv-log, edn or duet); the "
                 "first line is `hello`");
  }
  try {
    (void)detect_format(" \n\t\n", "f.txt");
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "f.txt:1: empty history file (no operations)");
  }
}

// ---- crafted bad files: exact messages ----

struct BadFile {
  const char* name;
  Format format;
  std::size_t line;
  const char* message;
};

std::ostream& operator<<(std::ostream& os, const BadFile& b) { return os << b.name; }

class HistoryParseErrors : public ::testing::TestWithParam<BadFile> {};

TEST_P(HistoryParseErrors, ExactMessage) {
  const BadFile& b = GetParam();
  const std::string path = data(b.name);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const Failure f = failure_of_file(path, b.format);
  ASSERT_TRUE(f.thrown) << "no ParseError for " << b.name;
  EXPECT_EQ(f.file, path);
  EXPECT_EQ(f.line, b.line);
  EXPECT_EQ(f.message, b.message);
}

const BadFile kBadFiles[] = {
    {"empty.log", Format::automatic, 1, "empty history file (no operations)"},
    {"whitespace_only.txt", Format::automatic, 1, "empty history file (no operations)"},
    {"comments_only.edn", Format::automatic, 1, "empty history file (no operations)"},
    {"truncated.edn", Format::automatic, 3, "unexpected end of file: the `[` opened at line 1 is not closed"},
    {"unterminated_string.txt", Format::automatic, 3, "unterminated string (no closing `\"` on this line)"},
    {"garbage_line.txt", Format::automatic, 3,
     "expected one EDN map per line like `{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}`, found `this "
     "line is not an operation`"},
    {"completion_without_invoke.log", Format::automatic, 3, "`:ok` for process 3 with no pending :invoke"},
    {"double_invoke.txt", Format::automatic, 4,
     "`:invoke` for process 0 while its operation invoked at line 1 is still pending (no :ok, :fail or :info in "
     "between)"},
    {"mismatched_function.txt", Format::automatic, 2,
     "`:ok :put` for process 0 does not match its pending `:invoke :get` from line 1"},
    {"bad_process.log", Format::automatic, 2, "process id `x1` is not an integer"},
    {"jepsen_bad_type.log", Format::automatic, 2, "unknown operation type `:done` (expected :invoke, :ok, :fail or :info)"},
    {"jepsen_bad_value.log", Format::automatic, 1, "unexpected end of line: the `[` is not closed"},
    {"jepsen_missing_field.log", Format::automatic, 1,
     "expected 4 fields after `jepsen.util` (process, type, function, value; separated by tabs or spaces), found 3"},
    {"missing_type.txt", Format::automatic, 2,
     "operation has no :type (in `{:process 0, :f :get, :key \"1\", :value \"x\"}`)"},
    {"unknown_type.txt", Format::automatic, 2, "unknown :type `:done` (expected :invoke, :ok, :fail or :info)"},
    {"integer_overflow.edn", Format::automatic, 2, "integer `99999999999999999999` is out of range (64-bit)"},
    {"deep_nesting.edn", Format::automatic, 2, "nesting too deep (more than 256 levels)"},
    {"mismatched_bracket.edn", Format::automatic, 2, "`)` does not match the `[` opened at line 2"},
    {"trailing_text.edn", Format::automatic, 3, "unexpected text after the closing `]`: `{:process 1}`"},
    {"binary_garbage.bin", Format::automatic, 1,
     "cannot tell the format of this file; pass --format (jepsen-log, kv-log, edn or duet); the first line is "
     "`\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\x00>\\x00\\x01\\x00\\x00\\x00`"},
    {"binary_garbage.bin", Format::edn, 1,
     "expected an EDN vector `[...]` or list `(...)` of operation maps, found `\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00"
     "\\x00\\x00\\x00\\x00\\x00\\x03\\x00>\\x00\\x01\\x00\\x00\\x00`"},
    {"binary_garbage.bin", Format::kv_log, 1,
     "expected one EDN map per line like `{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}`, found "
     "`\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\x00>\\x00\\x01\\x00\\x00\\x00`"},
    {"unknown_format.txt", Format::automatic, 1,
     "cannot tell the format of this file; pass --format (jepsen-log, kv-log, edn or duet); the first line is `hello, "
     "this is not a history`"},
    {"duet_complete_before_invoke.duet", Format::automatic, 3, ":complete 1999 is before :invoke 2000"},
    {"duet_missing_invoke.duet", Format::automatic, 4,
     "operation has no :invoke (in `{:process 0, :complete 1350, :type :ok, :f :put, :key \"3\", :... (82 bytes)`)"},
    {"duet_overlap_same_process.duet", Format::automatic, 4,
     "process 0 invokes this operation at 5, before its previous one (line 3) completed at 10"},
};

INSTANTIATE_TEST_SUITE_P(CraftedFiles, HistoryParseErrors, ::testing::ValuesIn(kBadFiles),
                         [](const ::testing::TestParamInfo<BadFile>& info) {
                           std::string name = std::to_string(info.index) + "_" + info.param.name;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(HistoryParse, ExplicitFormatThatDoesNotFitSaysWhatTheFileLooksLike) {
  const std::string etcd = kHistories + "/etcd/etcd_000.log";
  Failure f = failure_of_file(etcd, Format::edn);
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(
      f.message,
      "expected an EDN vector `[...]` or list `(...)` of operation maps, found `INFO  jepsen.util - 0\\x09:invoke\\x09:read\\x09nil` "
      "(read as edn, but the file looks like jepsen-log)");
  f = failure_of_file(etcd, Format::kv_log);
  EXPECT_EQ(f.line, 1u);
  EXPECT_NE(f.message.find("expected one EDN map per line"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("(read as kv-log, but the file looks like jepsen-log)"), std::string::npos) << f.message;
  f = failure_of_file(kHistories + "/kv/c01-ok.txt", Format::jepsen_log);
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(
      f.message,
      "no operations found (read as jepsen-log: no line of the form `INFO  jepsen.util - "
      "PROCESS :TYPE :F VALUE`, fields separated by tabs or spaces) (read as jepsen-log, but the file looks like kv-log)");
  f = failure_of_file(kHistories + "/kv/c01-ok.txt", Format::duet);
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(f.message.substr(0, 38), "expected the header `;duet-history 1`,");
  f = failure_of_file(kHistories + "/knossos/cas-register/bad/bad-analysis.edn", Format::kv_log);
  EXPECT_EQ(f.line, 1u);
  EXPECT_NE(f.message.find("(read as kv-log, but the file looks like edn)"), std::string::npos) << f.message;
  // An explicit format that fits is used as is.
  EXPECT_EQ(read_history(etcd, Format::jepsen_log).ops.size(), 85u);
  // No event at all in a forced format.
  f = failure_of_text("[]", Format::edn);
  EXPECT_EQ(f.message, "no operations found (read as edn: the history is empty)");
}

TEST(HistoryParse, UnreadableFileIsAnErrorAtLineZero) {
  const std::string path = data("no-such-file.edn");
  const Failure f = failure_of_file(path);
  ASSERT_TRUE(f.thrown);
  EXPECT_EQ(f.file, path);
  EXPECT_EQ(f.line, 0u);
  EXPECT_EQ(f.message, "cannot read file: No such file or directory");
  EXPECT_EQ(failure_of_file(kData).message.substr(0, 18), "cannot read file: ");  // a directory
}

// ---- duet's own format ----

TEST(HistoryParse, RoundTripsAKvHistory) {
  const History h = read_history(kHistories + "/kv/c10-ok.txt");
  const std::string text = write_duet_history(h);
  EXPECT_EQ(text.substr(0, 25), ";duet-history 1\n;model kv");
  EXPECT_EQ(detect_format(text), Format::duet);
  const History back = parse_history(text, Format::automatic, "back.duet");
  EXPECT_EQ(back.format, Format::duet);
  expect_same_ops(h, back);
  EXPECT_EQ(write_duet_history(back), text);
}

TEST(HistoryParse, RoundTripsAnEtcdHistory) {
  const History h = read_history(kHistories + "/etcd/etcd_000.log");
  const std::string text = write_duet_history(h);
  // The first operation: `0 :invoke :read nil` at event 0, `0 :ok :read nil` at event 6.
  EXPECT_NE(text.find("\n{:process 0, :invoke 0, :complete 6, :type :ok, :f :read, :input nil, :value nil}\n"),
            std::string::npos)
      << text.substr(0, 300);
  const History back = parse_history(text, Format::duet, "back.duet");
  EXPECT_EQ(back.default_model, "cas-register");
  expect_same_ops(h, back);
  expect_same_ops(read_history(data("jepsen_with_preamble.log")),
                  parse_history(write_duet_history(read_history(data("jepsen_with_preamble.log")))));
}

TEST(HistoryParse, RoundTripsEdnHistoriesAndAwkwardValues) {
  for (const char* name : {"knossos/cas-register/good/mongodb-v0-ack-rollback-0.edn",
                           "knossos/cas-register/good/mongodb-v0-ack-rollback-.edn"}) {
    const History h = read_history(kHistories + "/" + name);
    expect_same_ops(h, parse_history(write_duet_history(h)));
  }
  // Values whose naive printing would not read back: whole reals, control characters.
  History h;
  h.default_model = "my\rmodel 2";  // a carriage return inside the name is kept (found by fuzzing)
  Operation op;
  op.process = -3;
  op.f = "odd name";  // not a keyword: written as a string
  Value real;
  real.kind = Value::Kind::real;
  real.real_number = 2.0;
  Value tiny = real;
  tiny.real_number = -1e-300;
  op.key = Value::nil();
  op.input = Value::vector({real, tiny, Value::string(std::string("a\x01\x7f\"\\\r\n\tb\0c", 11)), Value::keyword("k")});
  op.output = Value::boolean(false);
  op.outcome = Outcome::fail;
  op.result_unknown = true;
  op.invoke = 5;
  op.response = 5;
  h.ops.push_back(op);
  op.outcome = Outcome::info;
  op.output = Value::nil();
  op.response = Operation::kPending;
  op.key.reset();
  op.f = "read";
  op.invoke = 1;
  op.result_unknown = false;
  h.ops.push_back(op);
  const std::string text = write_duet_history(h);
  const History back = parse_history(text);
  std::swap(h.ops[0], h.ops[1]);  // read back in invocation order
  expect_same_ops(h, back);
  // A history with no operations is the header alone, and reads back as one.
  History empty;
  empty.default_model = "kv";
  EXPECT_EQ(write_duet_history(empty), ";duet-history 1\n;model kv\n");
  EXPECT_TRUE(parse_history(write_duet_history(empty)).ops.empty());
}

TEST(HistoryParse, DuetFormatErrors) {
  const auto message = [](const std::string& text) { return failure_of_text(text, Format::duet); };
  Failure f = message(";duet-history 2\n");
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(f.message, "unsupported duet history version `2` (this reader knows version 1)");
  f = message(";duet-history 1\n{:process 0, :invoke 1, :type :info, :f :read, :complete 3}\n");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.message, "an :info operation has no :complete (it never returned)");
  f = message(";duet-history 1\n{:process 0, :invoke 1, :complete 3, :type :invoke, :f :read}\n");
  EXPECT_EQ(f.message, "unknown :type `:invoke` (expected :ok, :fail or :info)");
  f = message(";duet-history 1\n{:process 0, :invoke -1, :complete 3, :type :ok, :f :read}\n");
  EXPECT_EQ(f.message, ":invoke must be a non-negative integer (a time), found `-1`");
  f = message(";duet-history 1\n{:process 0, :invoke 1, :complete 3, :type :ok, :f :read}\n;model kv\n");
  EXPECT_EQ(f.line, 3u);
  EXPECT_EQ(f.message, "`;model` must come before the first operation");
  f = message(";duet-history 1\n{:process 0, :invoke 1, :type :ok, :f :read}\n");
  EXPECT_EQ(f.message, "operation has no :complete (in `{:process 0, :invoke 1, :type :ok, :f :read}`)");
  f = message(";duet-history 1\n{:process :a, :invoke 1, :complete 3, :type :ok, :f :read}\n");
  EXPECT_EQ(f.message, ":process must be an integer, found `:a`");
  f = message(";duet-history 1\n{:process 0, :invoke 1, :complete 3, :type :ok, :f 3}\n");
  EXPECT_EQ(f.message, ":f must be a keyword like :read, found `3`");
}

TEST(HistoryParse, EdnReaderErrorsCarryTheirLine) {
  const auto edn = [](const std::string& text) { return failure_of_text(text, Format::edn); };
  Failure f = edn("[{:process 0, :type :invoke,\n :f :write, :value \"abc}\n]\n");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.message, "unterminated string (no closing `\"` before the end of the file)");
  f = edn("[\n\n{:process 0 :type}]");
  EXPECT_EQ(f.line, 3u);
  EXPECT_EQ(f.message, "a map has a key without a value (odd number of forms in `{...}`)");
  f = edn("[\n{:process 0, :type :invoke, :f :write, :value \"a\\qb\"}]");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.message, "unknown escape `\\q` in a string");
  f = edn("[{:process 0, :type :invoke, :f :write, :value \\a}]");
  EXPECT_EQ(f.message, "character literals (`\\c`) are not supported");
  f = edn("[{:process 0, :type :invoke, :f :write, :value a@b}]");
  EXPECT_EQ(f.message, "unexpected character `@` after `a`");
  f = edn("[{:process 0, :type :invoke, :f :write, :value \x01}]");
  EXPECT_EQ(f.message, "unexpected character `\\x01`");
  f = edn("[{:process 0, :type :invoke, :f :write, :value ##Inf}]");
  EXPECT_EQ(f.message, "unsupported EDN dispatch `##` (only sets `#{...}`, tags and `#_` are read)");
  f = edn("[{:process 0, :type :invoke, :f :write, :value :}]");
  EXPECT_EQ(f.message, "a `:` must be followed by a keyword name");
  f = edn("[1 2]");
  EXPECT_EQ(f.message, "expected an operation map like `{:process 0, :type :invoke, :f :read, :value nil}`, found `1`");
  f = edn("[{:type :invoke, :f :read}]");
  EXPECT_EQ(f.message, "operation has no :process (in `{:type :invoke, :f :read}`)");
  f = edn("[{:process 1, :type :invoke}]");
  EXPECT_EQ(f.message, "operation has no :f (in `{:process 1, :type :invoke}`)");
  f = edn("[{:process 1, :type :invoke, :f :read, :value nil}\n #_]");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.message, "unexpected `]` (nothing to close)");
}

}  // namespace
