// The HTML timeline of a checked history: one self-contained page (inline CSS and JS, no
// network), a lane per process, a bar per operation, the linearization order drawn over the
// bars, the stuck operation highlighted. The operations travel as one compact JSON array plus a
// string table and the page's script draws them, so the page grows by a few dozen bytes per
// operation; when it would still exceed max_bytes, only a window around the interesting part is
// kept and the page says what it left out.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "duet/history.hpp"
#include "history/quote.hpp"
#include "report/assets.hpp"
#include "report/page.hpp"
#include "report/timeline_rows.hpp"
#include "report/timeline_window.hpp"

namespace duet::history {
namespace {

using timeline::choose;
using timeline::digits;
using timeline::Prepared;
using timeline::Selection;

using ::duet::detail::page::clean;
using ::duet::detail::page::html;
using ::duet::detail::page::put_fact;
using ::duet::detail::page::put_html;
using ::duet::detail::page::put_json;

// Caps on single strings, so one huge value cannot eat the whole page (the tooltip then shows
// the clipped text, marked with an ellipsis).
constexpr std::size_t kLabelCap = 400;
constexpr std::size_t kStateCap = 2000;
constexpr std::size_t kStuckStateCap = 8000;
constexpr std::size_t kExplanationCap = 32000;
// JS numbers are exact only up to 2^53: larger times travel as strings.
constexpr std::uint64_t kMaxSafeJsInteger = (std::uint64_t{1} << 53) - 1;

std::size_t json_size(std::string_view s) {
  std::string tmp;
  put_json(tmp, s);
  return tmp.size();
}

void put_time(std::string& out, std::uint64_t t) {
  if (t <= kMaxSafeJsInteger) {
    out += std::to_string(t);
    return;
  }
  out += '"';
  out += std::to_string(t);
  out += '"';
}

std::size_t time_size(std::uint64_t t) { return digits(t) + (t <= kMaxSafeJsInteger ? 0 : 2); }

// What the bar says: `cas [1 2] -> ok`, `read -> 3`, `get "k" -> "x 0 0 y"`.
std::string op_label(const Operation& op) {
  std::string s = op.f.empty() ? std::string("?") : op.f;
  if (op.key) s += ' ' + op.key->to_string();
  if (!op.input.is_nil()) s += ' ' + op.input.to_string();
  s += " -> ";
  if (op.outcome == Outcome::info || op.result_unknown) s += '?';
  else if (op.outcome == Outcome::fail) s += "fail";
  // A completion without a value (or echoing its input) just says the operation took effect;
  // a read of an empty register really returned nil.
  else if (op.output.is_nil()) s += op.input.is_nil() ? "nil" : "ok";
  else if (!op.input.is_nil() && op.output == op.input) s += "ok";
  else s += op.output.to_string();
  return clean(s, kLabelCap);
}

Prepared prepare(const History& h, const CheckReport& r) {
  Prepared p;
  const std::size_t n = h.ops.size();
  p.label.resize(n);
  p.position.assign(n, -1);
  p.state.assign(n, -1);
  std::unordered_map<std::string, std::size_t> index;
  auto intern = [&](std::string s) {
    auto [it, fresh] = index.try_emplace(std::move(s), p.strings.size());
    if (fresh) {
      p.strings.push_back(it->first);
      p.string_json_size.push_back(json_size(it->first));
    }
    return it->second;
  };
  for (std::size_t i = 0; i < n; ++i) p.label[i] = intern(op_label(h.ops[i]));
  // A malformed report (index out of range, an operation twice) must not break the page: the
  // first placement wins.
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    const std::size_t i = r.order[k];
    if (i >= n || p.position[i] >= 0) continue;
    p.position[i] = static_cast<std::int64_t>(k);
    if (k < r.states.size()) p.state[i] = static_cast<std::int64_t>(intern(clean(r.states[k], kStateCap)));
  }
  if (r.stuck && *r.stuck < n) p.stuck = r.stuck;
  if (!r.partition_ops.empty()) {
    p.other_partition.assign(n, true);
    for (std::size_t i : r.partition_ops)
      if (i < n) p.other_partition[i] = false;
  }
  if (!r.witness.empty()) {
    p.in_witness.assign(n, false);
    for (std::size_t i : r.witness)
      if (i < n) p.in_witness[i] = true;
    p.witness_open.assign(n, false);
    for (std::size_t i : r.witness_open)
      if (i < n) p.witness_open[i] = true;
  }
  p.stuck_state = clean(r.stuck_state, kStuckStateCap);
  p.model = clean(r.model.empty() ? h.default_model : r.model, 200);
  std::vector<std::int64_t> procs;
  procs.reserve(n);
  for (const Operation& op : h.ops) procs.push_back(op.process);
  std::sort(procs.begin(), procs.end());
  p.processes = static_cast<std::size_t>(std::unique(procs.begin(), procs.end()) - procs.begin());
  // Row size bound: the numbers of a window never exceed the whole history's (ranks, rows and
  // string indices only shrink when fewer operations are shown).
  const std::size_t index_digits = digits(p.strings.size() + 1);
  p.row_size.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Operation& op = h.ops[i];
    const bool pending = op.response == Operation::kPending;
    p.row_size[i] = timeline_rows::kFields /* commas */ + digits(i) + digits(n) /* row */ +
                    2 * digits(2 * n + 1) /* ranks */ + 2 /* flags */ + 2 * index_digits + digits(r.order.size() + 1) +
                    digits(op.invoke_line) + digits(op.response_line) + time_size(op.invoke) +
                    (pending ? 2 : time_size(op.response));
  }
  return p;
}

