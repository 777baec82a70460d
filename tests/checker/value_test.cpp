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
