// The closest sequential witness of a parallel failure as the report prints it: the longest order
// of the calls the linearizability search explained, with the state the spec printed after each.
#include "report/witness.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace duet::detail {
namespace {

// Where call `i` (program order) of a Y-program is: "prefix", "branch 1", "suffix".
std::string y_part_of(const Trace& t, std::size_t i) {
  if (i < t.y_prefix.size()) return "prefix";
  i -= t.y_prefix.size();
  for (std::size_t b = 0; b < t.y_branches.size(); ++b) {
    if (i < t.y_branches[b].size()) return "branch " + std::to_string(b);
    i -= t.y_branches[b].size();
  }
  return "suffix";
}

// Call `i` of a Y-program as the diagram shows it: "q.push(1) : true".
std::string y_call_of(const Trace& t, std::size_t i) {
  std::size_t k = i;
  const std::string* text = nullptr;
  if (k < t.y_prefix.size()) text = &t.y_prefix[k];
  else k -= t.y_prefix.size();
  for (std::size_t b = 0; !text && b < t.y_branches.size(); ++b) {
    if (k < t.y_branches[b].size()) text = &t.y_branches[b][k];
    else k -= t.y_branches[b].size();
  }
  if (!text && k < t.y_suffix.size()) text = &t.y_suffix[k];
  const std::string call = text ? *text : "?";
  return i < t.y_shown_results.size() && !t.y_shown_results[i].empty() ? call + " : " + t.y_shown_results[i] : call;
}

// The row of the witness whose state the branches start from: after its last prefix call, when
// it placed the whole prefix (or starts after it); none (npos) when it stops inside the prefix.
std::size_t before_branches(const Trace& t) {
  if (t.y_witness_after_prefix) return 0;
  std::size_t row = 0, prefix_calls = 0;
  for (std::size_t r = 0; r < t.y_witness.size(); ++r)
    if (t.y_witness[r] < t.y_prefix.size()) {
      row = r + 1;
      ++prefix_calls;
    }
  return prefix_calls == t.y_prefix.size() ? row : std::string::npos;
}

// The closest sequential witness, when the spec prints its state: the longest order of the calls
// the search explained, each call with where it ran and the state after it, then the calls left.
}  // namespace

std::string report_witness(const Trace& t) {
  if (t.y_witness_states.size() != t.y_witness.size() + 1) return "";
  std::size_t calls = t.y_prefix.size() + t.y_suffix.size();
  for (const auto& b : t.y_branches) calls += b.size();
  // (where, call) of each row; the first is the state the order starts from.
  std::vector<std::pair<std::string, std::string>> rows{{"", t.y_witness_after_prefix ? "after the prefix" : "initially"}};
  std::size_t width = rows[0].second.size(), where_width = 0;
  std::vector<bool> placed(calls, false);
  // A witness that starts after the prefix orders the other calls only.
  if (t.y_witness_after_prefix) std::fill_n(placed.begin(), std::min(t.y_prefix.size(), calls), true);
  const std::size_t ordered = calls - (t.y_witness_after_prefix ? std::min(t.y_prefix.size(), calls) : 0);
  for (std::size_t i : t.y_witness) {
    if (i < calls) placed[i] = true;
    rows.emplace_back(y_part_of(t, i), y_call_of(t, i));
    where_width = std::max(where_width, rows.back().first.size());
    width = std::max(width, rows.back().second.size());
  }
  std::string out = "\n  closest sequential witness (the longest order of the calls the search explained: " +
                    std::to_string(t.y_witness.size()) + " of " + std::to_string(ordered) + "):\n";
  const std::size_t branches_from = before_branches(t);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line = "    " + rows[r].first;
    line.resize(4 + where_width + 2, ' ');
    line += rows[r].second;
    line.resize(4 + where_width + 2 + width + 2, ' ');
    out += line + "state: " + t.y_witness_states[r] + (r == branches_from ? "  (before the branches)" : "") + "\n";
  }
  std::string left;
  for (std::size_t i = 0; i < calls; ++i)
    if (!placed[i]) left += (left.empty() ? "" : ", ") + y_call_of(t, i) + " (" + y_part_of(t, i) + ")";
  if (!left.empty()) out += "  not explained after it: " + left + "\n";
  return out;
}

}  // namespace duet::detail
