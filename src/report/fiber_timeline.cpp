// A fiber failure's interleaving as an HTML page: see fiber_timeline.hpp. The page is static
// markup (positions as CSS variables, full texts as title attributes), so it reads without its
// script; the script only zooms, and shows a clicked mark's text in the panel.
#include "report/fiber_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "report/assets.hpp"
#include "report/page.hpp"

namespace duet::detail {
namespace {

using page::clean;
using page::put_html;

constexpr std::size_t kTextCap = 2000;  // one step's or call's text
constexpr int kUnit = 40;               // pixels per column at first


// The columns of the horizontal axis: the prefix's calls, the steps shown (a gap column where
// the middle of a long run is left out, as the text report leaves it out), the suffix's calls.
struct Columns {
  std::size_t prefix = 0, steps = 0, head = 0, tail = 0;
  bool cut = false;

  Columns(const ReportData& d) : prefix(d.trace.y_prefix.size()), steps(d.trace.interleaving_steps.size()) {
    const std::size_t shown = d.trace_steps > 0 && steps > d.trace_steps ? static_cast<std::size_t>(d.trace_steps) : steps;
    cut = shown < steps;
    head = shown / 2;
    tail = shown - head;
    if (!cut) head = steps, tail = 0;
  }
  bool shown(std::size_t i) const { return !cut || i < head || i >= steps - tail; }
  std::size_t gap() const { return prefix + head; }
  std::size_t step_columns() const { return cut ? head + 1 + tail : steps; }
  // The left edge of step i's column; i == steps: the end of the steps. Inside the gap: its middle.
  double at(std::size_t i) const {
    if (!cut || i < head) return static_cast<double>(prefix + i);
    if (i < steps - tail) return static_cast<double>(gap()) + 0.5;
    return static_cast<double>(gap() + 1 + (i - (steps - tail)));
  }
  std::size_t suffix_at(std::size_t k) const { return prefix + step_columns() + k; }
};

std::string number(double x) {
  // Columns are whole or halves: one decimal at most, the same text on every platform.
  const long long tenths = std::llround(x * 10);
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : std::string());
}

// The lanes: the axis, the calling thread (prefix and suffix, when the program has them), then
// one per fiber that ran a step or a call.
struct Lanes {
  std::vector<std::string> names;
  std::map<std::uint32_t, std::size_t> of_fiber;
  std::size_t main = 0;  // the calling thread's lane, 0 when none
};

Lanes lay_out_lanes(const ReportData& d) {
  const Trace& t = d.trace;
  Lanes lanes;
  lanes.names.push_back("step");
  if (!t.y_prefix.empty() || !t.y_suffix.empty()) {
    lanes.main = lanes.names.size();
    lanes.names.push_back(t.y_suffix.empty() ? "prefix" : t.y_prefix.empty() ? "suffix" : "prefix \xC2\xB7 suffix");
  }
  for (const InterleavingStep& s : t.interleaving_steps) lanes.of_fiber.emplace(s.fiber, 0);
  for (const ClockRead& c : t.clock_reads) lanes.of_fiber.emplace(c.fiber, 0);
  for (auto& [fiber, lane] : lanes.of_fiber) {
    lane = lanes.names.size();
    std::string name = "fiber " + std::to_string(fiber);
    if (fiber < t.y_roles.size()) name += " \xC2\xB7 " + t.y_roles[fiber];
    lanes.names.push_back(name);
  }
  return lanes;
}

// A step's kind, for its colour: lifetime, synchronisation, plain memory, a crash, a stale read.
const char* step_class(const InterleavingStep& s) {
  const std::string_view op = std::string_view(s.op).substr(0, s.op.find('('));
  if (op == "CRASH" || s.op == "exit (exception)") return "fs bad";
  if (!s.note.empty()) return "fs stale";
  if (op == "start" || op == "exit") return "fs life";
  for (std::string_view memory : {"load", "store", "rmw", "cas", "read", "write", "destroy"})
    if (op == memory) return "fs";
  return "fs sync";
}

std::string step_text(const InterleavingStep& s) {
  std::string text = "step " + std::to_string(s.step) + " \xC2\xB7 fiber " + std::to_string(s.fiber) + "\n" + s.op;
  if (!s.object.empty()) text += " " + s.object;
  if (!s.value.empty()) text += " " + s.value;
  if (!s.location.empty()) text += "\nat " + s.location;
  if (!s.note.empty()) text += "\n" + s.note;
  return text;
}

// An element placed by CSS variables, its full text as its title.
void put_element(std::string& o, const char* cls, const std::string& vars, const std::string& title,
                 const std::string& label) {
  o += "<div class=\"";
  o += cls;
  o += "\" style=\"" + vars + "\" title=\"";
  put_html(o, clean(title, kTextCap));
  o += "\">";
  put_html(o, clean(label, kTextCap));
  o += "</div>";
}

// The axis's step numbers and each shown step's mark on its fiber's lane.
void put_steps(std::string& o, const ReportData& d, const Columns& cols, const Lanes& lanes) {
  const auto& steps = d.trace.interleaving_steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!cols.shown(i)) continue;
    const std::string x = "--x:" + number(cols.at(i));
    o += "<div class=\"ax\" style=\"" + x + "\">" + std::to_string(steps[i].step) + "</div>";
    const std::string vars = x + ";--l:" + std::to_string(lanes.of_fiber.at(steps[i].fiber));
    put_element(o, step_class(steps[i]), vars, step_text(steps[i]), steps[i].op);
    o += "\n";
  }
  if (cols.cut) {
    const std::size_t left_out = cols.steps - cols.head - cols.tail;
    o += "<div class=\"gap\" style=\"--x:" + std::to_string(cols.gap()) + "\" title=\"" + std::to_string(left_out) +
         " steps not shown (DUET_TRACE_STEPS=0 shows every step)\"></div>\n";
  }
}

