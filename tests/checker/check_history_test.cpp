// check_history's parts (src/check/check_history.cpp): more parts than cores take turns on them.
#include <duet/history.hpp>
#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace {

using namespace duet::history;

// A kv key whose search runs for seconds: 22 appends of one text at once, then a get that reads
// one more than they can have made (every order of them is tried).
std::string slow_key(const std::string& key, int first_process) {
  std::string h;
  for (int p = 0; p < 22; ++p)
    h += "{:process " + std::to_string(first_process + p) + ", :type :invoke, :f :append, :key \"" + key +
         "\", :value \"a\"}\n";
  for (int p = 0; p < 22; ++p)
    h += "{:process " + std::to_string(first_process + p) + ", :type :ok, :f :append, :key \"" + key + "\", :value \"a\"}\n";
  const int reader = first_process + 22;
  h += "{:process " + std::to_string(reader) + ", :type :invoke, :f :get, :key \"" + key + "\", :value nil}\n";
  h += "{:process " + std::to_string(reader) + ", :type :ok, :f :get, :key \"" + key + "\", :value \"" +
       std::string(23, 'a') + "\"}\n";
  return h;
}

TEST(CheckParts, AFailingPartAfterMorePartsThanCoresThatSearchForLongIsFoundAtOnce) {
  // As many slow keys as cores and one more, then a key that fails in a few steps: a core that
  // ran whole parts would reach it only after a slow one ended (seconds each), while parts
  // taking turns reach it within a turn of each.
  const unsigned slow = std::min(std::max(1u, std::thread::hardware_concurrency()) + 1, 15u);
  std::string text;
  for (unsigned k = 0; k < slow; ++k) text += slow_key("slow" + std::to_string(k), static_cast<int>(k) * 100);
  text += "{:process 9000, :type :invoke, :f :put, :key \"fast\", :value \"x\"}\n"
          "{:process 9000, :type :ok, :f :put, :key \"fast\", :value \"x\"}\n"
          "{:process 9000, :type :invoke, :f :get, :key \"fast\", :value nil}\n"
          "{:process 9000, :type :ok, :f :get, :key \"fast\", :value \"y\"}\n";
  const History h = parse_history(text, Format::automatic, "slow-keys.txt");
  CheckOptions options;
  options.timeout_seconds = 120;  // the slow keys alone: each would take seconds, many together minutes
  options.failing_window = false;
  const CheckReport r = check_history(h, options);
  ASSERT_EQ(r.verdict, Verdict::not_linearizable) << r.explanation;
  EXPECT_EQ(r.partitions, slow + 1);
  ASSERT_TRUE(r.stuck.has_value());
  EXPECT_EQ(h.ops[*r.stuck].key->text, "fast");
  // Each slow part searched a turn or a few (about 8,000 steps each) before the fast one failed.
  EXPECT_LT(r.nodes, 2'000'000u) << r.nodes;
}

}  // namespace
