// What the instrumented tests share: a parallel check's settings on fibers, a seeded config, and
// the negative tests' measure: a bug found on every seed with every strategy, shrunk, and
// replayed to the same interleaving; its correct twin passing.
#pragma once

#include <duet/config.hpp>
#include <duet/detail/lin_y_steps.hpp>
#include <duet/executor.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include "engine/fiber_bridge.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace instrumented_test {

/// Calls into uninstrumented libraries are seen (and named in a pass) on x86-64 with glibc only.
#if defined(__x86_64__) && defined(__GLIBC__)
inline constexpr bool kCallsSeen = true;
#else
inline constexpr bool kCallsSeen = false;
#endif

inline duet::ParallelConfig on_fibers(duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  return pc;
}

/// Programs without a prefix or suffix: every call on a branch's fiber. For subjects whose
/// failures these tests want between branches only (a call of the prefix runs on the trial's
/// own fiber, before the branches start).
inline duet::ParallelConfig every_call_on_a_fiber() {
  duet::ParallelConfig pc = on_fibers();
  pc.prefix_length = 0;
  pc.suffix_length = 0;
  return pc;
}

/// Seed `seed`; `count` programs when nonzero, else the check's default budget.
inline duet::Config seeded(std::uint64_t seed, std::uint64_t count = 0) {
  duet::Config c;
  c.seed = seed;
  if (count != 0) c.count = count;
  return c;
}

/// Seeds per strategy: 100 (the figure docs/instrumented.md gives) with DUET_SOAK=1, else 20.
inline std::uint64_t seeds() { return std::getenv("DUET_SOAK") != nullptr ? 100 : 20; }

/// Programs a correct twin passes: 10,000 with DUET_SOAK=1, else `quick`.
inline std::uint64_t twin_programs(std::uint64_t quick = 1'000) {
  return std::getenv("DUET_SOAK") != nullptr ? 10'000 : quick;
}

/// The interleaving a failure's report shows, without the replay instructions that follow it.
inline std::string interleaving(const std::string& report) {
  const std::size_t at = report.find("interleaving (");
  return at == std::string::npos ? std::string() : report.substr(at, report.find("(The replay", at) - at);
}

/// A state-machine spec as the helpers below take it (a duet::Lin is taken as it is):
///   found_on_every_seed(Model<duet::models::Counter<RacyCounter>>{"RacyCounter"}, 3);
template <class Spec>
struct Model {
  std::string label;
};

template <class T>
std::string name_of(const duet::Lin<T>& lin) {
  return lin.name();
}
template <class Spec>
std::string name_of(const Model<Spec>& model) {
  return model.label;
}
template <class T>
duet::CheckResult unsafe(const duet::Lin<T>& lin, const duet::ParallelConfig& pc, const duet::Config& config) {
  return duet::expect_unsafe(lin, pc, config);
}
template <class Spec>
duet::CheckResult unsafe(const Model<Spec>&, const duet::ParallelConfig& pc, const duet::Config& config) {
  return duet::expect_unsafe<Spec>(pc, config);
}
template <class T>
duet::CheckResult parallel(const duet::Lin<T>& lin, const duet::ParallelConfig& pc, const duet::Config& config) {
  return duet::check_parallel(lin, pc, config);
}
template <class Spec>
duet::CheckResult parallel(const Model<Spec>&, const duet::ParallelConfig& pc, const duet::Config& config) {
  return duet::check_parallel<Spec>(pc, config);
}

