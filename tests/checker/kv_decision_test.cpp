// A kv key's translation onto the unique-value register (src/check/kv_decision.cpp), step by
// step: what can make each value, which operation makes it, the register it all makes, and a
// violation's witness completed with the gets its appends need. (register_decision_test.cpp
// checks kv histories decided this way against the search.)
#include <gtest/gtest.h>

#include "check/kv_decision.hpp"

namespace {

using duet::history::detail::Interner;
using duet::history::detail::KvOp;
using duet::history::detail::KvRegister;
using duet::history::detail::Mode;
using duet::history::detail::RegisterOp;
using namespace duet::history::detail::kv_decision;

struct Key {
  Interner values;
  std::vector<KvOp> ops;
  Key& get(const std::string& v, Mode mode = Mode::ok) { return add(KvOp::get, v, mode); }
  Key& put(const std::string& v, Mode mode = Mode::ok) { return add(KvOp::put, v, mode); }
  Key& append(const std::string& v, Mode mode = Mode::ok) { return add(KvOp::append, v, mode); }
  Key& add(KvOp::Kind kind, const std::string& v, Mode mode) {
    ops.push_back({kind, mode, 0, values.id(v)});
    return *this;
  }
};

TEST(KvDecisionSteps, MakersAreThePutsAndAppendsThatDidNotFailByText) {
  Key key;
  key.put("x").append("ab").append("c").append("ab").put("y", Mode::fail).get("x");
  const KvMakers makers = kv_makers(key.ops, key.values);
  EXPECT_EQ(makers.puts.size(), 1u);
  EXPECT_EQ(makers.puts.at("x"), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(makers.appends.at("ab"), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(makers.lengths, (std::vector<std::size_t>{1, 2}));
}

TEST(KvDecisionSteps, AValueIsMadeByAPutOfItOrAnAppendOfItsEnd) {
  Key key;
  key.put("x").append("ab").append("c");
  const KvMakers makers = kv_makers(key.ops, key.values);
  const Making put = making_of(makers, "x");
  EXPECT_EQ(put.makers, 1u);
  EXPECT_EQ(put.made_by, std::optional<std::uint32_t>{0});
  const Making appended = making_of(makers, "xab");
  EXPECT_EQ(appended.makers, 1u);
  EXPECT_EQ(appended.made_by, std::optional<std::uint32_t>{1});
  EXPECT_EQ(appended.before, "x");
  EXPECT_EQ(making_of(makers, "q").makers, 0u);
  Key twice;
  twice.put("c").append("c");  // "c" is a put's and an append's (to "")
  EXPECT_EQ(making_of(kv_makers(twice.ops, twice.values), "c").makers, 2u);
}

TEST(KvDecisionSteps, AKeyTranslatesToWritesCasAndReadsOfValueIds) {
  Key key;
  key.put("x").append("y").get("xy").append("z", Mode::fail).put("w");
  const std::optional<KvRegister> reg = duet::history::detail::kv_as_register(key.ops, key.values, key.values.id(""));
  ASSERT_TRUE(reg.has_value());
  ASSERT_EQ(reg->ops.size(), 5u);
  const std::uint32_t xy = reg->ops[2].a, x = reg->ops[1].a;
  EXPECT_EQ(reg->ops[2].kind, RegisterOp::read);
  EXPECT_EQ(reg->ops[1].kind, RegisterOp::cas);  // the append: from "x" to "xy"
  EXPECT_EQ(reg->ops[1].b, xy);
  EXPECT_EQ(reg->ops[0].kind, RegisterOp::write);  // the put of "x"
  EXPECT_EQ(reg->ops[0].a, x);
  EXPECT_EQ(reg->ops[3].kind, RegisterOp::write);  // nobody reads it: a value of its own, failed
  EXPECT_EQ(reg->ops[3].mode, Mode::fail);
  EXPECT_EQ(reg->ops[4].kind, RegisterOp::write);
  EXPECT_NE(reg->ops[4].a, reg->ops[3].a);
  EXPECT_EQ(reg->needed_by[xy], 2u);  // the get reads it
  EXPECT_EQ(reg->needed_by[x], 1u);   // the append builds on it
  EXPECT_EQ(reg->needed_by[reg->start], KvRegister::kNobody);
}

TEST(KvDecisionSteps, NoTranslationWhenAValueHasTwoMakersOrTheStartIsMadeAgain) {
  Key twice;
  twice.put("a").put("a").get("a");
  EXPECT_FALSE(duet::history::detail::kv_as_register(twice.ops, twice.values, twice.values.id("")).has_value());
  Key start;
  start.put("s").get("s");
  EXPECT_FALSE(duet::history::detail::kv_as_register(start.ops, start.values, start.values.id("s")).has_value());
}

TEST(KvDecisionSteps, AnAppendsWitnessNeedsTheGetThatReadWhatItMade) {
  Key key;
  key.put("x").append("y").get("xy");
  const KvRegister reg = *duet::history::detail::kv_as_register(key.ops, key.values, key.values.id(""));
  std::vector<std::size_t> witness{1, 0};
  duet::history::detail::complete_kv_witness(reg, witness);
  EXPECT_EQ(witness, (std::vector<std::size_t>{0, 1, 2}));
}

}  // namespace
