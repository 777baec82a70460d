#include "execute/trial_progress.hpp"

#include <utility>

namespace duet::detail {

namespace {
constinit thread_local TrialProgressScope* t_scope = nullptr;
}  // namespace

TrialProgressScope::TrialProgressScope(Reporter reporter) : reporter_(std::move(reporter)), saved_(t_scope) {
  t_scope = this;
}
TrialProgressScope::~TrialProgressScope() { t_scope = saved_; }

void trial_progress(std::uint64_t trials) {
  TrialProgressScope* const s = t_scope;
  if (s == nullptr) return;
  // A new case: its search, if any, reports again.
  if (trials <= 1) s->now_ = TrialProgress{};
  s->now_.trials = trials;
  s->reporter_(s->now_);
}

void search_progress(std::uint64_t runs, double runs_in_all) {
  if (TrialProgressScope* const s = t_scope) {
    s->now_.runs = runs;
    s->now_.runs_in_all = runs_in_all;
  }
}

}  // namespace duet::detail
