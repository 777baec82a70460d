// Helpers shared by the fiber tests: running branch lambdas under a seeded random picker, and
// pickers with fixed policies.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "duet/source.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::fibertest {

namespace fb = duet::detail::fiber;
using Branches = std::vector<std::function<void()>>;

/// Runs the branches once with random picks from `seed`; `choices` receives the draws made.
inline const fb::RunResult& run_seed(fb::Scheduler& s, const Branches& branches, std::uint64_t seed,
                                     std::vector<std::uint64_t>* choices = nullptr) {
  Source src = Source::from_seed(seed);
  fb::RandomPicker picker(src);
  const fb::RunResult& r = s.run(branches, picker);
  if (choices) *choices = src.choices();
  return r;
}

/// Runs the branches once replaying `choices` (past their end, every draw is 0).
inline const fb::RunResult& run_replay(fb::Scheduler& s, const Branches& branches, std::vector<std::uint64_t> choices) {
  Source src = Source::replay(std::move(choices));
  fb::RandomPicker picker(src);
  return s.run(branches, picker);
}

/// Preempts at every switch point: always runs another fiber when there is one.
class AlternatingPicker final : public fb::Picker {
 public:
  std::size_t pick(const fb::PickContext& ctx) override { return ctx.current_continues ? 1 : 0; }
};

inline std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace duet::fibertest
