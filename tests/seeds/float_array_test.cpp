// qcheck-stm's Float.Array example in C++: a std::vector<double> of 12 entries, initialised to
// 1.0, with set (bounds-checked), sort and to_list, against a list model.
#include <duet/gtest.hpp>

#include <algorithm>
#include <list>
#include <stdexcept>
#include <variant>
#include <vector>

namespace {

constexpr std::size_t kSize = 12;

struct FloatArray {
  std::vector<double> v = std::vector<double>(kSize, 1.0);
  void set(std::size_t i, double x) { v.at(i) = x; }  // throws std::out_of_range
  void sort() { std::sort(v.begin(), v.end()); }
  std::vector<double> to_list() const { return v; }
};

struct Set {
  std::size_t i;
  double x;
};
struct Sort {};
struct ToList {};
std::string duet_show(const Set& s) { return "set(" + std::to_string(s.i) + ", " + duet::show(s.x) + ")"; }
std::string duet_show(const Sort&) { return "sort()"; }
std::string duet_show(const ToList&) { return "to_list()"; }

template <class Array>
struct FloatArraySpec {
  using Sut = Array;
  using State = std::list<double>;
  using Cmd = std::variant<Set, Sort, ToList>;
  static constexpr const char* sut_name = "fa";
  static State init_state() { return State(kSize, 1.0); }

  // Indices in bounds 7 times in 8, as in the qcheck-stm original; otherwise small numbers
  // that may be out of bounds.
  static duet::Gen<Cmd> command(const State&) {
    static const auto index = duet::frequency<std::size_t>(
        {{7, duet::integers<std::size_t>(0, kSize - 1)}, {1, duet::integers<std::size_t>(0, 100)}});
    static const duet::Gen<Cmd> gen =
        duet::one_of(duet::construct<Set>(index, duet::reals(-1000, 1000)).map([](Set s) { return Cmd(s); }),
                     duet::just(Cmd(Sort{})), duet::just(Cmd(ToList{})));
    return gen;
  }
  static duet::Result run(const Cmd& c, Sut& a) {
    if (auto* s = std::get_if<Set>(&c)) return duet::capture([&] { a.set(s->i, s->x); });
    if (std::holds_alternative<Sort>(c)) return duet::capture([&] { a.sort(); });
    return a.to_list();
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (auto* st = std::get_if<Set>(&c)) {
      if (st->i >= s.size()) return duet::Result::threw<std::out_of_range>();
      return {};
    }
    if (std::holds_alternative<Sort>(c)) return {};
    return std::vector<double>(s.begin(), s.end());
  }
  static void next(const Cmd& c, State& s) {
    if (auto* st = std::get_if<Set>(&c)) {
      if (st->i < s.size()) *std::next(s.begin(), static_cast<std::ptrdiff_t>(st->i)) = st->x;
    } else if (std::holds_alternative<Sort>(c)) {
      s.sort();
    }
  }
};

TEST(FloatArraySeeds, StdVectorAgreesWithListModelOn10000Cases) {
  const duet::CheckResult r = duet::check_sequential<FloatArraySpec<FloatArray>>({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

// A candidate whose set() skips the bounds check and clamps instead: it returns normally
// where the model expects std::out_of_range.
struct ClampingFloatArray : FloatArray {
  void set(std::size_t i, double x) { v[std::min(i, kSize - 1)] = x; }
};

TEST(FloatArraySeeds, MissingExceptionIsADisagreement) {
  const duet::CheckResult r = duet::check_sequential<FloatArraySpec<ClampingFloatArray>>({.seed = 7});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  EXPECT_NE(r.report.find("candidate returned (void); the model expects it to throw std::out_of_range"), std::string::npos)
      << r.report;
}

}  // namespace
