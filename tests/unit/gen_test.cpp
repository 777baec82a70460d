#include "shrink/shrink.hpp"
#include <duet/gen.hpp>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <optional>
#include <memory>

namespace {

template <class T>
std::vector<T> sample(const duet::Gen<T>& g, int n, std::uint64_t seed = 1) {
  std::vector<T> out;
  for (int i = 0; i < n; ++i) {
    auto s = duet::Source::from_seed(seed + static_cast<std::uint64_t>(i));
    out.push_back(g(s));
  }
  return out;
}

template <class T>
T simplest(const duet::Gen<T>& g) {
  auto s = duet::Source::replay({});
  return g(s);
}

TEST(Gen, IntegersStayInRangeAndHitTheEdges) {
  const auto xs = sample(duet::integers(-5, 1000), 4000);
  std::set<int> seen(xs.begin(), xs.end());
  EXPECT_GE(*seen.begin(), -5);
  EXPECT_LE(*seen.rbegin(), 1000);
  for (int edge : {-5, -4, -1, 0, 1, 999, 1000}) EXPECT_TRUE(seen.count(edge)) << edge;
}

TEST(Gen, FullRangeIntegersHitMinAndMax) {
  const auto xs = sample(duet::arbitrary<std::int64_t>(), 2000);
  std::set<std::int64_t> seen(xs.begin(), xs.end());
  EXPECT_TRUE(seen.count(INT64_MIN));
  EXPECT_TRUE(seen.count(INT64_MAX));
  EXPECT_TRUE(seen.count(0));
}

TEST(Gen, SimplestValuesAreZeroOrTheNearestEnd) {
  EXPECT_EQ(simplest(duet::integers(-5, 5)), 0);
  EXPECT_EQ(simplest(duet::integers(3, 9)), 3);
  EXPECT_EQ(simplest(duet::integers(-9, -3)), -3);
  EXPECT_EQ(simplest(duet::reals(-2.5, 7)), 0.0);
  EXPECT_TRUE(simplest(duet::vectors(duet::small_int(), 0, 10)).empty());
  EXPECT_EQ(simplest(duet::vectors(duet::small_int(), 2, 10)).size(), 2u);
  EXPECT_EQ(simplest(duet::strings()), "");
  EXPECT_EQ(simplest(duet::optionals(duet::small_int())), std::nullopt);
  EXPECT_EQ(simplest(duet::one_of(duet::just(7), duet::just(8))), 7);
  EXPECT_EQ(simplest(duet::element_of({'x', 'y'})), 'x');
  EXPECT_FALSE(simplest(duet::booleans()));
}

TEST(Gen, LoweringAChoiceMovesTowardTheTarget) {
  // In the uniform mode (choice 4..12), value choice r maps to 0, 1, ..., hi, then -1, -2, ...
  auto s = duet::Source::replay({5, 3});
  EXPECT_EQ(duet::integers(-10, 10)(s), 3);
  auto t = duet::Source::replay({5, 12});
  EXPECT_EQ(duet::integers(-10, 10)(t), -2);
}

TEST(Gen, CombinatorsCompose) {
  const auto evens = duet::range(0, 50).map([](int x) { return 2 * x; });
  for (int x : sample(evens, 200)) EXPECT_EQ(x % 2, 0);
  const auto odd = duet::range(0, 50).filter([](int x) { return x % 2 == 1; });
  for (int x : sample(odd, 200)) EXPECT_EQ(x % 2, 1);
  const auto sized = duet::range(1, 5).bind(
      [](int n) { return duet::vectors(duet::range(0, 9), static_cast<std::size_t>(n), static_cast<std::size_t>(n)); });
  for (const auto& v : sample(sized, 200)) EXPECT_TRUE(v.size() >= 1 && v.size() <= 5);
  const auto weighted = duet::frequency<int>({{9, duet::just(1)}, {1, duet::just(2)}});
  int ones = 0;
  for (int x : sample(weighted, 1000)) ones += x == 1;
  EXPECT_GT(ones, 800);
  EXPECT_LT(ones, 980);
  const auto v = duet::variants(duet::just(1), duet::just(std::string("s")));
  std::set<std::size_t> idx;
  for (const auto& x : sample(v, 100)) idx.insert(x.index());
  EXPECT_EQ(idx.size(), 2u);
  const auto t = duet::tuple_of(duet::just(1), duet::booleans());
  EXPECT_EQ(std::get<0>(sample(t, 1)[0]), 1);
}

TEST(Gen, FilterThatNeverSucceedsDiscards) {
  const auto never = duet::range(0, 9).filter([](int) { return false; });
  auto s = duet::Source::from_seed(1);
  EXPECT_THROW(never(s), duet::Discard);
}

TEST(Gen, StringsAreWithinLengthAndPrintable) {
  for (const auto& s : sample(duet::strings(2, 6), 300)) {
    EXPECT_GE(s.size(), 2u);
    EXPECT_LE(s.size(), 6u);
    for (char c : s) EXPECT_TRUE(c >= 32 && c < 127);
  }
}

TEST(Gen, SequentialCountsPerCaseAndPerGenerator) {
  const auto a = duet::sequential(), b = duet::sequential();
  auto s = duet::Source::from_seed(1);
  EXPECT_EQ(a(s), 0);
  EXPECT_EQ(a(s), 1);
  EXPECT_EQ(b(s), 0);
  EXPECT_EQ(a(s), 2);
  auto t = duet::Source::from_seed(2);  // a new case starts over
  EXPECT_EQ(a(t), 0);
}

TEST(Gen, EmptyRangesAreRejected) {
  EXPECT_THROW(duet::integers(3, 2), std::invalid_argument);
  EXPECT_THROW(duet::element_of(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(duet::frequency<int>({{0, duet::just(1)}}), std::invalid_argument);
}

}  // namespace

namespace {

TEST(Gen, RealsStayInTheirRange) {
  struct Range {
    double lo, hi;
  };
  for (Range r : {Range{0.1, 0.2}, Range{1e20, 1e21}, Range{-1e300, 1e300}, Range{-DBL_MAX, DBL_MAX}, Range{-3, -3}}) {
    for (double x : sample(duet::reals(r.lo, r.hi), 500)) {
      EXPECT_GE(x, r.lo) << r.lo << " " << r.hi;
      EXPECT_LE(x, r.hi) << r.lo << " " << r.hi;
    }
  }
  EXPECT_THROW(duet::reals(1, 0), std::invalid_argument);
  EXPECT_THROW(duet::reals(0, INFINITY), std::invalid_argument);
}

TEST(Gen, EdgeValuesShrinkTowardTheTarget) {
  // A property failing on any negative int: whatever edge the search hit (INT_MIN often), the
  // shrunk value is -1.
  auto negative = [](const std::vector<std::uint64_t>& c) {
    auto s = duet::Source::replay(c);
    const int x = duet::arbitrary<int>()(s);
    return duet::detail::Replayed{x < 0, s.choices(), s.spans()};
  };
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto s = duet::Source::from_seed(seed);
    if (duet::arbitrary<int>()(s) >= 0) continue;
    const auto out = duet::detail::shrink(s.choices(), {}, negative, {});
    auto r = duet::Source::replay(out.choices);
    EXPECT_EQ(duet::arbitrary<int>()(r), -1) << "seed " << seed;
  }
}

TEST(Gen, ChanceIsFalseWhenShrunk) {
  auto s = duet::Source::replay({});
  EXPECT_FALSE(s.chance(1, 4));
  EXPECT_FALSE(s.chance(3, 4));
  int yes = 0;
  auto r = duet::Source::from_seed(3);
  for (int i = 0; i < 4000; ++i) yes += r.chance(1, 4);
  EXPECT_GT(yes, 850);
  EXPECT_LT(yes, 1150);
}

// A generator that keeps `alive` alive for as long as it lives.
duet::Gen<int> holding(const std::shared_ptr<int>& alive) {
  return [alive](duet::Source&) { return *alive; };
}

// Inside a DeferredGenReleases scope the last release of a generator is put off to the end of
// the scope (or until another generator's is held back), and a copy takes a held reference
// over: the generator lives exactly as long as some reference or the scope does.
TEST(GenReferences, ReleasesHeldBackInAScopeEndWithIt) {
  auto token = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = token;
  {
    const duet::detail::DeferredGenReleases deferred;
    {
      const duet::Gen<int> g = holding(token);
      token.reset();
      for (int i = 0; i < 10; ++i) {
        const duet::Gen<int> copy = g;  // takes over the reference the last copy held back
        auto src = duet::Source::from_seed(1);
        EXPECT_EQ(copy(src), 7);
      }
    }
    EXPECT_FALSE(watch.expired());  // the last release is held back
    {
      auto other = std::make_shared<int>(8);
      const std::weak_ptr<int> watch_other = other;
      { const duet::Gen<int> g = holding(other); }  // holding this one gives up the first
      other.reset();
      EXPECT_TRUE(watch.expired());
      EXPECT_FALSE(watch_other.expired());
    }
  }
  auto last = std::make_shared<int>(9);
  const std::weak_ptr<int> watch_last = last;
  { const duet::Gen<int> g = holding(last); }
  last.reset();
  EXPECT_TRUE(watch_last.expired());  // outside any scope, released at once
}

// A generator that holds another, given up while the scope ends; and scopes nest.
TEST(GenReferences, NestedScopesAndGeneratorsInsideGenerators) {
  auto token = std::make_shared<int>(3);
  const std::weak_ptr<int> watch = token;
  {
    const duet::detail::DeferredGenReleases outer;
    {
      const duet::detail::DeferredGenReleases inner;
      const duet::Gen<int> mapped = holding(token).map([](int x) { return x + 1; });
      token.reset();
      auto src = duet::Source::from_seed(1);
      EXPECT_EQ(mapped(src), 4);
    }
    EXPECT_FALSE(watch.expired());  // the inner scope's end gives nothing up
  }
  EXPECT_TRUE(watch.expired());
}

// Another thread's copies count atomically while this thread holds references back: the
// generator outlives them all and dies once (a premature delete fails under the sanitizers).
TEST(GenReferences, CopiesOnOtherThreadsCountWhileOneThreadHoldsBack) {
  auto token = std::make_shared<int>(5);
  const std::weak_ptr<int> watch = token;
  duet::Gen<int> shared = holding(token);
  token.reset();
  auto copy_often = [&shared](bool defer) {
    std::optional<duet::detail::DeferredGenReleases> deferred;
    if (defer) deferred.emplace();
    long sum = 0;
    for (int i = 0; i < 20000; ++i) {
      const duet::Gen<int> copy = shared;
      auto src = duet::Source::from_seed(1);
      sum += copy(src);
    }
    return sum;
  };
  long other_sum = 0;
  std::thread other([&] { other_sum = copy_often(false); });
  const long own_sum = copy_often(true);
  other.join();
  EXPECT_EQ(own_sum, 5 * 20000);
  EXPECT_EQ(other_sum, 5 * 20000);
  EXPECT_FALSE(watch.expired());
  shared = duet::just(0);
  EXPECT_TRUE(watch.expired());
}

}  // namespace
