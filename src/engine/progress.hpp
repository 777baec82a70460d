// One progress line for every mode and stage, on stderr: silent for the first two seconds
// (a unit-test run takes about one), then one line a second, so a long search or shrink is
// never mistaken for a hang.
//   duet: Queue: searching: 1234 cases, 2.0 s of 10 s, 617 cases/s
//   duet: Queue: shrinking: 40 shrink steps in 812 replays, smallest failing case 17 choices (from 96), 2.0 s of 30 s
#pragma once

#include <cstdio>
#include <string>

#include "engine/clock.hpp"
#include "show/text.hpp"

namespace duet::detail {

class Progress {
 public:
  Progress(const std::string& name, int verbose) : name_(name), quiet_(verbose < 0) { restart(); }
  void restart() {
    start_ = Clock::now();
    next_ = start_ + std::chrono::seconds(2);
  }
  // Asked once per case or replay: the coarse clock (a line is due within a tick of its second).
  bool due() const { return !quiet_ && coarse_now() >= next_; }
  // "2.0 s of 10 s", or "2.0 s" with no time budget.
  std::string elapsed(double budget) const {
    if (budget > 0) return printf_string("%.1f s of %g s", since(start_), budget);
    return printf_string("%.1f s", since(start_));
  }
  double seconds() const { return since(start_); }
  void print(const std::string& stage, const std::string& what) {
    std::fprintf(stderr, "duet: %s: %s: %s\n", name_.c_str(), stage.c_str(), what.c_str());
    next_ = Clock::now() + std::chrono::seconds(1);
  }

 private:
  std::string name_;
  bool quiet_;
  Clock::time_point start_, next_;
};

}  // namespace duet::detail
