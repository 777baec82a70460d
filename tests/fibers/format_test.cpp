// The trace as text: the column layout (one column per fiber) against the line layout, its
// fallback when too wide, and pointer numbering shared by both.
#include <gtest/gtest.h>

#include <duet/sync.hpp>

#include <algorithm>
#include "duet/detail/source_location.hpp"
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fiber_support.hpp"
#include "report/report.hpp"

namespace {

using namespace duet::fibertest;

fb::TraceEvent event(std::uint32_t step, std::uint32_t fiber, fb::Op op, std::uint32_t object = fb::kNoObject,
                     duet::source_location loc = {}, fb::Value read = {}, fb::Value written = {}) {
  fb::TraceEvent e;
  e.step = step;
  e.fiber = fiber;
  e.event.op = op;
  e.event.kind = object == fb::kNoObject ? fb::ObjectKind::none : fb::ObjectKind::atomic;
  e.event.object = object;
  e.event.loc = loc;
  e.read = read;
  e.written = written;
  return e;
}

fb::Value integer(int v) { return {static_cast<std::uint64_t>(v), fb::ValueType::signed_integer}; }
fb::Value pointer(std::uint64_t bits) { return {bits, fb::ValueType::pointer}; }

// A lost update: both fibers load 0, both store 1. Both locations are on one line, so the
// expected cells differ by their text only.
struct LostUpdate {
  const duet::source_location loc[2] = {duet::source_location::current(), duet::source_location::current()};
  const std::string at = " format_test.cpp:" + std::to_string(loc[0].line());
  const std::string load = "load atomic#0 = 0" + at, store = "store atomic#0 := 1" + at;
  std::vector<fb::TraceEvent> trace = {
      event(0, 0, fb::Op::start),
      event(1, 0, fb::Op::load, 0, loc[0], integer(0)),
      event(2, 1, fb::Op::start),
      event(3, 1, fb::Op::load, 0, loc[0], integer(0)),
      event(4, 1, fb::Op::store, 0, loc[1], {}, integer(1)),
      event(5, 1, fb::Op::exit),
      event(6, 0, fb::Op::store, 0, loc[1], {}, integer(1)),
      event(7, 0, fb::Op::exit),
  };
};

bool no_trailing_space(const std::vector<std::string>& lines) {
  for (const auto& l : lines)
    if (!l.empty() && l.back() == ' ') return false;
  return true;
}

// The words of a cell (or of a trace line), whatever the spacing.
std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(FiberFormat, ColumnsOfATwoFiberRun) {
  const LostUpdate run;
  // Fiber 0's column is as wide as its widest cell; fiber 1's, the last, is not padded.
  auto col0 = [&](std::string text) {
    text.resize(run.store.size(), ' ');
    return text;
  };
  const std::vector<std::string> expected = {
      "step | " + col0("fiber 0") + " | fiber 1",
      "   0 | " + col0("start") + " |",
      "   1 | " + col0(run.load) + " |",
      "   2 | " + col0("") + " | start",
      "   3 | " + col0("") + " | " + run.load,
      "   4 | " + col0("") + " | " + run.store,
      "   5 | " + col0("") + " | exit",
      "   6 | " + run.store + " |",
      "   7 | " + col0("exit") + " |",
  };
  const auto lines = fb::format_trace_columns(run.trace, 2);
  EXPECT_EQ(joined(lines), joined(expected));
  EXPECT_TRUE(no_trailing_space(lines)) << joined(lines);
}

TEST(FiberFormat, AFiberWithoutEventsStillHasItsColumn) {
  const LostUpdate run;
  const auto lines = fb::format_trace_columns(run.trace, 3, 200);
  ASSERT_EQ(lines.size(), run.trace.size() + 1);
  EXPECT_TRUE(lines[0].starts_with("step | fiber 0 ")) << lines[0];
  EXPECT_NE(lines[0].find(" | fiber 1 "), std::string::npos) << lines[0];
  EXPECT_TRUE(lines[0].ends_with(" | fiber 2")) << lines[0];
  EXPECT_TRUE(lines[5].ends_with(run.store + " |")) << lines[5];
  EXPECT_TRUE(no_trailing_space(lines)) << joined(lines);
}

TEST(FiberFormat, ColumnsTooWideGiveNothing) {
  const LostUpdate run;
  const auto fits = fb::format_trace_columns(run.trace, 2);
  ASSERT_FALSE(fits.empty());
  std::size_t widest = 0;
  for (const auto& l : fits) widest = std::max(widest, l.size());
  // The limit is on the widest row: exactly as wide fits, one less does not.
  EXPECT_EQ(fb::format_trace_columns(run.trace, 2, widest), fits);
  EXPECT_TRUE(fb::format_trace_columns(run.trace, 2, widest - 1).empty());
  EXPECT_TRUE(fb::format_trace_columns(run.trace, 2, 40).empty());

  // Eight fibers with one load each: 8 columns of that cell are far wider than 100.
  std::vector<fb::TraceEvent> eight;
  for (std::uint32_t f = 0; f < 8; ++f) eight.push_back(event(f, f, fb::Op::load, 0, run.loc[0], integer(0)));
  EXPECT_TRUE(fb::format_trace_columns(eight, 8).empty());
  EXPECT_EQ(fb::format_trace(eight).size(), 8u);  // the line layout is always there
}

TEST(FiberFormat, PointersAreNumberedAsInTheLineLayout) {
  const LostUpdate run;
  const std::uint64_t a = 0x7f0000001000, b = 0x7f0000002000;
  const std::vector<fb::TraceEvent> trace = {
      event(0, 0, fb::Op::start),
      event(1, 0, fb::Op::load, 0, run.loc[0], pointer(0)),
      event(2, 1, fb::Op::start),
      event(3, 1, fb::Op::cas, 0, run.loc[0], pointer(b), pointer(a)),
      event(4, 0, fb::Op::store, 0, run.loc[1], {}, pointer(b)),
      event(5, 1, fb::Op::load, 0, run.loc[1], pointer(a)),
  };
  const auto lines = fb::format_trace(trace);
  const auto table = fb::format_trace_columns(trace, 2);
  ASSERT_EQ(table.size(), trace.size() + 1);
  EXPECT_NE(lines[1].find("= nullptr"), std::string::npos) << lines[1];
  EXPECT_NE(lines[3].find("p1 -> p2"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find(":= p1"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find("= p2"), std::string::npos) << lines[5];
  EXPECT_NE(table[2].find("load atomic#0 = nullptr" + run.at), std::string::npos) << table[2];
  EXPECT_NE(table[4].find("cas atomic#0 p1 -> p2" + run.at), std::string::npos) << table[4];
  EXPECT_NE(table[5].find("store atomic#0 := p1" + run.at), std::string::npos) << table[5];
  EXPECT_NE(table[6].find("load atomic#0 = p2" + run.at), std::string::npos) << table[6];
}

// A real run with nodes allocated during it (addresses differ between runs): every cell says
// what its trace line says, in the same words, pointers included.
TEST(FiberFormat, EveryCellSaysWhatItsLineSays) {
  struct Node {
    int value = 0;
    Node* next = nullptr;
  };
  fb::Scheduler s;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    duet::atomic<Node*> head{nullptr};
    auto push = [&](int v) {
      Node* n = new Node{v};
      Node* old = head.load();
      do n->next = old;
      while (!head.compare_exchange_weak(old, n));
    };
    const Branches br = {[&] { push(1); }, [&] { push(2); }};
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    const auto lines = fb::format_trace(s.trace());
    const auto table = fb::format_trace_columns(s.trace(), r.fibers.size(), 200);  // content, not width
    ASSERT_EQ(table.size(), lines.size() + 1) << joined(lines);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      // The line: step, fN, then the words of the cell.
      std::vector<std::string> line = words(lines[i]);
      line.erase(line.begin(), line.begin() + 2);
      // The row: step, then one cell per fiber, split at '|' (no cell contains one); the
      // event's fiber's cell is the filled one.
      std::vector<std::string> cells(1);
      for (const char c : table[i + 1]) {
        if (c == '|') cells.emplace_back();
        else cells.back().push_back(c);
      }
      const std::uint32_t fiber = s.trace()[i].fiber;
      ASSERT_LT(fiber + 1, cells.size()) << table[i + 1];
      EXPECT_EQ(words(cells[fiber + 1]), line) << table[i + 1] << "\n" << lines[i];
    }
    for (Node* n = head.load(); n != nullptr;) delete std::exchange(n, n->next);
  }
}

// The report prints the table when there is one, else the lines; a long run shows its first
// and last 40 steps in either layout, the table under its header.
TEST(FiberFormat, ReportShowsTheTableOrTheLinesWithLongRunsElided) {
  const LostUpdate run;
  std::vector<fb::TraceEvent> trace;
  for (std::uint32_t i = 0; i < 100; ++i) trace.push_back(event(i, i % 2, fb::Op::load, 0, run.loc[0], integer(0)));
  duet::detail::ReportData d;
  d.name = "Spec";
  d.trace.diagram = "        c.incr() : 1 | c.incr() : 1\n";
  d.trace.verdict = "no linearizable order of the calls explains the results";
  d.trace.schedule = "random";
  d.trace.interleaving = fb::format_trace(trace);
  d.trace.interleaving_columns = fb::format_trace_columns(trace, 2);
  ASSERT_FALSE(d.trace.interleaving_columns.empty());
  const auto shown = [](const std::string& report, const std::string& line) {
    return report.find("\n    " + line + "\n") != std::string::npos;
  };
  const auto& table = d.trace.interleaving_columns;
  const std::string columns = duet::detail::format_report(d);
  EXPECT_NE(columns.find("100 steps:\n    " + table[0] + "\n    " + table[1] + "\n"), std::string::npos) << columns;
  EXPECT_TRUE(shown(columns, table[40])) << columns;  // step 39
  EXPECT_TRUE(shown(columns, "... 20 steps not shown ...")) << columns;
  EXPECT_FALSE(shown(columns, table[41])) << columns;
  EXPECT_FALSE(shown(columns, table[60])) << columns;
  EXPECT_TRUE(shown(columns, table[61])) << columns;  // step 60
  EXPECT_TRUE(shown(columns, table[100])) << columns;
  EXPECT_EQ(columns.find("  f0  "), std::string::npos) << columns;

  d.trace.interleaving_columns.clear();  // too wide: the lines
  const auto& lines = d.trace.interleaving;
  const std::string report = duet::detail::format_report(d);
  EXPECT_NE(report.find("100 steps:\n    " + lines[0] + "\n"), std::string::npos) << report;
  EXPECT_TRUE(shown(report, lines[39])) << report;
  EXPECT_TRUE(shown(report, "... 20 steps not shown ...")) << report;
  EXPECT_FALSE(shown(report, lines[40])) << report;
  EXPECT_TRUE(shown(report, lines[60])) << report;
  EXPECT_EQ(report.find("step | fiber 0"), std::string::npos) << report;
}

}  // namespace