// Each shown operation's bar as event ranks: time compressed to the order of the events, so the
// page reads the same whatever the clock's scale. Pending operations end at end_rank.
struct Bars {
  std::vector<std::size_t> start, end;
  std::size_t end_rank = 0;
};

Bars bar_ranks(const std::vector<Operation>& ops, const Selection& sel) {
  std::vector<std::uint64_t> times;
  times.reserve(sel.ops.size() * 2);
  for (std::size_t i : sel.ops) {
    times.push_back(ops[i].invoke);
    if (ops[i].response != Operation::kPending) times.push_back(ops[i].response);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  Bars bars;
  bars.end_rank = times.size();
  auto rank = [&](std::uint64_t t) {
    return static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  bars.start.resize(sel.ops.size());
  bars.end.resize(sel.ops.size());
  for (std::size_t k = 0; k < sel.ops.size(); ++k) {
    const Operation& op = ops[sel.ops[k]];
    bars.start[k] = rank(op.invoke);
    bars.end[k] = op.response == Operation::kPending ? bars.end_rank : std::max(bars.start[k], rank(op.response));
  }
  return bars;
}

// The page's rows: a lane per process, split in sub-lanes where its bars overlap.
struct Lanes {
  std::vector<std::size_t> row;  // per shown operation
  std::string json;              // process, first row, row count, ...
  std::size_t rows = 0;
};

// A process normally runs one operation at a time, but an indeterminate one never ends;
// overlapping bars of one process get stacked rows instead of hiding each other.
Lanes sub_lanes(const std::vector<Operation>& ops, const Selection& sel, const Bars& bars) {
  std::map<std::int64_t, std::vector<std::size_t>> by_process;
  for (std::size_t k = 0; k < sel.ops.size(); ++k) by_process[ops[sel.ops[k]].process].push_back(k);
  Lanes lanes;
  lanes.row.resize(sel.ops.size());
  for (auto& [process, ks] : by_process) {
    std::stable_sort(ks.begin(), ks.end(), [&](std::size_t a, std::size_t b) { return bars.start[a] < bars.start[b]; });
    std::vector<std::size_t> row_end;  // per sub-lane: end rank of its last bar
    for (std::size_t k : ks) {
      std::size_t j = 0;
      while (j < row_end.size() && row_end[j] > bars.start[k]) ++j;
      if (j == row_end.size()) row_end.push_back(0);
      row_end[j] = std::max(bars.end[k], bars.start[k] + 1);
      lanes.row[k] = lanes.rows + j;
    }
    if (!lanes.json.empty()) lanes.json += ',';
    // Process ids beyond JS's exact integers travel as strings.
    const bool exact =
        process >= -static_cast<std::int64_t>(kMaxSafeJsInteger) && process <= static_cast<std::int64_t>(kMaxSafeJsInteger);
    lanes.json += exact ? std::to_string(process) : '"' + std::to_string(process) + '"';
    lanes.json += ',' + std::to_string(lanes.rows) + ',' + std::to_string(row_end.size());
    lanes.rows += row_end.size();
  }
  return lanes;
}

// The flags field of operation i's row.
unsigned op_flags(const Operation& op, std::size_t i, const Prepared& p) {
  using namespace timeline_rows;
  unsigned flags = 0;
  if (op.outcome == Outcome::fail) flags |= flag_fail;
  if (op.outcome == Outcome::info || op.response == Operation::kPending) flags |= flag_info;
  if (op.result_unknown) flags |= flag_unknown_result;
  if (p.stuck && *p.stuck == i) flags |= flag_stuck;
  if (!p.other_partition.empty() && p.other_partition[i]) flags |= flag_other_partition;
  if (!p.in_witness.empty() && p.in_witness[i]) flags |= flag_witness;
  if (!p.witness_open.empty() && p.witness_open[i]) flags |= flag_witness_open;
  return flags;
}

// The window's string table, in first-use order: the page's index of each string it uses.
struct WindowStrings {
  std::vector<std::int64_t> local;  // per string of the history: its index here, or -1
  std::vector<std::size_t> table;   // per string here: its index in the history

  std::size_t index(std::size_t s) {
    if (local[s] < 0) {
      local[s] = static_cast<std::int64_t>(table.size());
      table.push_back(s);
    }
    return static_cast<std::size_t>(local[s]);
  }
};

// The "o" array: a row of timeline_rows' fields per shown operation, each field put in its
// declared place.
std::string op_rows(const std::vector<Operation>& ops, const Prepared& p, const Selection& sel, const Bars& bars,
                    const Lanes& lanes, WindowStrings& strings) {
  using namespace timeline_rows;
  std::string o;
  o.reserve(sel.ops.size() * 40);
  std::array<std::string, kFields> row;
  for (std::size_t k = 0; k < sel.ops.size(); ++k) {
    const std::size_t i = sel.ops[k];
    const Operation& op = ops[i];
    row[Field::op] = std::to_string(i);
    row[Field::lane] = std::to_string(lanes.row[k]);
    row[Field::start] = std::to_string(bars.start[k]);
    row[Field::end] = std::to_string(bars.end[k]);
    row[Field::flags] = std::to_string(op_flags(op, i, p));
    row[Field::label] = std::to_string(strings.index(p.label[i]));
    row[Field::position] = std::to_string(p.position[i] + 1);
    row[Field::state] = std::to_string(p.state[i] >= 0 ? strings.index(static_cast<std::size_t>(p.state[i])) + 1 : 0);
    row[Field::invoke_line] = std::to_string(op.invoke_line);
    row[Field::response_line] = std::to_string(op.response_line);
    row[Field::invoke_time].clear();
    put_time(row[Field::invoke_time], op.invoke);
    row[Field::response_time].clear();
    if (op.response == Operation::kPending) row[Field::response_time] = "-1";
    else put_time(row[Field::response_time], op.response);
    for (std::size_t f = 0; f < kFields; ++f) {
      if (k > 0 || f > 0) o += ',';
      o += row[f];
    }
  }
  return o;
}

// The names the script reads the rows by: "f":[fields],"fl":{flag:bit}.
std::string row_names() {
  std::string d = ",\"f\":[";
  for (std::size_t k = 0; k < timeline_rows::kFields; ++k) {
    if (k > 0) d += ',';
    put_json(d, timeline_rows::kFieldNames[k]);
  }
  d += "],\"fl\":{";
  for (const timeline_rows::FlagName& flag : timeline_rows::kFlags) {
    if (flag.bit != 1) d += ',';
    put_json(d, flag.name);
    d += ':' + std::to_string(flag.bit);
  }
  return d + '}';
}

// The data block: {"n":rows,"r":ranks,"rows":sub-lanes,"p":[process,first row,row count...],
// "o":[a row per operation],"f":[the rows' field names],"fl":{flag:bit},"s":[strings],
// "L":order length,"ss":stuck state,"v":verdict,"fw":1 when the witness is a failing window}.
// The rows' fields and flags are timeline_rows.hpp's.
std::string render_data(const History& h, const CheckReport& r, const Prepared& p, const Selection& sel) {
  const Bars bars = bar_ranks(h.ops, sel);
  const Lanes lanes = sub_lanes(h.ops, sel, bars);
  WindowStrings strings{std::vector<std::int64_t>(p.strings.size(), -1), {}};
  const std::string o = op_rows(h.ops, p, sel, bars, lanes, strings);
  std::string d = "{\"n\":" + std::to_string(sel.ops.size()) + ",\"r\":" + std::to_string(bars.end_rank) +
                  ",\"rows\":" + std::to_string(lanes.rows) + ",\"L\":" + std::to_string(r.order.size()) + ",\"v\":";
  put_json(d, verdict_name(r.verdict));
  d += ",\"ss\":";
  put_json(d, p.stuck ? p.stuck_state : std::string());
  // "fw": the witness is a failing window the search's violation was shrunk to.
  d += r.witness_is_window && !r.witness.empty() ? ",\"fw\":1" : ",\"fw\":0";
  d += row_names();
  d += ",\"p\":[" + lanes.json + "],\"o\":[";
  d += o;
  d += "],\"s\":[";
  for (std::size_t k = 0; k < strings.table.size(); ++k) {
    if (k > 0) d += ',';
    put_json(d, p.strings[strings.table[k]]);
  }
  d += "]}";
  return d;
}


// The header's facts: source, model, counts, the witness or the order, the search's cost.
std::string render_facts(const History& h, const CheckReport& r, const Prepared& p, const std::string& source) {
  std::string o = "<dl class=\"facts\">";
  put_fact(o, "Source", html(source));
  put_fact(o, "Model", html(p.model.empty() ? std::string("?") : p.model));
  put_fact(o, "Operations", std::to_string(h.ops.size()));
  put_fact(o, "Processes", std::to_string(p.processes));
  put_fact(o, "Partitions", std::to_string(r.partitions));
  if (r.verdict == Verdict::not_linearizable && !r.partial_linearization)
    put_fact(o, "Witness", std::to_string(r.witness.size()) + " operations");
  else
    put_fact(o, r.verdict == Verdict::linearizable ? "Linearized" : "Longest partial order", std::to_string(r.order.size()));
  if (r.verdict == Verdict::not_linearizable && r.witness_is_window && !r.witness.empty())
    put_fact(o, "Failing window", std::to_string(r.witness.size()) + " operations");
  else if (r.verdict == Verdict::not_linearizable && r.partial_linearization && !r.witness.empty())
    put_fact(o, "Witness", std::to_string(r.witness.size()) + " operations");
  if (r.verdict == Verdict::not_linearizable && !r.witness_start.empty()) {
    put_fact(o, "Window starts in", html(clean(detail::start_states_list(r.witness_start), kStuckStateCap)));
  }
  if (r.nodes) put_fact(o, "Search steps", std::to_string(r.nodes));
  if (r.milliseconds > 0)
    put_fact(o, "Check time", std::to_string(static_cast<std::uint64_t>(std::llround(r.milliseconds))) + " ms");
  o += "</dl>\n";
  return o;
}

// The stuck operation and why it cannot be placed (empty when nothing is stuck).
std::string render_stuck(const History& h, const CheckReport& r, const Prepared& p) {
  if (!p.stuck) return "";
  const Operation& op = h.ops[*p.stuck];
  std::string o = "<div class=\"stuckbox\"><b>Stuck operation</b> #" + std::to_string(*p.stuck) + " (process " +
                  std::to_string(op.process) +
                  (op.invoke_line ? ", line " + std::to_string(op.invoke_line) : std::string()) + "): <code>";
  put_html(o, p.strings[p.label[*p.stuck]]);
  if (r.partial_linearization) {
    o += "</code> cannot be linearized after the " + std::to_string(r.order.size()) +
         " operations of the order.<br>State there: <code>";
    put_html(o, p.stuck_state);
    o += "</code></div>\n";
  } else {
    o += "</code> cannot be linearized with the other " + std::to_string(r.witness.empty() ? 0 : r.witness.size() - 1) +
         " operations of the witness (outlined), which alone have no linearization; decided without a search.</div>\n";
  }
  return o;
}

// What a window left out (empty when everything is shown).
std::string render_omitted(const History& h, const Prepared& p, const Selection& sel, std::size_t max_bytes) {
  if (!sel.before && !sel.after) return "";
  std::string o = "<div class=\"omitted\" id=\"omitted\"><b>Window of " + std::to_string(sel.ops.size()) + " of " +
                  std::to_string(h.ops.size()) + " operations</b> (the page is limited to " + std::to_string(max_bytes) +
                  " bytes; " + (p.stuck ? "around the stuck operation" : "from the beginning") + ")";
  o += "<div class=\"counts\">";
  if (sel.before) o += "<span>\xE2\x97\x80 " + std::to_string(sel.before) + " operations before not shown</span>";
  if (sel.after) o += "<span>" + std::to_string(sel.after) + " operations after not shown \xE2\x96\xB6</span>";
  o += "</div></div>\n";
  return o;
}

// The zoom tools and the legend, then the empty timeline the script draws, up to the data block.
std::string render_tools(const CheckReport& r, const Prepared& p) {
  std::string o =
      "<div class=\"tools\"><label>Zoom <input id=\"zoom\" type=\"range\" min=\"2\" max=\"200\" step=\"1\" value=\"16\"></label>"
      "<button id=\"fit\" type=\"button\">Fit width</button><button id=\"gostuck\" type=\"button\">Go to stuck operation</button>"
      "<span>ctrl + wheel zooms</span><div class=\"legend\">"
      "<span><i style=\"background:#dbe7fd;border:1px solid #6e9ef0\"></i>linearized</span>"
      "<span><i style=\"background:#1f6feb;border-radius:6px;width:14px\"></i>order</span>"
      "<span><i style=\"background:#ffe4e1;border:2px solid #cf222e\"></i>stuck</span>"
      "<span><i style=\"background:#eceef1;border:1px solid #b6bcc4\"></i>not placed</span>"
      "<span><i style=\"background:repeating-linear-gradient(135deg,#f6e7d0 0 4px,#fcf4e8 4px 8px);border:1px solid #d39a4a\"></i>failed</span>"
      "<span><i style=\"background:linear-gradient(to right,#e4e7eb,#fff);border:1px dashed #8c959f\"></i>indeterminate</span>";
  if (!p.other_partition.empty())
    o += "<span><i style=\"background:#eceef1;border:1px solid #b6bcc4;opacity:.35\"></i>other partitions</span>";
  if (!p.in_witness.empty())
    o += std::string("<span><i style=\"background:#fff;outline:2px dashed #bf8700\"></i>") +
         (r.witness_is_window ? "failing window" : "witness") + "</span>";
  o +=
      "</div></div>\n"
      "<main class=\"tl\"><div class=\"names\" id=\"names\"></div><div class=\"sc\" id=\"sc\"><div class=\"cv\" id=\"cv\"></div></div></main>\n"
      "<section class=\"panel\" id=\"panel\"></section>\n<div class=\"tip\" id=\"tip\" hidden></div>\n"
      "<footer>Drawn by duet from the check report: bars span invocation to completion on a compressed time axis "
      "(one step per distinct event time); numbered markers are the linearization order.</footer>\n"
      "<noscript><p style=\"margin:0 24px\">The timeline is drawn by JavaScript; the summary above does not need it.</p></noscript>\n"
      "<script type=\"application/json\" id=\"duet-data\">";
  return o;
}

// Everything above the data block.
std::string render_prefix(const History& h, const CheckReport& r, const Prepared& p, const Selection& sel,
                          std::size_t explanation_cap, std::size_t max_bytes) {
  const std::string source = clean(h.source.empty() ? std::string("<input>") : h.source, 500);
  const std::string verdict(verdict_name(r.verdict));
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  put_html(o, source);
  o += " \xE2\x80\x94 duet timeline (" + verdict + ")</title>\n<style>";
  o += ::duet::detail::page::style();
  o += "</style></head>\n<body>\n<header class=\"top\">\n<div class=\"title\"><h1>Linearizability timeline</h1>"
       "<span class=\"verdict v-" +
       verdict + "\">" + verdict + "</span></div>\n";
  o += render_facts(h, r, p, source);
  o += render_stuck(h, r, p);
  const std::string explanation = clean(r.explanation, explanation_cap);
  if (!explanation.empty()) {
    o += "<details open><summary>Explanation</summary><pre class=\"expl\">";
    put_html(o, explanation);
    o += "</pre></details>\n";
  }
  o += "</header>\n";
  o += render_omitted(h, p, sel, max_bytes);
  o += render_tools(r, p);
  return o;
}

std::string render_suffix() {
  std::string o = "</script>\n<script>";
  o += ::duet::detail::assets::timeline_rows_js;
  o += ::duet::detail::assets::history_timeline_js;
  o += "</script>\n</body></html>\n";
  return o;
}

// Last resort when even the header does not fit: the verdict alone, no script.
std::string render_minimal(const History& h, const CheckReport& r, std::size_t max_bytes) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>duet timeline</title></head><body><p>" +
         std::string(verdict_name(r.verdict)) + ": " + std::to_string(h.ops.size()) +
         " operations; the timeline does not fit in " + std::to_string(max_bytes) + " bytes.</p></body></html>\n";
}

}  // namespace

