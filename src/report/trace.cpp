// Traces: the steps of a failing case as the report and the draft test show them, for
// sequential cases (numbered steps, the failing one marked) and Y-programs (the diagram).
#include "duet/detail/trace_steps.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "duet/parallel.hpp"  // YShape
#include "duet/result.hpp"

namespace duet::detail {

std::string disagreement(const Result& got, const Result* want, const std::string& why) {
  // Values of different types that print alike ("1" and "1") are told apart by their types.
  const bool same_text = want && got.is_value() && want->is_value() && got.show() == want->show();
  auto typed = [&](const Result& r) { return same_text ? r.show() + " (" + r.value_type_name() + ")" : r.show(); };
  std::string s = "candidate ";
  if (got.is_exception()) s += "threw " + exception_text(got);
  else if (got.is_void()) s += "returned (void)";
  else s += "returned " + typed(got);
  if (want) {
    if (want->is_exception()) s += "; the model expects it to throw " + exception_text(*want);
    else if (want->is_void()) s += "; the model expects no result";
    else s += "; the model allows " + typed(*want);
  } else {
    s += "; the model does not allow it";
    if (!why.empty()) s += ": " + why;
  }
  return s;
}

namespace {
Step make_step(std::string code, const Result& observed) {
  Step step;
  step.code = std::move(code);
  if (observed.is_value()) {
    step.kind = Step::Kind::value;
    step.observed = observed.show();
  } else if (observed.is_exception()) {
    step.kind = Step::Kind::exception;
    step.exception_type = observed.exception_type();
    step.observed = exception_text(observed);
  }
  return step;
}

void mark_failure(Step& step, const Result* expected, std::string explanation) {
  step.explanation = std::move(explanation);
  if (expected) {
    step.expected_exception = expected->is_exception();
    step.expected = expected->is_exception() ? expected->exception_type()
                    : expected->is_void()    ? std::string()
                                             : expected->show();
  }
}
}  // namespace

void record_step(Trace* trace, std::string code, const Result& observed) {
  trace->steps.push_back(make_step(std::move(code), observed));
}

void record_failure(Trace* trace, const Result* expected, std::string explanation) {
  trace->failed = true;
  if (trace->steps.empty()) return;  // failed before any step: the report shows the message
  mark_failure(trace->steps.back(), expected, std::move(explanation));
}

Step failing_step(std::string code, const Result& observed, const Result* expected, std::string explanation) {
  Step step = make_step(std::move(code), observed);
  mark_failure(step, expected, std::move(explanation));
  return step;
}

void record_api_step(Trace* trace, std::string code, std::string observed, bool binds) {
  Step step;
  step.code = std::move(code);
  step.observed = std::move(observed);
  // A binding step is a declaration: the draft test states it, it does not compare it.
  step.kind = step.observed.empty() || binds ? Step::Kind::none : Step::Kind::value;
  trace->steps.push_back(std::move(step));
}

Step api_failure_step(std::string code, std::string expected, std::string explanation) {
  Step step;
  step.code = std::move(code);
  step.expected = std::move(expected);
  step.assertion = !step.expected.empty();
  step.explanation = std::move(explanation);
  return step;
}

void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation) {
  trace->steps.push_back(api_failure_step(std::move(code), std::move(expected), std::move(explanation)));
  trace->failed = true;
}

std::string y_diagram(const YShape& shape, const std::vector<std::string>& calls, const std::vector<std::string>& results) {
  auto cell = [&](std::size_t i) {
    return results[i].empty() ? calls[i] : calls[i] + " : " + results[i];
  };  // "" : a binding
  const std::size_t nb = shape.branches.size();
  std::vector<std::size_t> start(nb);
  std::vector<std::size_t> width(nb, 8);
  std::size_t rows = 0;
  const bool labelled = shape.roles.size() == nb && nb > 0;
  for (std::size_t b = 0, at = shape.prefix; b < nb; at += shape.branches[b], ++b) {
    start[b] = at;
    rows = std::max(rows, shape.branches[b]);
    for (std::size_t k = 0; k < shape.branches[b]; ++k) width[b] = std::max(width[b], cell(at + k).size());
    if (labelled) width[b] = std::max(width[b], shape.roles[b].size() + 2);
  }
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 3;
  total = total > 3 ? total - 3 : total;

  std::string out;
  const std::string indent = "        ";
  for (std::size_t i = 0; i < shape.prefix; ++i) out += indent + cell(i) + "\n";
  // One row of the columns: branch b's text in its column.
  auto row = [&](auto text_of) {
    std::string line;
    for (std::size_t b = 0; b < nb; ++b) {
      std::string c = text_of(b);
      c.resize(width[b], ' ');
      line += (b == 0 ? "" : " | ") + c;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return indent + line + "\n";
  };
  // The fork: one column per branch, headed by its role when the program has roles.
  std::string rule;
  for (std::size_t b = 0; b < nb; ++b) {
    rule += std::string(width[b] + (b == 0 ? 1 : 2), '-');
    if (b + 1 < nb) rule += "+";
  }
  out += indent + rule + "\n";
  if (labelled) out += row([&](std::size_t b) { return "[" + shape.roles[b] + "]"; });
  for (std::size_t r = 0; r < rows; ++r)
    out += row([&](std::size_t b) { return r < shape.branches[b] ? cell(start[b] + r) : std::string(); });
  if (shape.suffix > 0) {
    out += indent + std::string(rule.size(), '-') + "\n";
    for (std::size_t i = calls.size() - shape.suffix; i < calls.size(); ++i) out += indent + cell(i) + "\n";
  }
  return out;
}

void record_y(Trace* trace, const YShape& shape, const std::vector<std::string>& calls,
              const std::vector<Observed>& observed, const std::string& setup, const std::string& verdict) {
  std::vector<std::string> results;
  results.reserve(observed.size());
  // A fiber run that failed mid-program (a deadlock) leaves calls that never returned (invoked,
  // no response) or never started.
  for (const Observed& o : observed)
    results.push_back(o.invoke == 0        ? "(not started)"
                      : o.response == 0    ? "(did not return)"
                      : o.result.is_void() ? "()"
                                           : o.result.show());
  trace->setup = setup;
  trace->failed = true;
  trace->verdict = verdict;
  trace->diagram = y_diagram(shape, calls, results);
  trace->y_shown_results = results;
  trace->y_results.clear();
  for (std::size_t k = 0; k < observed.size(); ++k)
    trace->y_results.push_back(observed[k].invoke == 0 || observed[k].response == 0 ? results[k]
                                                                                    : observed[k].result.show());
  trace->y_prefix.clear();
  trace->y_branches.clear();
  trace->y_suffix.clear();
  trace->y_roles = shape.roles;
  trace->call_times.clear();
  for (const Observed& o : observed) trace->call_times.emplace_back(o.invoke, o.response);
  std::size_t i = 0;
  for (; i < shape.prefix; ++i) trace->y_prefix.push_back(calls[i]);
  for (std::size_t len : shape.branches) {
    trace->y_branches.emplace_back();
    for (std::size_t k = 0; k < len; ++k, ++i) trace->y_branches.back().push_back(calls[i]);
  }
  for (; i < calls.size(); ++i) trace->y_suffix.push_back(calls[i]);
}

}  // namespace duet::detail
