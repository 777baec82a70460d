// The draft test a failure writes: a GoogleTest TEST that reproduces it, for a sequential case
// (its steps, the failing one checked), a Y-program (its calls on fibers in the failing schedule,
// or on threads until the results come back) or a hand-written scenario; and its file. Apart
// from the report's text (report.cpp): the report only names where the draft went.
#include "report/report.hpp"

#include <cstddef>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "duet/show.hpp"

namespace duet::detail {

// The lines that make the draft's subject, indented: the trace's draft setup (a model over a
// binding: an adapter that calls the subject through the binding), else its setup.
static std::string draft_setup(const Trace& t, const std::string& indent) {
  const std::string& setup = t.draft_setup.empty() ? t.setup : t.draft_setup;
  std::string out;
  std::istringstream lines(setup);
  for (std::string line; std::getline(lines, line);) out += indent + line + "\n";
  return out;
}

namespace {

// The draft's capture of each call in turn: r1, r2, ... in program order.
struct DraftCalls {
  std::size_t count = 0;
  std::string operator()(const std::string& code) {
    std::string line = "r";  // appended, not "r" + ...: GCC 12's -Wrestrict misfires on that
    line += std::to_string(++count);
    line += " = duet::capture([&] { return " + code + "; });";
    return line;
  }
};

}  // namespace

// The comment above a Y-program's draft (what failed, the diagram, how the draft runs it) and
// its #include lines.
static std::string y_draft_preamble(const ReportData& d, bool fibers, bool completed) {
  std::string out;
  out += "// Draft reproducer written by duet for " + d.name + ".\n";
  std::istringstream message(d.message + " in this program:");
  for (std::string line; std::getline(message, line);) out += "// " + line + "\n";
  std::istringstream diagram(d.trace.diagram);
  for (std::string line; std::getline(diagram, line);) out += "//   " + line + "\n";
  if (fibers)
    out += "// It replays the failing interleaving on duet's fiber scheduler, so it fails as reported,\n"
           "// and passes once the candidate no longer " +
           std::string(completed ? "gives these results" : "fails that way") + " in that schedule.\n";
  else
    out += "// It runs the program on threads until the results duet found unexplained come back (then it\n"
           "// fails); on threads that is a matter of chance, so a pass proves little: run it under\n"
           "// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().\n";
  out += "// duet's replay re-checks every order of the calls: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types.\n";
  out += "#include <duet/" + std::string(fibers ? "executor" : "result") + ".hpp>\n";
  if (fibers) out += "#include <duet/result.hpp>\n";
  out += "#include <gtest/gtest.h>\n\n";
  out += fibers ? "#include <string>\n#include <vector>\n\n"
                : "#include <atomic>\n#include <string>\n#include <thread>\n#include <vector>\n\n";
  return out;
}

// "  // producer" after a branch's opening line, when the branch has a role.
static std::string y_role_comment(const Trace& t, std::size_t branch) {
  return branch < t.y_roles.size() ? "  // " + t.y_roles[branch] : std::string();
}

// The branches as fibers, run in the failing schedule by duet::run_fibers.
static std::string y_draft_fiber_branches(const Trace& t, DraftCalls& call) {
  std::string out = "  const duet::FiberRun run = duet::run_fibers(\n      {\n";
  for (std::size_t b = 0; b < t.y_branches.size(); ++b) {
    out += "          [&] {" + y_role_comment(t, b) + "\n";
    for (const auto& c : t.y_branches[b]) out += "            " + call(c) + "\n";
    out += "          },\n";
  }
  out += "      },\n      " + show_string(t.fiber_schedule);
  if (!t.fiber_options.empty()) out += ", " + t.fiber_options;
  out += ");\n";
  out += "  ASSERT_TRUE(run.completed) << run.failure;\n";
  return out;
}

// The branches as threads that start together and are joined.
static std::string y_draft_thread_branches(const Trace& t, DraftCalls& call) {
  const std::size_t nb = t.y_branches.size();
  std::string out = "    std::atomic<int> ready{0};  // the branches start together\n";
  for (std::size_t b = 0; b < nb; ++b) {
    out += "    std::thread t" + std::to_string(b) + "([&] {" + y_role_comment(t, b) + "\n";
    out += "      ready.fetch_add(1);\n      while (ready.load() < " + std::to_string(nb) + ") std::this_thread::yield();\n";
    for (const auto& c : t.y_branches[b]) out += "      " + call(c) + "\n";
    out += "    });\n";
  }
  for (std::size_t b = 0; b < nb; ++b) out += "    t" + std::to_string(b) + ".join();\n";
  return out;
}

// A Y-program's draft runs the program and checks its outcome: on fibers it replays the failing
// interleaving with duet::run_fibers (so it fails every time, as reported); on threads it runs
// the program until the unexplained results come back. Either passes once the candidate no
// longer gives them. It checks that one outcome, not every order (duet's replay does that).
static std::string format_y_draft(const ReportData& d) {
  const Trace& t = d.trace;
  const bool fibers = !t.interleaving.empty();
  // Calls that never returned: the run itself failed (a deadlock, a data race): the draft
  // checks that the run completes, and has no results to compare.
  bool completed = true;
  for (const std::string& r : t.y_results) completed = completed && r != "(did not return)" && r != "(not started)";
  std::string results_list, unexplained_list;
  std::string declared = "duet::Result";
  for (std::size_t i = 0; i < t.y_results.size(); ++i) {
    results_list += (i ? ", r" : "r") + std::to_string(i + 1) + ".show()";
    unexplained_list += (i ? ", " : "") + show_string(t.y_results[i]);
    declared += (i ? ", r" : " r") + std::to_string(i + 1);
  }
  declared += ";";

  std::string out = y_draft_preamble(d, fibers, completed);
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  std::string in = "  ";
  if (!fibers) {
    out += "  const std::vector<std::string> unexplained = {" + unexplained_list + "};\n";
    out += "  for (int trial = 0; trial < 10000; ++trial) {\n";
    in = "    ";
  }
  out += draft_setup(t, in);
  out += in + declared + "\n";
  DraftCalls call;
  for (const auto& c : t.y_prefix) out += in + call(c) + "\n";
  out += fibers ? y_draft_fiber_branches(t, call) : y_draft_thread_branches(t, call);
  for (const auto& c : t.y_suffix) out += in + call(c) + "\n";
  if (fibers && completed) {
    out += "  const std::vector<std::string> results = {" + results_list + "};\n";
    out += "  // No order of the calls gives these results:\n";
    out += "  EXPECT_NE(results, (std::vector<std::string>{" + unexplained_list + "}));\n";
  } else if (!fibers) {
    out += "    const std::vector<std::string> results = {" + results_list + "};\n";
    out +=
        "    ASSERT_NE(results, unexplained) << \"trial \" << trial << \": no order of the calls gives these results\";\n";
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

// The comment above a scenario draft: what failed, the diagram, how the draft checks it.
static std::string scenario_draft_preamble(const ReportData& d, bool fibers) {
  std::string out = "// Draft reproducer written by duet for " + d.name + ".\n";
  std::istringstream message(d.message + " in this program:");
  for (std::string line; std::getline(message, line);) out += "// " + line + "\n";
  std::istringstream diagram(d.trace.diagram);
  for (std::string line; std::getline(diagram, line);) out += "//   " + line + "\n";
  if (fibers)
    out += "// It checks that program as a hand-written scenario, replaying the failing schedule on duet's\n"
           "// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.\n";
  else
    out += "// It checks that program as a hand-written scenario on threads, for a second of trials: whether\n"
           "// the failing interleaving recurs is a matter of chance, so a pass proves little: run it under\n"
           "// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().\n";
  if (fibers)
    out += "// The failing schedule, as duet::run_fibers replays it: " + show_string(d.trace.fiber_schedule) + "\n";
  out += "// The search that found it: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types.\n";
  return out + "#include <duet/parallel.hpp>\n#include <gtest/gtest.h>\n\n";
}

// A parallel failure's draft as a scenario test (Trace::ScenarioDraft): the failing program
// checked by duet::check_scenario, on fibers replaying the failing schedule with its token.
static std::string format_scenario_draft(const ReportData& d) {
  const Trace::ScenarioDraft& s = d.trace.scenario;
  const bool fibers = !s.token.empty();
  std::string out = scenario_draft_preamble(d, fibers);
  if (!s.declarations.empty()) out += s.declarations + "\n";
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  out += "  const " + s.type + " scenario{\n";
  std::size_t at = 0;
  auto list = [&](std::size_t n) {
    std::string text = "{";
    for (std::size_t k = 0; k < n; ++k, ++at) text += (k == 0 ? "" : ", ") + s.calls[at];
    return text + "}";
  };
  if (!d.trace.y_prefix.empty()) out += "      .prefix = " + list(d.trace.y_prefix.size()) + ",\n";
  out += "      .branches = {";
  for (std::size_t b = 0; b < d.trace.y_branches.size(); ++b)
    out += (b == 0 ? "" : ", ") + list(d.trace.y_branches[b].size());
  out += "},\n";
  if (!d.trace.y_suffix.empty()) out += "      .suffix = " + list(d.trace.y_suffix.size()) + ",\n";
  out += "  };\n";
  out += "  const duet::CheckResult r = " + s.check;
  if (fibers) out += ",\n      " + s.config + ",\n      {.replay = " + show_string(s.token) + "}";
  else if (!s.config.empty()) out += ", " + s.config;
  out += ");\n";
  out += "  EXPECT_TRUE(r) << r.report;\n}\n";
  return out;
}

// `expr` as one argument of a GoogleTest macro: the preprocessor splits arguments at commas
// outside parentheses, so `std::pair{0, 0}` is parenthesised.
static std::string macro_arg(const std::string& expr) {
  int depth = 0;
  for (char c : expr) {
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == ',' && depth == 0) return "(" + expr + ")";
  }
  return expr;
}

std::string format_draft_test(const ReportData& d) {
  if (!d.trace.diagram.empty() && !d.trace.scenario.calls.empty()) return format_scenario_draft(d);
  if (!d.trace.diagram.empty()) return format_y_draft(d);
  std::string out;
  out += "// Draft reproducer written by duet for " + d.name + ".\n";
  out += "// " + d.message + "\n";
  out += "// Replay the case that produced it: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types, then move the TEST into your suite.\n";
  out += "#include <gtest/gtest.h>\n\n";
  const bool died = d.trace.failed && !d.trace.steps.empty() && !d.trace.steps.back().died.empty();
  if (died) out += "#include <unistd.h>\n\n#include <cstdlib>\n";
  out += "#include <optional>\n#include <stdexcept>\n#include <string>\n#include <vector>\n\n";
  // The check that failed after the last step, when duet cannot spell it: declared here, defined
  // by the user, so that the draft runs the same check (and passes once the candidate is fixed).
  if (d.trace.failed && !d.trace.steps.empty() && !d.trace.steps.back().check_declaration.empty())
    out += "// duet's check, as a function: define it with the check you gave duet.\n" +
           d.trace.steps.back().check_declaration + "\n\n";
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  out += draft_setup(d.trace, "  ");
  for (std::size_t i = 0; i < d.trace.steps.size(); ++i) {
    const Step& s = d.trace.steps[i];
    const bool failing = d.trace.failed && i + 1 == d.trace.steps.size();
    if (failing && !s.died.empty()) {
      // The process died in this call: the draft runs it in a child process (a death test),
      // which fails while the call crashes, hangs or ends the process, and passes once the call
      // returns.
      out += "  // duet: " + s.explanation + ".\n";
      out +=
          "  EXPECT_EXIT(\n      {\n        alarm(10);  // a hang ends the child (SIGALRM)\n        " + s.code +
          ";\n        std::_Exit(42);  // the call returned\n      },\n      ::testing::ExitedWithCode(42), \"\")\n      << " +
          show_string("duet saw this call end the process: " + s.died) + ";\n";
    } else if (failing && !s.check.empty()) {
      // The call itself did what it should; the check after it failed: run both.
      if (s.kind == Step::Kind::value) out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ");\n";
      else if (s.kind == Step::Kind::exception)
        out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.exception_type + ");\n";
      else out += "  " + s.code + ";\n";
      out += "  EXPECT_TRUE(" + macro_arg(s.check) + ") << " + show_string(s.explanation) + ";\n";
    } else if (failing && !s.expected.empty() && s.expected_exception) {
      out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.expected + ");  // " + s.explanation + "\n";
    } else if (failing && !s.expected.empty()) {
      out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.expected) + ");  // " + s.explanation + "\n";
    } else if (failing && s.kind == Step::Kind::value) {
      // No single right result (a postcondition judged it): the wrong one must not come back,
      // so the draft fails as reported and passes once the candidate is fixed.
      out +=
          "  EXPECT_NE(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ") << " + show_string(s.explanation) + ";\n";
    } else if (failing && s.kind == Step::Kind::exception) {
      out += "  try {\n    " + s.code + ";\n  } catch (const " + s.exception_type + "&) {\n    ADD_FAILURE() << " +
             show_string(s.explanation) + ";\n  }\n";
    } else if (failing) {
      // Nothing the draft can re-run decided this (a postcondition on a void call, the model's
      // own code): it says so and fails, as a placeholder for the user's own check.
      out += "  " + s.code + ";  // " + s.explanation + "\n";
      out += "  ADD_FAILURE() << " + show_string(s.explanation + " (duet's check of this step: put it here)") + ";\n";
    } else if (s.kind == Step::Kind::value) {
      out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ");\n";
    } else if (s.kind == Step::Kind::exception) {
      out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.exception_type + ");\n";
    } else {
      out += "  " + s.code + ";\n";
    }
  }
  out += "}\n";
  return out;
}

std::string write_draft_test(const ReportData& d, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  // Written aside: a test binary run in parallel with another that fails the same spec never
  // reads half a file.
  std::string path = (fs::path(dir) / (identifier(d.name) + "_repro.cpp")).string();
  write_file_aside(path, format_draft_test(d));
  return path;
}

}  // namespace duet::detail
