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
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/engine.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"
#include "duet/state_machine.hpp"

namespace duet {

template <class T>
class Lin {
 public:
  /// A call with its arguments bound: what it prints as, and how to run it on a subject.
  struct Call {
    std::size_t op = 0;
    std::string text;                  // "t.push(3)"
    std::function<Result(T&)> run;     // exceptions propagate
  };

  /// `name` names the check; `var` is the subject's variable in reports.
  explicit Lin(std::string name = type_name<T>(), std::string var = "t") : data_(std::make_shared<Data>()) {
    data_->name = std::move(name);
    data_->var = std::move(var);
    data_->setup = type_name<T>() + " " + data_->var + ";";
    if constexpr (std::is_default_constructible_v<T>) data_->make = [] { return std::make_unique<T>(); };
  }

  /// How a fresh subject is made, and the C++ statement that makes it (for reports).
  Lin& init(std::function<std::unique_ptr<T>()> make, std::string setup_cpp) {
    data_->make = std::move(make);
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
    data_->reset = std::move(reset);
    return *this;
  }

  /// An operation: f(T&, args...), one generator per argument. f may return void or any
  /// comparable, printable value.
  template <class F, class... A>
  Lin& op(std::string name, F f, Gen<A>... gens) {
    static_assert(std::is_invocable_v<F&, T&, A&...>,
                  "duet::Lin::op: the function must be callable as f(T&, args...) with one generator per argument");
    using R = std::invoke_result_t<F&, T&, A&...>;
    OpDef def;
    def.name = name;
    def.generate = [name, var = data_->var, f = std::move(f), gens = std::make_tuple(std::move(gens)...)](
                       Source& src) {
      // Arguments drawn left to right, bound by value into the call.
      auto bound = std::apply([&](const auto&... g) { return std::tuple<A...>{g(src)...}; }, gens);
      std::string text = var + "." + name + "(";
      std::apply(
          [&](const auto&... a) {
            std::size_t i = 0;
            ((text += (i++ == 0 ? "" : ", ") + duet::show(a)), ...);
          },
          bound);
      text += ")";
      Call call;
      call.text = std::move(text);
      call.run = [f, bound](T& subject) mutable -> Result {
        auto args = bound;  // a copy: an operation that changes its arguments must not change the call
        return std::apply(
            [&](auto&... a) -> Result {
              if constexpr (std::is_void_v<R>) {
                f(subject, a...);
                return Result();
              } else {
                return Result(f(subject, a...));
              }
            },
            args);
      };
      return call;
    };
    data_->ops.push_back(std::move(def));
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
    data_->invariant = [check = std::move(check)](const T& t) { return Verdict(check(t)); };
    data_->invariant_cpp = std::move(cpp);
    return *this;
  }

  /// Sequential stress: random call sequences on fresh subjects, failing on an exception
  /// from an operation not declared may_throw, a broken invariant, a crash or a hang.
  CheckResult check_stress(const Config& config = {}) const {
    if (data_->ops.empty()) return no_ops();
    if (!data_->make) return no_init();
    detail::Property p;
    p.name = data_->name;
    std::string signature = data_->name + "/lin";
    for (const auto& op : data_->ops) signature += "/" + op.name;
    p.spec_id = detail::hash32(signature);
    p.run_case = [data = data_](Source& src, const detail::CaseParams& params, detail::Trace* trace) {
      return stress_case(*data, src, params, trace);
    };
    return detail::run_property(p, config);
  }

