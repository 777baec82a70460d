// Standard containers are not safe for concurrent use. Each binding below keeps the race to a
// wrong result rather than undefined behaviour that crashes: vectors have their capacity
// reserved (no reallocation), hash maps their buckets (no rehash). The budgets are generous:
// on an idle machine each race shows within a second, but on a loaded one the two threads are
// rarely on the CPU at the same moment (these tests also run alone under ctest -j: SERIAL).
#include <duet/gtest.hpp>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace {

std::unique_ptr<std::vector<int>> reserved_vector() {
  auto v = std::make_unique<std::vector<int>>();
  v->reserve(1024);
  return v;
}

// The candidate as its own oracle: no model at all.
TEST(NegativeStd, VectorPushBackIsUnsafeWithNoModel) {
  auto lin = duet::Lin<std::vector<int>>("std::vector", "v")
                 .init(reserved_vector, "std::vector<int> v; v.reserve(1024);")
                 .op(
                     "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::integers(0, 9))
                 .op("size", [](std::vector<int>& v) { return v.size(); })
                 .op("back", [](std::vector<int>& v) { return v.empty() ? -1 : v.back(); });
  const duet::CheckResult r = duet::expect_unsafe(lin);
  EXPECT_TRUE(r) << r.report;
}

std::unique_ptr<std::unordered_map<int, int>> reserved_map() {
  auto m = std::make_unique<std::unordered_map<int, int>>();
  m->reserve(1024);
  return m;
}

TEST(NegativeStd, UnorderedMapInsertIsUnsafeWithNoModel) {
  auto lin = duet::Lin<std::unordered_map<int, int>>("std::unordered_map", "m")
                 .init(reserved_map, "std::unordered_map<int, int> m; m.reserve(1024);")
                 .op(
                     "insert",
                     [](std::unordered_map<int, int>& m, int k, int v) {
                       return m.insert({k, v}).second;
                     },
                     duet::integers(0, 3), duet::integers(0, 9))
                 .op(
                     "find",
                     [](std::unordered_map<int, int>& m, int k) {
                       auto it = m.find(k);
                       return it == m.end() ? std::optional<int>() : std::optional<int>(it->second);
                     },
                     duet::integers(0, 3))
                 .op("size", [](std::unordered_map<int, int>& m) { return m.size(); });
  const duet::CheckResult r = duet::expect_unsafe(lin);
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
