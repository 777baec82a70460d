// How a hand-written scenario's arguments are read as the parameters they are bound to
// (duet/detail/scenario_args.hpp): every kind of argument a test writes against every kind of
// parameter, so that a change of the conversion rules shows here as a changed cell.
#include <duet/detail/scenario_args.hpp>
#include <duet/show.hpp>
#include <gtest/gtest.h>

#include <any>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

template <class To>
std::string read_as(const std::any& given) {
  const std::optional<To> v = duet::detail::scenario_arg<To>(given);
  if (!v) return "-";
  if constexpr (std::is_same_v<To, std::string_view>) return duet::show(std::string(*v));
  else return duet::show(*v);
}

// The parameters of a row, in order.
const std::vector<std::string> kParameters = {
    "int",   "unsigned", "short", "long long", "unsigned long long", "signed char",      "unsigned char",      "double",
    "float", "bool",     "char",  "wchar_t",   "std::string",        "std::string_view", "std::optional<bool>"};

// One row: the argument read as each parameter of kParameters ("-": it does not fit).
std::vector<std::string> row(const std::any& given) {
  return {read_as<int>(given),
          read_as<unsigned>(given),
          read_as<short>(given),
          read_as<long long>(given),
          read_as<unsigned long long>(given),
          read_as<signed char>(given),
          read_as<unsigned char>(given),
          read_as<double>(given),
          read_as<float>(given),
          read_as<bool>(given),
          read_as<char>(given),
          read_as<wchar_t>(given),
          read_as<std::string>(given),
          read_as<std::string_view>(given),
          read_as<std::optional<bool>>(given)};
}

struct Case {
  const char* given;
  std::any value;
  std::vector<std::string> reads;
};

std::string show_big(long long v) { return duet::show(v); }

TEST(ScenarioArgs, EveryArgumentKindAgainstEveryParameterKind) {
  constexpr long long big = std::numeric_limits<long long>::max();
  constexpr unsigned long long top = 1ULL << 63U;
  const std::string n = "-";
  const std::vector<Case> table = {
      {"int 3", 3, {"3", "3u", "3", "3", "3u", "3", "3u", "3.0", "3.0f", n, n, n, n, n, n}},
      {"int -1", -1, {"-1", n, "-1", "-1", n, "-1", n, "-1.0", "-1.0f", n, n, n, n, n, n}},
      {"int 300", 300, {"300", "300u", "300", "300", "300u", n, n, "300.0", "300.0f", n, n, n, n, n, n}},
      {"int 70000", 70000, {"70000", "70000u", n, "70000", "70000u", n, n, "70000.0", "70000.0f", n, n, n, n, n, n}},
      {"long 5", 5L, {"5", "5u", "5", "5", "5u", "5", "5u", "5.0", "5.0f", n, n, n, n, n, n}},
      {"long long max",
       big,
       {n, n, n, show_big(big), duet::show(static_cast<unsigned long long>(big)), n, n, duet::show(static_cast<double>(big)),
        duet::show(static_cast<float>(big)), n, n, n, n, n, n}},
      {"short 4", short{4}, {"4", "4u", "4", "4", "4u", "4", "4u", "4.0", "4.0f", n, n, n, n, n, n}},
      {"signed char -2", static_cast<signed char>(-2), {"-2", n, "-2", "-2", n, "-2", n, "-2.0", "-2.0f", n, n, n, n, n, n}},
      {"std::uint8_t 9", std::uint8_t{9}, {"9", "9u", "9", "9", "9u", "9", "9u", "9.0", "9.0f", n, n, n, n, n, n}},
      {"unsigned 7", 7u, {"7", "7u", "7", "7", "7u", "7", "7u", "7.0", "7.0f", n, n, n, n, n, n}},
      {"unsigned short 8",
       static_cast<unsigned short>(8),
       {"8", "8u", "8", "8", "8u", "8", "8u", "8.0", "8.0f", n, n, n, n, n, n}},
      {"unsigned long long 2^63",
       top,
       {n, n, n, n, duet::show(top), n, n, duet::show(static_cast<double>(top)), duet::show(static_cast<float>(top)), n, n,
        n, n, n, n}},
      // A floating value for an integer parameter is not silently truncated.
      {"double 2.5", 2.5, {n, n, n, n, n, n, n, "2.5", "2.5f", n, n, n, n, n, n}},
      {"float 1.5f", 1.5F, {n, n, n, n, n, n, n, "1.5", "1.5f", n, n, n, n, n, n}},
      {"long double 0.5", 0.5L, {n, n, n, n, n, n, n, "0.5", "0.5f", n, n, n, n, n, n}},
      // A bool or a character is its own type only.
      {"bool true", true, {n, n, n, n, n, n, n, n, n, "true", n, n, n, n, n}},  // an optional takes its own type
      {"char 'c'", 'c', {n, n, n, n, n, n, n, n, n, n, "'c'", n, n, n, n}},
      {"wchar_t L'w'", L'w', {n, n, n, n, n, n, n, n, n, n, n, duet::show(L'w'), n, n, n}},
      // A string literal, a std::string or a std::string_view: a string parameter; a literal
      // never a bool (a pointer converts to one).
      {"string literal", "ab", {n, n, n, n, n, n, n, n, n, n, n, n, "\"ab\"", "\"ab\"", n}},
      {"std::string", std::string("cd"), {n, n, n, n, n, n, n, n, n, n, n, n, "\"cd\"", n, n}},
      {"std::string_view", std::string_view("ef"), {n, n, n, n, n, n, n, n, n, n, n, n, n, "\"ef\"", n}},
      {"nothing", std::any(), {n, n, n, n, n, n, n, n, n, n, n, n, n, n, n}},
  };
  for (const Case& c : table) {
    const std::vector<std::string> got = row(c.value);
    ASSERT_EQ(got.size(), kParameters.size());
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], c.reads[k]) << c.given << " as " << kParameters[k];
  }
}

TEST(ScenarioArgs, AnArgumentThatDoesNotFitSaysWhatItIsAndWhatWasWanted) {
  EXPECT_EQ(duet::detail::scenario_arg_error("push", 0, std::any(2.5), "int"),
            "argument 1 of the scenario's call of push is a double, and push takes a int there (an integer converts "
            "to any integer type that holds it and any number to a floating type; a bool or a character takes only "
            "its own type; a string literal converts to a string)");
  EXPECT_EQ(duet::detail::scenario_arity_error("push", 1, 1), "");
  EXPECT_EQ(duet::detail::scenario_arity_error("push", 2, 1),
            "the scenario calls push with 2 arguments, and it takes 1 argument");
}

TEST(ScenarioArgs, ArgumentsPrintAsCpp) {
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(3)), "3");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(std::uint8_t{9})), "9u");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any("a0")), "\"a0\"");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(std::string("b"))), "\"b\"");
  EXPECT_EQ(duet::detail::scenario_arg_cpp(std::any(std::vector<int>{})), "<std::vector<int, std::allocator<int> >>");
}

// What a draft test prints for a parameter binds back to it: the types whose values print as
// such arguments.
static_assert(duet::detail::scenario_literal_type<int> && duet::detail::scenario_literal_type<std::uint8_t> &&
              duet::detail::scenario_literal_type<char> && duet::detail::scenario_literal_type<std::string>);
static_assert(!duet::detail::scenario_literal_type<wchar_t> && !duet::detail::scenario_literal_type<char32_t> &&
              !duet::detail::scenario_literal_type<std::string_view>);

}  // namespace
