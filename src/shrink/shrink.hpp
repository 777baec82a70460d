// Shrinking by reducing recorded choices and replaying them (internal reduction, as in
// Hypothesis): generators need no shrinkers of their own, and every replay re-runs the
// front end's generation, so preconditions and state-dependent commands hold by
// construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/word_order.hpp"
#include "duet/source.hpp"

namespace duet::detail {

/// What a replay of candidate choices did.
struct Replayed {
  bool fails = false;                              // still fails: the candidate is acceptable if smaller
  std::vector<std::uint64_t> consumed;             // the choices actually drawn (the new case)
  std::vector<Source::Span> spans;                 // command boundaries within them
  std::size_t concurrent_start = Source::kNoMark;  // see Source::mark_concurrent_start
  std::uint64_t trials = 0;                        // parallel runner: program runs over all attempts
  int attempts = 0;                                // replays of the case made
};
using Replay = std::function<Replayed(const std::vector<std::uint64_t>&)>;

struct ShrinkBudget {
  std::uint64_t max_tries = 100000;
  std::chrono::steady_clock::duration max_time = std::chrono::seconds(30);
};

/// Why shrinking ended: nothing smaller failed (a local minimum of every pass), or a budget
/// ran out first (the case may not be minimal).
enum class ShrinkStop : unsigned char { fixed_point, step_budget, time_budget };

struct ShrinkOutcome {
  std::vector<std::uint64_t> choices;  // the smallest failing case found
  std::uint64_t accepted = 0;          // shrink steps taken
  std::uint64_t tried = 0;             // replays run
  ShrinkStop stop = ShrinkStop::fixed_point;
};

/// Shrinks a failing case. "Smaller" is: fewer choices; then fewer of them in the concurrent
/// part (after Source::mark_concurrent_start); then lexicographically lower.
/// Told of each case the shrinker keeps (isolation mode records it where a crash cannot lose it).
using OnAccept = std::function<void(const std::vector<std::uint64_t>& choices, const std::vector<Source::Span>& spans,
                                    std::size_t concurrent_start)>;

ShrinkOutcome shrink(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
                     const ShrinkBudget& budget, std::size_t concurrent_start = Source::kNoMark,
                     const OnAccept& on_accept = {});

/// The order shrinking decreases: a (with its concurrent mark) is smaller than b.
bool shrink_smaller(const std::vector<std::uint64_t>& a, std::size_t a_mark, const std::vector<std::uint64_t>& b,
                    std::size_t b_mark);

/// a comes before b in shortlex order.
bool shortlex_less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);

/// Choice sequences in lexicographic order, element by element (engine/word_order.hpp: never
/// std::vector's operator<), as a map's comparator.
using ChoicesLess = WordsLess;

}  // namespace duet::detail
