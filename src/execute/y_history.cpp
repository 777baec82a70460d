// A Y-program trial's calls as the search core reads them: the history handed to the search,
// who made each call, whether the branches' calls overlapped and on how many CPUs; the noise on
// threads, with the timed spin it runs before each branch call inside the trial; and the
// consistency's name that verdict lines use.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <sched.h>

#include "duet/detail/fiber_hooks.hpp"  // fiber::current
#include "duet/parallel.hpp"

namespace duet::detail {

namespace {
constexpr std::size_t kMaxCpusCounted = 16;  // at most 8 branches of 4 calls: plenty
}

std::vector<TimedOp> y_history(const YShape& shape, const std::vector<Observed>& observed) {
  std::vector<TimedOp> ops(observed.size());
  std::size_t i = 0;
  for (; i < shape.prefix; ++i) ops[i] = {0, observed[i].invoke, observed[i].response, 0};
  for (std::size_t b = 0; b < shape.branches.size(); ++b)
    for (std::size_t k = 0; k < shape.branches[b]; ++k, ++i)
      ops[i] = {static_cast<std::uint32_t>(1 + b), observed[i].invoke, observed[i].response, 1};
  for (; i < observed.size(); ++i) ops[i] = {0, observed[i].invoke, observed[i].response, 2};
  return ops;
}

std::vector<Caller> callers_of(const YShape& shape) {
  std::vector<Caller> callers(shape.size());
  for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b)
    for (std::size_t k = 0; k < shape.branches[b]; ++k) callers[at + k].thread = b + 1;
  return callers;
}

void clear_observed(std::vector<Observed>& observed, const YShape& shape) { observed.assign(shape.size(), Observed{}); }

int current_cpu() noexcept {
  if (fiber::current()) return -1;
  return sched_getcpu();
}

TrialOverlap trial_overlap(const YShape& shape, const std::vector<Observed>& observed) {
  TrialOverlap t;
  int cpus[kMaxCpusCounted];
  std::size_t n_cpus = 0;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // each branch's calls in `observed`
  // Front ends that check the prefix as it runs observe the branch calls only.
  const std::size_t first = observed.size() >= shape.size() ? shape.prefix : 0;
  for (std::size_t b = 0, at = first; b < shape.branches.size(); at += shape.branches[b], ++b)
    ranges.emplace_back(at, at + shape.branches[b]);
  for (std::size_t b = 0; b < ranges.size(); ++b) {
    for (std::size_t i = ranges[b].first; i < ranges[b].second && i < observed.size(); ++i) {
      const Observed& x = observed[i];
      if (x.cpu >= 0 && n_cpus < kMaxCpusCounted && std::find(cpus, cpus + n_cpus, x.cpu) == cpus + n_cpus)
        cpus[n_cpus++] = x.cpu;
      for (std::size_t c = b + 1; c < ranges.size() && !t.overlapped; ++c)
        for (std::size_t j = ranges[c].first; j < ranges[c].second && j < observed.size(); ++j)
          if (x.invoke < observed[j].response && observed[j].invoke < x.response) {
            t.overlapped = true;
            break;
          }
    }
  }
  t.cpus = n_cpus;
  return t;
}

namespace {
// Spins for about `ns` nanoseconds (a few cycles when tiny): timed, so that the delays mean the
// same on fast and slow machines.
void spin_for(std::uint64_t ns) {
  if (ns < 32) {
    for (std::uint64_t i = 0; i < ns; ++i) asm volatile("" ::: "memory");
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}
}  // namespace

void Noise::before_call(std::size_t call) const {
  if (level == 0) return;
  std::uint64_t h = mix64(seed ^ mix64(trial * 0x9e3779b97f4a7c15ULL + call + 1));
  const unsigned pick = h & 7;
  h >>= 3;
  if (pick < 3) return;  // 3 in 8: straight on
  if (pick == 7 && yields) {
    // Branches that share a CPU meet between calls only if one gives the CPU away.
    sched_yield();
    return;
  }
  // A length spread over orders of magnitude (0 to 2^max_log ns), so that short racy windows
  // and whole calls both get shifted across. Longer delays were measured to hurt: on a loaded
  // machine each one costs the trial rate more than it adds variety.
  const unsigned max_log = 4 + 4 * level;
  const unsigned lg = static_cast<unsigned>(h % (max_log + 1));
  h >>= 8;
  spin_for(h & ((std::uint64_t{1} << lg) - 1));
}

std::string Noise::describe() const {
  if (level == 0) return {};
  static constexpr const char* kMax[] = {"", "0.25 µs", "4 µs"};
  return std::string("random delays of up to ") + kMax[std::min(level, kLevels)] + " before the branches' calls" +
         (yields ? ", and yields" : "") + " (noise level " + std::to_string(level) + " of " + std::to_string(kLevels) + ")";
}

std::string consistency_name(Consistency c) {
  return c == Consistency::linearizable ? "linearizable" : "sequentially consistent";
}

}  // namespace duet::detail