/// Found on every seed with every strategy; the shrunk lengths (calls) are printed, and none
/// may exceed `longest`. `shape`: the programs' shape (its executor is set per strategy).
template <class Subject>
void found_on_every_seed(const Subject& subject, std::size_t longest, duet::ParallelConfig shape = {}) {
  const std::pair<const char*, duet::Schedule> strategies[] = {
      {"random", duet::random()}, {"pct(3)", duet::pct(3)}, {"exhaustive(2)", duet::exhaustive(2)}};
  for (const auto& [strategy, schedule] : strategies) {
    std::size_t shortest = ~std::size_t{0}, most = 0, found = 0;
    for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
      shape.executor = duet::fibers(schedule);  // a fresh one per check: strategies learn over a check's runs
      duet::Config config;
      config.seed = seed;
      config.verbose = -1;
      const duet::CheckResult r = unsafe(subject, shape, config);
      ASSERT_TRUE(r.passed()) << strategy << ", seed " << seed << "\n" << r.report;
      EXPECT_LE(r.failing_length, longest) << r.report;
      found += r.passed();
      shortest = std::min(shortest, r.failing_length);
      most = std::max(most, r.failing_length);
    }
    std::printf("%s, %s: found on %zu of %llu seeds, shrunk to %zu to %zu calls\n", name_of(subject).c_str(), strategy,
                found, static_cast<unsigned long long>(seeds()), shortest, most);
  }
  // The token replays the shrunk program with the same interleaving, step for step.
  shape.executor = duet::fibers(duet::random());
  duet::Config config;
  config.seed = 1;
  // A count, not the default second: fiber runs are deterministic, so the same programs find it
  // on any machine, an emulated one (make multiarch) too.
  config.count = 5'000;
  const duet::CheckResult first = parallel(subject, shape, config);
  ASSERT_FALSE(first.passed()) << first.report;
  duet::Config replay;
  replay.replay = first.replay_token;
  shape.executor = duet::fibers(duet::random());
  const duet::CheckResult again = parallel(subject, shape, replay);
  ASSERT_FALSE(again.passed()) << again.report;
  EXPECT_FALSE(interleaving(first.report).empty()) << first.report;
  EXPECT_EQ(interleaving(first.report), interleaving(again.report));
}

/// What the report of a failure on threads says of its program on fibers
/// (src/engine/fiber_bridge.cpp), for the program `subject`'s check on fibers finds with seed
/// `seed`: a failure on threads carries its program in its token's choices, as the fiber
/// check's token does (the fiber search reads the program and draws the schedules afresh).
template <class T>
std::string fiber_search_of(const duet::Lin<T>& lin, std::uint64_t seed, duet::Config config = {}) {
  config.seed = seed;
  config.verbose = -1;
  // A count, not the default second, unless the caller gives a budget: fiber runs are
  // deterministic, so the same programs find it on any machine, an emulated one too (under
  // qemu-s390x the second ran out before the relaxed publication's program).
  if (!config.count && !config.time) config.count = 5'000;
  const duet::CheckResult found = duet::check_parallel(lin, on_fibers(), config);
  EXPECT_FALSE(found.passed()) << found.report;
  duet::CheckResult on_threads;
  on_threads.status = duet::CheckResult::Status::failed;
  on_threads.replay_token = found.replay_token;
  const duet::detail::Property threads =
      duet::detail::lin_parallel_property(lin, duet::detail::LinMode::oracle, duet::ParallelConfig{});
  return duet::detail::search_on_fibers(threads, duet::detail::resolve(config, lin.name()), on_threads);
}

/// The fiber search reproduced the failure: its report is there, and its replay line (the
/// strategy's DUET_EXECUTOR and the token) fails again with the same interleaving.
template <class T>
void expect_fiber_trace(const duet::Lin<T>& lin, const std::string& text) {
  ASSERT_NE(text.find("on fibers:  the same program fails on the fiber scheduler, with"), std::string::npos) << text;
  const std::size_t setting = text.find("DUET_EXECUTOR=fibers:");
  const std::size_t token = text.find("DUET_REPLAY=", setting);
  ASSERT_NE(token, std::string::npos) << text;
  const std::string strategy = text.substr(setting + 21, text.find(' ', setting) - setting - 21);
  const duet::Schedule schedule = strategy == "pct"          ? duet::pct()
                                  : strategy == "exhaustive" ? duet::exhaustive()
                                                             : duet::random();
  duet::Config replay;
  replay.replay = text.substr(token + 12, text.find('\n', token) - token - 12);
  replay.verbose = -1;
  const duet::CheckResult again = duet::check_parallel(lin, on_fibers(schedule), replay);
  ASSERT_FALSE(again.passed()) << again.report;
  EXPECT_FALSE(interleaving(text).empty()) << text;
  // The bridge's report is indented under the threads report's.
  std::string shown = interleaving(text), replayed = interleaving(again.report);
  shown.erase(std::remove(shown.begin(), shown.end(), ' '), shown.end());
  replayed.erase(std::remove(replayed.begin(), replayed.end(), ' '), replayed.end());
  EXPECT_EQ(shown, replayed) << text << "\n" << again.report;
}

/// Passes twin_programs(`quick`) programs on fibers, random strategy, seed 1.
template <class Subject>
void twin_passes(const Subject& subject, duet::ParallelConfig shape = {}, std::uint64_t quick = 1'000) {
  shape.executor = duet::fibers(duet::random());
  duet::Config config;
  config.seed = 1;
  config.count = twin_programs(quick);
  const duet::CheckResult r = parallel(subject, shape, config);
  EXPECT_TRUE(r.passed()) << r.report;
}

}  // namespace instrumented_test