  // ---- for the parallel runner ----
  /// Draws one call (an operation and its arguments) into `call`. A generator that throws is
  /// the spec's mistake: `failed`, with an error naming the operation's generator in `failure`.
  detail::CaseSteps::Drawn draw_call(Source& src, Call& call, detail::StepVerdict& failure) const {
    return draw_into(*data_, src, call, failure);
  }
  /// Draws one call of one of the operations `among` (indices; empty: any).
  detail::CaseSteps::Drawn draw_call(Source& src, Call& call, detail::StepVerdict& failure,
                                     std::span<const std::size_t> among) const {
    return draw_into(*data_, src, call, failure, among);
  }
  /// The operations' names, in the order they were declared.
  std::vector<std::string> op_names() const {
    std::vector<std::string> names;
    for (const auto& op : data_->ops) names.push_back(op.name);
    return names;
  }
  /// Draws one call; the generator's exceptions propagate.
  Call generate_call(Source& src) const {
    const std::size_t k = static_cast<std::size_t>(src.draw(data_->ops.size() - 1));
    Call c = data_->ops[k].generate(src);
    c.op = k;
    return c;
  }
  std::unique_ptr<T> make_subject() const { return data_->make(); }
  /// A reset was given (Lin::reset).
  bool resets() const { return static_cast<bool>(data_->reset); }
  /// Returns `t` to a fresh subject's state with the reset given (Lin::reset); false without one.
  bool reset_subject(T& t) const {
    if (!data_->reset) return false;
    try {
      data_->reset(t);
    } catch (const std::exception& e) {  // named, wherever it surfaces (a trial, the search)
      throw std::runtime_error(std::string("the spec's `reset` threw: ") + e.what());
    } catch (...) {
      throw std::runtime_error("the spec's `reset` threw");
    }
    return true;
  }
  /// Who makes the subject, as an error names it when that throws.
  const char* maker() const { return maker(*data_); }
  bool op_may_throw(std::size_t op) const { return data_->ops[op].may_throw; }
  std::size_t op_count() const { return data_->ops.size(); }
  const std::string& name() const { return data_->name; }
  const std::string& setup_cpp() const { return data_->setup; }
  /// The invariant's verdict on a subject (true when none was given).
  Verdict check_invariant(const T& t) const {
    if (!data_->invariant) return true;
    try {
      return data_->invariant(t);
    } catch (...) {
      return Verdict::fail(detail::threw("it"));
    }
  }
  /// The description's signature, "<name>/lin/<op>/<op>...", so that a replay
  /// token (which carries its hash) replays only against the description it came from.
  std::string signature() const {
    std::string s = data_->name + "/lin";
    for (const auto& op : data_->ops) s += "/" + op.name;
    return s;
  }

 private:
  struct OpDef {
    std::string name;
    std::function<Call(Source&)> generate;
    bool may_throw = false;
  };
  struct Data {
    std::string name, var, setup;
    std::function<std::unique_ptr<T>()> make;
    std::function<void(T&)> reset;
    bool custom_init = false;  // make is the spec's (Lin::init), not the default constructor
    std::vector<OpDef> ops;
    std::function<Verdict(const T&)> invariant;
    std::string invariant_cpp;
  };

  static const char* maker(const Data& d) {
    if (d.reset) return d.custom_init ? "the spec's `init` or `reset`" : "the subject's default constructor or the spec's `reset`";
    return d.custom_init ? "the spec's `init`" : "the subject's default constructor";
  }

  // Draws an operation and its arguments (sequential stress and the parallel runner alike). A
  // generator that throws is the spec's mistake: an error, not the subject's failure.
  static detail::CaseSteps::Drawn draw_into(const Data& d, Source& src, Call& call, detail::StepVerdict& failure,
                                            std::span<const std::size_t> among = {}) {
    using Drawn = detail::CaseSteps::Drawn;
    const std::size_t k = among.empty() ? static_cast<std::size_t>(src.draw(d.ops.size() - 1))
                                        : among[static_cast<std::size_t>(src.draw(among.size() - 1))];
    try {
      call = d.ops[k].generate(src);
    } catch (const Discard&) {
      return Drawn::rejected;
    } catch (const detail::EngineSignal&) {
      throw;
    } catch (...) {
      failure = detail::StepVerdict::error(detail::threw("the spec's argument generator for " + d.ops[k].name));
      return Drawn::failed;
    }
    call.op = k;
    return Drawn::command;
  }

