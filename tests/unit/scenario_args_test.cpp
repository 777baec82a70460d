// How a hand-written scenario's arguments are read as the parameters they are bound to
// (duet/detail/scenario_args.hpp): every kind of argument a test writes against every kind of
// parameter, so that a change of the conversion rules shows here as a changed cell.
#include <duet/detail/scenario_args.hpp>
#include <duet/show.hpp>
#include <gtest/gtest.h>

#include <any>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

template <class To>
std::string read_as(const std::any& given) {
  const std::optional<To> v = duet::detail::scenario_arg<To>(given);
  return v ? duet::show(*v) : "-";
}

// One row: the argument read as int, unsigned, short, long long, unsigned long long, double,
// float, bool, char, std::string ("-": it does not fit).
std::vector<std::string> row(const std::any& given) {
  return {read_as<int>(given),
          read_as<unsigned>(given),
          read_as<short>(given),
          read_as<long long>(given),
          read_as<unsigned long long>(given),
          read_as<double>(given),
          read_as<float>(given),
          read_as<bool>(given),
          read_as<char>(given),
          read_as<std::string>(given)};
}

struct Case {
  const char* given;
  std::any value;
  std::vector<std::string> reads;
};

TEST(ScenarioArgs, EveryArgumentKindAgainstEveryParameterKind) {
  constexpr long long big = std::numeric_limits<long long>::max();
  const std::vector<Case> table = {
      {"int 3", 3, {"3", "3u", "3", "3", "3u", "3.0", "3.0f", "-", "-", "-"}},
      {"int -1", -1, {"-1", "-", "-1", "-1", "-", "-1.0", "-1.0f", "-", "-", "-"}},
      {"int 70000", 70000, {"70000", "70000u", "-", "70000", "70000u", "70000.0", "70000.0f", "-", "-", "-"}},
      {"long 5", 5L, {"5", "5u", "5", "5", "5u", "5.0", "5.0f", "-", "-", "-"}},
      {"long long max",
       big,
       {"-", "-", "-", duet::show(big), duet::show(static_cast<unsigned long long>(big)),
        duet::show(static_cast<double>(big)), duet::show(static_cast<float>(big)), "-", "-", "-"}},
      {"short 4", short{4}, {"4", "4u", "4", "4", "4u", "4.0", "4.0f", "-", "-", "-"}},
      {"unsigned 7", 7u, {"7", "7u", "7", "7", "7u", "7.0", "7.0f", "-", "-", "-"}},
      {"unsigned short 8", static_cast<unsigned short>(8), {"8", "8u", "8", "8", "8u", "8.0", "8.0f", "-", "-", "-"}},
      {"unsigned long long 2^63",
       1ULL << 63U,
       {"-", "-", "-", "-", duet::show(1ULL << 63U), duet::show(static_cast<double>(1ULL << 63U)),
        duet::show(static_cast<float>(1ULL << 63U)), "-", "-", "-"}},
      // A floating value for an integer parameter is not silently truncated.
      {"double 2.5", 2.5, {"-", "-", "-", "-", "-", "2.5", "2.5f", "-", "-", "-"}},
      {"float 1.5f", 1.5F, {"-", "-", "-", "-", "-", "1.5", "1.5f", "-", "-", "-"}},
      // A bool or a char is its own type only.
      {"bool true", true, {"-", "-", "-", "-", "-", "-", "-", "true", "-", "-"}},
      {"char 'c'", 'c', {"-", "-", "-", "-", "-", "-", "-", "-", "'c'", "-"}},
      // A string literal or a std::string: a string parameter only.
      {"string literal", "ab", {"-", "-", "-", "-", "-", "-", "-", "-", "-", "\"ab\""}},
      {"std::string", std::string("cd"), {"-", "-", "-", "-", "-", "-", "-", "-", "-", "\"cd\""}},
      {"nothing", std::any(), {"-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}},
  };
  for (const Case& c : table) EXPECT_EQ(row(c.value), c.reads) << c.given;
}

TEST(ScenarioArgs, AnArgumentThatDoesNotFitSaysWhatItIsAndWhatWasWanted) {
  EXPECT_EQ(duet::detail::scenario_arg_error("push", 0, std::any(2.5), "int"),
            "argument 1 of the scenario's call of push is a double, and push takes a int there (an integer converts "
            "to any integer type that holds it, a string literal to std::string)");
  EXPECT_EQ(duet::detail::scenario_arity_error("push", 1, 1), "");
  EXPECT_NE(duet::detail::scenario_arity_error("push", 2, 1), "");
}

TEST(ScenarioArgs, ArgumentsPrintAsCpp) {
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(3)), "3");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any("a0")), "\"a0\"");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(std::string("b"))), "\"b\"");
}

}  // namespace
