// Signature-only descriptions (the qcheck-lin shape): one subject type, its operations with
// argument generators, and no model at all. Sequentially there is no oracle, so the stress
// mode checks what needs none: exceptions, crashes, hangs and invariants. Under threads (the
// parallel runner) the candidate becomes its own oracle, run sequentially on fresh instances.
//
//   auto lin = duet::Lin<std::vector<int>>("vector", "v")
//       .op("push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::small_int())
//       .op("size", [](std::vector<int>& v) { return v.size(); })
//       .op("at", [](std::vector<int>& v, std::size_t i) { return v.at(i); }, duet::integers<std::size_t>(0, 9))
//       .may_throw()
//       .invariant([](const std::vector<int>& v) { return v.size() <= v.capacity(); });
//   EXPECT_TRUE(lin.check_stress());
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/scenario.hpp"
#include "duet/show.hpp"
#include "duet/state_machine.hpp"

#include "duet/detail/lin_description.hpp"

namespace duet {

/// A signature-only description: build it with op (and init, reset, may_throw, invariant),
/// then check it with check_stress, or under threads with duet::check_parallel(lin),
/// duet::expect_unsafe(lin) or duet::stress_parallel(lin) (duet/parallel.hpp). Copies share
/// one description.
template <class T>
class Lin {
 public:
  /// `name` names the check; `var` is the subject's variable in reports.
  explicit Lin(std::string name = type_name<T>(), std::string var = "t")
      : data_(detail::new_lin_description(std::move(name), std::move(var), type_name<T>())) {
    if constexpr (std::is_default_constructible_v<T>)
      data_->make = []() -> std::unique_ptr<detail::LinSubject> { return std::make_unique<detail::LinSubjectValue<T>>(); };
  }

  /// How a fresh subject is made, and the C++ statement that makes it (for reports).
  Lin& init(std::function<std::unique_ptr<T>()> make, std::string setup_cpp) {
    data_->make = [make = std::move(make)]() -> std::unique_ptr<detail::LinSubject> {
      std::unique_ptr<T> made = make();
      if (!made) detail::null_subject("the spec's `init`");
      return std::make_unique<detail::LinSubjectHeld<T>>(std::move(made));
    };
    data_->custom_init = true;
    data_->setup = std::move(setup_cpp);
    return *this;
  }

  /// How a used subject is returned to the state of a fresh one, for subjects costly to make (a
  /// table with thousands of slots): the linearizability search, which replays calls on the
  /// candidate, then resets one subject instead of making one per replay. The reset must leave
  /// the subject behaving exactly as a fresh one would (a wrong reset is a wrong oracle).
  ///
  ///   lin.reset([](Table& t) { t.clear(); });
  Lin& reset(std::function<void(T&)> reset) {
    data_->reset = [reset = std::move(reset)](void* subject) { reset(*static_cast<T*>(subject)); };
    return *this;
  }

  /// An operation: f(T&, args...), one generator per argument. f may return void or any
  /// comparable, printable value.
  template <class F, class... A>
  Lin& op(std::string name, F f, Gen<A>... gens) {
    static_assert(std::is_invocable_v<F&, T&, A&...>,
                  "duet::Lin::op: the function must be callable as f(T&, args...) with one generator per argument");
    detail::LinOp def;
    def.name = name;
    def.bind = detail::lin_call_binder<T, F, A...>(name, data_->var, f);
    def.literal_args = (detail::scenario_literal_type<A> && ...);
    def.generate =
        detail::lin_call_generator<T>(std::move(name), data_->var, std::move(f), std::make_tuple(std::move(gens)...));
    data_->add_op(std::move(def));
    return *this;
  }

  /// The operation declared last may throw: its exceptions are results, not failures.
  Lin& may_throw() {
    if (data_->ops.empty()) throw std::logic_error("duet::Lin::may_throw: declare an operation first");
    data_->ops.back().may_throw = true;
    return *this;
  }

  /// Checked on the subject after every operation: bool or duet::Verdict (or it throws).
  /// `cpp`, when given, is the same check as a C++ condition on the subject's variable: a
  /// draft test re-runs it; without it the draft calls `duet_invariant(var)`, which you define.
  ///
  ///   .invariant([](const std::vector<int>& v) { return v.size() <= v.capacity(); },
  ///              "v.size() <= v.capacity()")
  template <class F>
  Lin& invariant(F check, std::string cpp = {}) {
    static_assert(std::is_invocable_v<const F&, const T&>, "duet::Lin::invariant: the check takes (const T&)");
    data_->invariant = [check = std::move(check)](const void* t) { return Verdict(check(*static_cast<const T*>(t))); };
    data_->invariant_cpp = std::move(cpp);
    return *this;
  }

  /// How the subject prints in reports: `show(const T&)` returns its state as text. A failing
  /// check then shows it after every call of a sequential case, along the closest sequential
  /// witness of a parallel one (the calls replayed on a fresh subject), and where the failing
  /// run ended. It runs on the checking thread, outside any fiber run, so it may read what a
  /// stopped fiber left half-done: read fields rather than take the subject's locks.
  ///
  ///   lin.state([](const std::vector<int>& v) { return duet::show(v); });
  template <class F>
  Lin& state(F show) {
    static_assert(std::is_invocable_r_v<std::string, const F&, const T&>,
                  "duet::Lin::state: the printer takes (const T&) and returns std::string");
    data_->show_state = [show = std::move(show)](const void* t) { return std::string(show(*static_cast<const T*>(t))); };
    return *this;
  }

  /// Sequential stress: random call sequences on fresh subjects, failing on an exception
  /// from an operation not declared may_throw, a broken invariant, a crash or a hang.
  CheckResult check_stress(const Config& config = {}) const { return detail::check_lin_stress(data_, config); }

  /// The check's name, as reports give it.
  const std::string& name() const { return data_->name; }

 private:
  friend struct detail::LinAccess;
  std::shared_ptr<detail::LinDescription> data_;
};

}  // namespace duet
