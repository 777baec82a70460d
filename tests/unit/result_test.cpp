#include <duet/result.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

TEST(Show, ValuesPrintAsCpp) {
  EXPECT_EQ(duet::show(3), "3");
  EXPECT_EQ(duet::show(-3), "-3");
  EXPECT_EQ(duet::show(INT64_MIN), "INT64_MIN");
  EXPECT_EQ(duet::show(7u), "7u");
  EXPECT_EQ(duet::show(true), "true");
  EXPECT_EQ(duet::show('a'), "'a'");
  EXPECT_EQ(duet::show('\''), "'\\''");
  EXPECT_EQ(duet::show(1.0), "1.0");
  EXPECT_EQ(duet::show(0.1), "0.1");
  EXPECT_EQ(duet::show(std::string("a\"b\n")), "\"a\\\"b\\n\"");
  EXPECT_EQ(duet::show(std::optional<int>()), "std::nullopt");
  EXPECT_EQ(duet::show(std::optional<int>(4)), "4");
  EXPECT_EQ(duet::show(std::vector<int>{1, 2}), "std::vector<int>{1, 2}");
  EXPECT_EQ(duet::show(std::vector<std::string>{"x"}), "std::vector<std::string>{\"x\"}");
  EXPECT_EQ(duet::show(std::pair<int, bool>{1, false}), "std::pair{1, false}");
  EXPECT_EQ(duet::show(std::tuple<int, char>{1, 'c'}), "std::tuple{1, 'c'}");
  EXPECT_EQ(duet::show(std::variant<int, std::string>(std::string("v"))), "\"v\"");
}

struct Point {
  int x, y;
  bool operator==(const Point&) const = default;
};
std::string duet_show(const Point& p) { return "Point{" + duet::show(p.x) + ", " + duet::show(p.y) + "}"; }

template <class T>
struct Box {};

// Types as reports and drafts name them: as the file that declares them writes them, so a name
// in an anonymous namespace (this one) has no "(anonymous namespace)::".
TEST(Show, TypeNamesAreWrittenAsTheirFileWritesThem) {
  EXPECT_EQ(duet::type_name<Point>(), "Point");
  EXPECT_EQ(duet::type_name<Box<Point>>(), "Box<Point>");
  EXPECT_EQ(duet::type_name<std::vector<Point>>(), "std::vector<Point>");
  EXPECT_EQ(duet::type_name<std::optional<int>>(), "std::optional<int>");
  EXPECT_EQ(duet::type_name<std::deque<std::string>>(), "std::deque<std::string>");
  EXPECT_EQ((duet::type_name<std::pair<int, std::optional<bool>>>()), "std::pair<int, std::optional<bool>>");
}

TEST(Result, ComparesValuesByTypeAndValue) {
  EXPECT_EQ(duet::Result(3), duet::Result(3));
  EXPECT_NE(duet::Result(3), duet::Result(4));
  EXPECT_NE(duet::Result(3), duet::Result(3L));  // different types never agree
  EXPECT_EQ(duet::Result(), duet::Result());
  EXPECT_NE(duet::Result(), duet::Result(0));
  EXPECT_EQ(duet::Result(Point{1, 2}), duet::Result(Point{1, 2}));
  EXPECT_EQ(duet::Result(Point{1, 2}).show(), "Point{1, 2}");
  EXPECT_EQ(duet::Result("text"), duet::Result(std::string("text")));
}

// Integers compare by their inline bytes: after copies, moves, assignments over wider values and
// in-place replacement, equal values still compare equal and different ones do not.
TEST(Result, IntegersCompareByValueWhateverTheyReplaced) {
  duet::Result wide = std::int64_t{-1};
  wide = duet::Result(std::uint8_t{7});
  EXPECT_EQ(wide, duet::Result(std::uint8_t{7}));
  EXPECT_NE(wide, duet::Result(std::uint8_t{8}));
  duet::Result slot = Point{-1, -1};
  duet::detail::emplace_result(slot, [] { return duet::Result(true); });
  EXPECT_EQ(slot, duet::Result(true));
  EXPECT_NE(slot, duet::Result(false));
  duet::Result moved_from = std::size_t{5};
  const duet::Result moved = std::move(moved_from);
  moved_from = duet::Result('x');
  EXPECT_EQ(moved_from, duet::Result('x'));
  EXPECT_EQ(moved, duet::Result(std::size_t{5}));
  const duet::Result copy = moved;
  EXPECT_EQ(copy, moved);
  EXPECT_NE(duet::Result(std::int16_t{-1}), duet::Result(std::uint16_t{0xffff}));  // same bytes, other types
  EXPECT_NE(duet::Result(), duet::Result::threw<std::out_of_range>());
}