  // Sequential stress for the case loop: calls drawn from the operations, run on one subject;
  // an undeclared exception, an assertion or a broken invariant fails the call.
  class StressSteps final : public detail::CaseSteps {
   public:
    explicit StressSteps(const Data& d) : d_(d) {}
    detail::StepVerdict start(detail::Trace* trace) override {
      if (trace) trace->setup = d_.setup;
      try {
        subject_ = d_.make();
      } catch (...) {
        return detail::StepVerdict::error(detail::threw(maker(d_)));
      }
      return {};
    }
    Drawn draw(Source& src, detail::StepVerdict& failure) override {
      const Drawn drawn = draw_into(d_, src, call_, failure);
      if (drawn == Drawn::command) op_ = call_.op;
      return drawn;
    }
    detail::StepVerdict step(detail::Trace* trace) override {
      detail::announce_call(trace, call_.text);
      try {
        got_ = call_.run(*subject_);
      } catch (...) {
        got_ = Result::current_exception();
      }
      ran_ = true;
      if (trace) detail::record_step(trace, call_.text, got_);
      if (got_.is_exception() && !d_.ops[op_].may_throw)
        return fail_here(trace, "threw " + got_.exception_type() +
                                    (got_.exception_message().empty() ? "" : "(" + duet::show(got_.exception_message()) + ")") +
                                    " (declare the operation .may_throw() if it may)");
      if (assertion_raised()) return assertion_failed(trace, assertion_message());
      if (d_.invariant) {
        Verdict v(true);
        try {
          v = d_.invariant(*subject_);
        } catch (...) {
          v = Verdict::fail(detail::threw("it"));
        }
        if (!v.ok) {
          // The draft test re-runs the check after the call, instead of failing unconditionally.
          detail::Step check;
          check.check = d_.invariant_cpp.empty() ? "duet_invariant(" + d_.var + ")" : d_.invariant_cpp;
          if (d_.invariant_cpp.empty())
            check.check_declaration = "bool duet_invariant(const " + type_name<T>() + "& " + d_.var + ");";
          return fail_here(trace, "the invariant fails" + (v.why.empty() ? std::string() : ": " + v.why), &check);
        }
      }
      return {};
    }
    detail::StepVerdict assertion_failed(detail::Trace* trace, std::string why) override {
      if (ran_) return fail_here(trace, std::move(why));
      if (trace) detail::record_failure(trace, nullptr, why);
      return detail::StepVerdict::fail(std::move(why));
    }

   private:
    // why: what the failing step's comment says; the one-line message adds the call.
    // check: the check that failed after the call, for the draft (Step::check).
    detail::StepVerdict fail_here(detail::Trace* trace, std::string why, const detail::Step* check = nullptr) const {
      std::string message = call_.text + ": " + why;
      auto with_check = [check](detail::Step& step) {
        if (!check) return;
        step.check = check->check;
        step.check_declaration = check->check_declaration;
      };
      if (trace) {
        detail::record_failure(trace, nullptr, std::move(why));
        if (!trace->steps.empty()) with_check(trace->steps.back());
        return detail::StepVerdict::fail(std::move(message));
      }
      detail::Step step = detail::failing_step(call_.text, got_, nullptr, std::move(why));
      with_check(step);
      return detail::StepVerdict::fail(std::move(message), std::move(step));
    }
    const Data& d_;
    std::unique_ptr<T> subject_;
    std::size_t op_ = 0;
    Call call_;
    Result got_;
    bool ran_ = false;
  };

  static detail::CaseOutcome stress_case(const Data& d, Source& src, const detail::CaseParams& params,
                                         detail::Trace* trace) {
    StressSteps steps(d);
    return detail::run_case_loop(steps, src, params, trace);
  }

  CheckResult no_ops() const { return detail::nothing_tested(data_->name, "no operation declared"); }
  CheckResult no_init() const {
    return detail::nothing_tested(data_->name,
                                  "the subject type is not default-constructible: give duet::Lin::init(make, setup)");
  }

  std::shared_ptr<Data> data_;
};

}  // namespace duet