// One call of the program: its C++ and result, where it is, and which lane and columns it takes.
struct Call {
  std::string code, result, where;
  std::uint64_t invoke = 0, response = 0;
  bool on_fibers = false;
};

std::vector<Call> program_calls(const Trace& t) {
  std::vector<Call> calls;
  for (std::size_t k = 0; k < t.y_prefix.size(); ++k)
    calls.push_back({t.y_prefix[k], "", "prefix call " + std::to_string(k + 1)});
  for (std::size_t b = 0; b < t.y_branches.size(); ++b)
    for (std::size_t k = 0; k < t.y_branches[b].size(); ++k)
      calls.push_back(
          {t.y_branches[b][k], "", "branch " + std::to_string(b) + ", call " + std::to_string(k + 1), 0, 0, true});
  for (std::size_t k = 0; k < t.y_suffix.size(); ++k)
    calls.push_back({t.y_suffix[k], "", "suffix call " + std::to_string(k + 1)});
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i < t.y_results.size()) calls[i].result = t.y_results[i];
    if (i < t.call_times.size()) std::tie(calls[i].invoke, calls[i].response) = t.call_times[i];
  }
  return calls;
}

// Where the run read the clock at `time` (a call's invoke or response), or null.
const ClockRead* clock_read_at(const std::vector<ClockRead>& reads, std::uint64_t time) {
  if (time == 0) return nullptr;
  const auto it = std::find_if(reads.begin(), reads.end(), [&](const ClockRead& c) { return c.time == time; });
  return it == reads.end() ? nullptr : &*it;
}

// A call on the fibers: a bar from the step it was invoked before to the step it returned before.
void put_fiber_call(std::string& o, const Call& c, const ReportData& d, const Columns& cols, const Lanes& lanes,
                    const std::string& label) {
  const ClockRead* invoke = clock_read_at(d.trace.clock_reads, c.invoke);
  if (invoke == nullptr) return;  // never started: the report's diagram says so
  const ClockRead* response = clock_read_at(d.trace.clock_reads, c.response);
  const double from = cols.at(std::min<std::size_t>(invoke->steps, cols.steps));
  const double to = response ? cols.at(std::min<std::size_t>(response->steps, cols.steps)) : cols.at(cols.steps);
  std::string text =
      label + "\n" + c.where + " \xC2\xB7 fiber " + std::to_string(invoke->fiber) + "\ninvoked before step " +
      std::to_string(invoke->steps) +
      (response ? ", returned before step " + std::to_string(response->steps) : std::string(", never returned"));
  const std::string vars = "--l:" + std::to_string(lanes.of_fiber.at(invoke->fiber)) + ";--s:" + number(from) +
                           ";--w:" + number(std::max(to - from, 0.6));
  put_element(o, response ? "bar lin" : "bar info", vars, text, label);
}

void put_calls(std::string& o, const ReportData& d, const Columns& cols, const Lanes& lanes) {
  const std::vector<Call> calls = program_calls(d.trace);
  const std::size_t suffix_from = calls.size() - d.trace.y_suffix.size();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    const std::string label = c.result.empty() ? c.code : c.code + " : " + c.result;
    if (c.on_fibers) {
      put_fiber_call(o, c, d, cols, lanes, label);
    } else {
      const bool prefix = i < suffix_from;
      const std::size_t x = prefix ? i : cols.suffix_at(i - suffix_from);
      const std::string text = label + "\n" + c.where + ", on the calling thread " +
                               (prefix ? "before the fibers started" : "after the fibers ended");
      put_element(o, "bar lin", "--l:" + std::to_string(lanes.main) + ";--s:" + std::to_string(x) + ";--w:0.94", text,
                  label);
    }
    o += "\n";
  }
}