std::string render_timeline_html(const History& h, const CheckReport& r, std::size_t max_bytes) {
  const Prepared p = prepare(h, r);
  const std::string suffix = render_suffix();
  // A worst-case omission note, so the real one never makes the page grow past the budget.
  Selection worst;
  worst.before = worst.after = h.ops.size() + 1;
  worst.ops.resize(h.ops.size());
  for (std::size_t cap : {kExplanationCap, std::size_t{2000}}) {
    const std::size_t fixed =
        render_prefix(h, r, p, worst, cap, max_bytes).size() + suffix.size() + render_data(h, r, p, Selection{}).size();
    if (fixed >= max_bytes) continue;
    std::size_t budget = max_bytes - fixed;
    // The size estimate is an upper bound, so the first try fits, typically 20% under the
    // limit: grow the budget by the slack while operations are still left out (and shrink it if
    // the estimate was ever wrong). Keep the largest page that fits.
    std::string best;
    for (int attempt = 0; attempt < 6; ++attempt) {
      const Selection sel = choose(h, p, budget);
      std::string page = render_prefix(h, r, p, sel, cap, max_bytes);
      page += render_data(h, r, p, sel);
      page += suffix;
      if (page.size() > max_bytes) {
        const std::size_t over = page.size() - max_bytes;
        if (over >= budget) break;
        budget -= over + budget / 20;
        continue;
      }
      const bool complete = sel.before == 0 && sel.after == 0;
      const std::size_t slack = max_bytes - page.size();
      if (page.size() > best.size()) best = std::move(page);
      if (complete || slack < max_bytes / 50) break;
      budget += slack - slack / 8;
    }
    if (!best.empty()) return best;
  }
  std::string minimal = render_minimal(h, r, max_bytes);
  return minimal.size() <= max_bytes ? minimal : std::string();
}

}  // namespace duet::history