TEST(Result, LargeValuesAreCopiedAndMoved) {
  const std::vector<int> big(100, 7);
  duet::Result a = big;
  duet::Result b = a;
  duet::Result c = std::move(a);
  EXPECT_EQ(b, c);
  ASSERT_NE(c.get_if<std::vector<int>>(), nullptr);
  EXPECT_EQ(*c.get_if<std::vector<int>>(), big);
  b = duet::Result(1);
  EXPECT_EQ(*b.get_if<int>(), 1);
  EXPECT_EQ(b.get_if<long>(), nullptr);
}

// Assignment between inline and heap-held values, both ways, and onto itself.
TEST(Result, AssignmentReplacesInlineAndHeapValues) {
  const std::vector<int> big(100, 7);
  duet::Result r = 3;
  r = duet::Result(big);
  EXPECT_EQ(*r.get_if<std::vector<int>>(), big);
  const duet::Result small = 4;
  r = small;
  EXPECT_EQ(*r.get_if<int>(), 4);
  r = duet::Result::threw<std::out_of_range>();
  EXPECT_TRUE(r.is_exception());
  duet::Result& same = r;
  r = same;
  r = std::move(same);
  EXPECT_EQ(r, duet::Result::threw<std::out_of_range>());
}

// The hot path's in-place replacement: the new value, or void when the maker throws.
TEST(Result, EmplaceResultReplacesInPlaceOrLeavesVoidOnThrow) {
  duet::Result slot = std::vector<int>(10, 1);
  duet::detail::emplace_result(slot, [] { return duet::Result(5); });
  EXPECT_EQ(slot, duet::Result(5));
  duet::detail::emplace_result(slot, [] { return std::string("text"); });
  EXPECT_EQ(slot, duet::Result(std::string("text")));
  EXPECT_THROW(duet::detail::emplace_result(slot, []() -> duet::Result { throw std::runtime_error("x"); }),
               std::runtime_error);
  EXPECT_TRUE(slot.is_void());
}

TEST(Result, ExceptionsAreValues) {
  const duet::Result thrown = duet::capture([]() -> int { throw std::out_of_range("index 5"); });
  EXPECT_TRUE(thrown.is_exception());
  EXPECT_EQ(thrown.exception_type(), "std::out_of_range");
  EXPECT_EQ(thrown.show(), "throws std::out_of_range(\"index 5\")");
  EXPECT_EQ(thrown, duet::Result::threw<std::out_of_range>());  // empty message matches any
  EXPECT_NE(thrown, duet::Result::threw<std::out_of_range>("index 6"));
  EXPECT_NE(thrown, duet::Result::threw<std::invalid_argument>());
  EXPECT_NE(thrown, duet::Result(5));
  EXPECT_EQ(duet::capture([] { throw 42; }).exception_type(), "an exception of unknown type");
  EXPECT_TRUE(duet::capture([] {}).is_void());
  EXPECT_EQ(duet::capture([] { return 2; }), duet::Result(2));
}

}  // namespace

namespace {

TEST(Show, StringLiteralsStayValidAfterEscapes) {
  EXPECT_EQ(duet::show(std::string("\xff"
                                   "a")),
            "\"\\xff\" \"a\"");
  EXPECT_EQ(duet::show(std::string("\x01"
                                   "b")),
            "\"\\x01\" \"b\"");
  EXPECT_EQ(duet::show(std::string("\x01"
                                   "z")),
            "\"\\x01z\"");
  EXPECT_EQ(duet::show(std::string("\0"
                                   "1",
                                   2)),
            "\"\\0\" \"1\"");
}

// A candidate's exception message can be any size; a report quotes the start of it.
TEST(Show, LongExceptionMessagesAreCut) {
  const duet::Result r = duet::Result::exception("std::runtime_error", std::string(1 << 20, 'm'));
  const std::string shown = r.show();
  EXPECT_LT(shown.size(), 1100u);
  EXPECT_NE(shown.find("... (1048576 bytes))"), std::string::npos) << shown.substr(shown.size() - 40);
  // Comparing still uses the whole message.
  EXPECT_FALSE(r == duet::Result::exception("std::runtime_error", std::string(1 << 20, 'm') + "!"));
}

}  // namespace
