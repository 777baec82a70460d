// A failure on the fiber scheduler as an HTML page (DUET_TIMELINE): its interleaving drawn as
// `duet-check --html` draws a history, with the same stylesheet (report/page.hpp). A lane per
// fiber (and one for the prefix and suffix, run on the calling thread), each call a bar from
// its invocation to its return, each step a mark on its fiber's lane, steps in schedule order
// left to right; hovering or clicking a mark or a bar shows its full text.
//
//   ReportData d = ...;  // a failing fiber trial's report (d.trace.interleaving_steps set)
//   write_fiber_timeline(d, "duet-output");  // d.timeline_path or d.timeline_error
#pragma once

#include <string>

#include "report/report.hpp"

namespace duet::detail {

/// The page: self-contained (inline CSS and script, no network), the same bytes for the same
/// report, every text from the run escaped. The steps shown are the report's
/// (ReportData::trace_steps: the first and last halves, the rest named as left out).
std::string render_fiber_timeline(const ReportData& d);

/// Where the page goes for the setting `where`: the file itself when it ends in ".html", else
/// <where>/<name>_timeline.html.
std::string fiber_timeline_path(const std::string& where, const std::string& name);

/// Writes the page (its directory made if missing) and sets d.timeline_path, or, when it
/// cannot be written, d.timeline_error; never throws.
void write_fiber_timeline(ReportData& d, const std::string& where) noexcept;

}  // namespace duet::detail