// The header: what failed, the facts, the program and its verdict.
void put_header(std::string& o, const ReportData& d, const Columns& cols, const Lanes& lanes) {
  const Trace& t = d.trace;
  std::string facts = "<dl class=\"facts\">";
  page::put_fact(facts, "Check", page::html(clean(d.name, 500)));
  page::put_fact(facts, "Schedules", page::html(clean(t.schedule, 200)));
  page::put_fact(facts, "Steps",
                 std::to_string(cols.steps) + (cols.cut ? " (" + std::to_string(cols.head + cols.tail) + " shown)" : ""));
  page::put_fact(facts, "Fibers", std::to_string(lanes.of_fiber.size()));
  page::put_fact(facts, "Calls", std::to_string(program_calls(t).size()));
  page::put_fact(facts, "Replay", "DUET_REPLAY=" + page::html(clean(d.token, 500)));
  facts += "</dl>\n";
  const std::string verdict = d.error ? "error" : "failed";
  o += "<header class=\"top\">\n<div class=\"title\"><h1>Fiber interleaving</h1><span class=\"verdict " +
       std::string(d.error ? "v-unknown" : "v-not-linearizable") + "\">" + verdict + "</span></div>\n" + facts;
  std::string program = t.setup.empty() ? std::string() : "        " + t.setup + "\n";
  program += t.diagram + "\n  " + (d.message.empty() ? t.verdict : d.message);
  if (!t.uninstrumented.empty()) program += "\n  " + t.uninstrumented + ".";
  o += "<details open><summary>Program</summary><pre class=\"expl\">";
  put_html(o, clean(program, 32000));
  o += "</pre></details>\n</header>\n";
  if (cols.cut)
    o += "<div class=\"omitted\"><b>" + std::to_string(cols.head + cols.tail) + " of " + std::to_string(cols.steps) +
         " steps shown</b>, the first " + std::to_string(cols.head) + " and the last " + std::to_string(cols.tail) +
         " (DUET_TRACE_STEPS=0 shows every step)</div>\n";
}

// The zoom, the lanes' names and the canvas of marks and bars.
void put_timeline(std::string& o, const ReportData& d, const Columns& cols, const Lanes& lanes) {
  const std::size_t width = cols.suffix_at(d.trace.y_suffix.size());
  o +=
      "<div class=\"tools\"><label>Zoom <input id=\"zoom\" type=\"range\" min=\"8\" max=\"160\" step=\"1\" value=\"" +
      std::to_string(kUnit) +
      "\"></label><span>steps in schedule order, left to right; a call's bar spans its invocation to its return</span>"
      "<div class=\"legend\"><span><i style=\"background:#dbe7fd;border:1px solid #6e9ef0\"></i>call / synchronisation</span>"
      "<span><i style=\"background:#eceef1;border:1px solid #b6bcc4\"></i>memory</span>"
      "<span><i style=\"background:#fff8c5;border:1px solid #d4a72c\"></i>stale read</span>"
      "<span><i style=\"background:#ffe4e1;border:1px solid #cf222e\"></i>crash</span></div></div>\n";
  o += "<main class=\"tl\"><div class=\"names\">";
  for (const std::string& name : lanes.names) {
    o += "<div class=\"pname\" style=\"height:44px\">";
    put_html(o, clean(name, 200));
    o += "</div>";
  }
  o += "</div><div class=\"sc\"><div class=\"cv\" id=\"cv\" data-cols=\"" + std::to_string(width) +
       "\" style=\"--u:" + std::to_string(kUnit) + "px;width:" + std::to_string(width * kUnit + 8) +
       "px;height:" + std::to_string(lanes.names.size() * 44) + "px\">\n";
  for (std::size_t l = 0; l < lanes.names.size(); ++l)
    o += "<div class=\"lane" + std::string(l % 2 ? " alt" : "") + "\" style=\"--l:" + std::to_string(l) + ";--n:1\"></div>";
  o += "\n";
  put_steps(o, d, cols, lanes);
  put_calls(o, d, cols, lanes);
  o += "</div></div></main>\n<section class=\"panel\" id=\"panel\"></section>\n";
}

}  // namespace

std::string render_fiber_timeline(const ReportData& d) {
  const Columns cols(d);
  const Lanes lanes = lay_out_lanes(d);
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  put_html(o, clean(d.name, 500));
  o += " \xE2\x80\x94 duet fiber interleaving</title>\n<style>";
  o += page::style();
  o += assets::fiber_timeline_css;
  o += "</style></head>\n<body>\n";
  put_header(o, d, cols, lanes);
  put_timeline(o, d, cols, lanes);
  o += "<footer>Drawn by duet from the failing run on the fiber scheduler; the replay token runs it again, step for "
       "step.</footer>\n<script>";
  o += assets::fiber_timeline_js;
  o += "</script>\n</body></html>\n";
  return o;
}

std::string fiber_timeline_path(const std::string& where, const std::string& name) {
  if (where.size() > 5 && where.ends_with(".html")) return where;
  return (std::filesystem::path(where) / (identifier(name) + "_timeline.html")).string();
}

void write_fiber_timeline(ReportData& d, const std::string& where) noexcept {
  try {
    const std::string path = fiber_timeline_path(where, d.name);
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
    write_file_aside(path, render_fiber_timeline(d));
    d.timeline_path = path;
  } catch (const std::exception& e) {
    d.timeline_error = e.what();
  } catch (...) {
    d.timeline_error = "cannot write the page";
  }
}

}  // namespace duet::detail
