// Values of recorded histories print as EDN and compare structurally.
#include <gtest/gtest.h>

#include <duet/history.hpp>

namespace {
using duet::history::Value;

TEST(HistoryValue, PrintsAsEdn) {
  Value m;
  m.kind = Value::Kind::map;
  m.items = {Value::keyword("f"), Value::keyword("cas"), Value::keyword("value"),
             Value::vector({Value::integer(3), Value::nil(), Value::string("a\"b")})};
  EXPECT_EQ(m.to_string(), "{:f :cas, :value [3 nil \"a\\\"b\"]}");
  ASSERT_NE(m.find("value"), nullptr);
  EXPECT_EQ(*m.find("value"), Value::vector({Value::integer(3), Value::nil(), Value::string("a\"b")}));
  EXPECT_EQ(m.find("type"), nullptr);
  EXPECT_FALSE(Value::integer(1) == Value::string("1"));
}

TEST(HistoryValue, RealsStayReals) {
  Value r;
  r.kind = Value::Kind::real;
  r.real_number = 1.0;
  EXPECT_EQ(r.to_string(), "1.0");
  r.real_number = 2.5;
  EXPECT_EQ(r.to_string(), "2.5");
  r.real_number = 1e300 * 1e10;
  EXPECT_EQ(r.to_string(), "##Inf");
}

TEST(HistoryValue, FormatAndVerdictNames) {
  using namespace duet::history;
  EXPECT_EQ(parse_format_name("kv-log"), Format::kv_log);
  EXPECT_EQ(format_name(Format::jepsen_log), "jepsen-log");
  EXPECT_THROW(parse_format_name("json"), std::invalid_argument);
  EXPECT_EQ(verdict_name(Verdict::not_linearizable), "not-linearizable");
}
}  // namespace

namespace {
using duet::history::Value;

// A value quoted in a message is cut, and the printer stops at the cut: a 10 MB string must
// not become a 10 MB message, nor a 10 MB temporary.
TEST(HistoryValue, BoundedPrinterCutsAndNamesTheFullSize) {
  EXPECT_EQ(Value::integer(12345).to_string(200), "12345");  // short: as to_string()
  EXPECT_EQ(Value::string("abcdef").to_string(4), "\"abc... (8 bytes)");
  EXPECT_EQ(Value::string("abc").to_string(5), "\"abc\"");  // exactly the limit: whole
  const Value big = Value::string(std::string(10'000'000, 'x'));
  const std::string quoted = big.to_string(200);
  EXPECT_EQ(quoted, "\"" + std::string(199, 'x') + "... (10000002 bytes)");
  // The size named is the whole text's, escapes and nesting included.
  Value nested = Value::vector({Value::string("a\"b\n\x01"), Value::keyword("k"), big});
  Value map;
  map.kind = Value::Kind::map;
  map.items = {Value::keyword("v"), nested, Value::keyword("w"), Value::nil()};
  for (const Value* v : {&nested, &map}) {
    const std::string full = v->to_string();
    const std::string cut = v->to_string(30);
    EXPECT_EQ(cut, full.substr(0, 30) + "... (" + std::to_string(full.size()) + " bytes)");
  }
  // Never half a UTF-8 character: "é" is two bytes.
  EXPECT_EQ(Value::string("ab\xC3\xA9"
                          "cd")
                .to_string(4),
            "\"ab... (8 bytes)");
  EXPECT_EQ(Value::string("ab\xC3\xA9"
                          "cd")
                .to_string(5),
            "\"ab\xC3\xA9... (8 bytes)");
}
}  // namespace
