// Reading recorded histories: format detection, and the choice of parser for a history's
// text (detect_format, parse_history). The four parsers are one file per format family
// (parse_jepsen_log.cpp, parse_kv_edn.cpp, parse_duet.cpp) over what they share
// (parse_common.hpp: lines, events, the pairing of invocations with completions); reading a
// file or standard input is read.cpp.
#include <string>

#include "duet/history.hpp"
#include "history/parse_common.hpp"

namespace duet::history {
namespace {

using detail::DeadlineCheck;
using detail::fail;
using detail::is_blank;
using detail::is_jepsen_event_line;
using detail::jepsen_message;
using detail::kDuetHeader;
using detail::LineCursor;
using detail::parse_duet;
using detail::parse_edn;
using detail::parse_jepsen_log;
using detail::parse_kv_log;
using detail::snippet;
using detail::trim;

std::string_view strip_bom(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

bool only_whitespace(std::string_view text) {
  for (char c : text)
    if (!is_blank(c) && c != '\n') return false;
  return true;
}

Format detect(std::string_view text, const std::string& source, DeadlineCheck* deadline);

History parse_as(Format format, std::string_view text, const std::string& source, DeadlineCheck& deadline) {
  switch (format) {
    case Format::jepsen_log: return parse_jepsen_log(text, source, deadline);
    case Format::kv_log: return parse_kv_log(text, source, deadline);
    case Format::edn: return parse_edn(text, source, deadline);
    case Format::duet: return parse_duet(text, source, deadline);
    case Format::automatic: break;
  }
  return parse_as(detect(text, source, &deadline), text, source, deadline);
}

// The message of a ParseError without its "file:line: " prefix.
std::string message_of(const ParseError& e) {
  const std::string prefix = e.file() + ":" + std::to_string(e.line()) + ": ";
  const std::string_view what = e.what();
  return std::string(what.substr(0, prefix.size()) == prefix ? what.substr(prefix.size()) : what);
}

Format detect(std::string_view text, const std::string& source, DeadlineCheck* deadline) {
  text = strip_bom(text);
  LineCursor lines{text, deadline};
  std::string_view line;
  std::string_view first;
  std::size_t first_number = 0;
  while (lines.next(line)) {
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    if (t.front() == ';') {
      if (t.substr(0, kDuetHeader.size()) == kDuetHeader) return Format::duet;
      continue;
    }
    first = t;
    first_number = lines.number;
    break;
  }
  if (first_number == 0) fail(source, 1, "empty history file (no operations)");
  // An event line first (a log line may start with `[` or `{`), then the opening bracket.
  if (is_jepsen_event_line(first)) return Format::jepsen_log;
  if (first.front() == '[' || first.front() == '(') return Format::edn;
  if (first.front() == '{') return Format::kv_log;
  if (jepsen_message(first)) return Format::jepsen_log;
  // A Jepsen log may open with other log lines: any event line further down decides.
  while (lines.next(line))
    if (is_jepsen_event_line(line)) return Format::jepsen_log;
  fail(source, first_number,
       "cannot tell the format of this file; pass --format (jepsen-log, kv-log, edn or duet); the first line is `" +
           snippet(first) + "`");
}

}  // namespace

Format detect_format(std::string_view text, const std::string& source) { return detect(text, source, nullptr); }

History parse_history(std::string_view text, Format format, const std::string& source,
                      std::chrono::steady_clock::time_point deadline) {
  DeadlineCheck check(deadline, text.size());
  text = strip_bom(text);
  if (only_whitespace(text)) fail(source, 1, "empty history file (no operations)");
  if (format == Format::automatic) return parse_as(detect(text, source, &check), text, source, check);
  try {
    return parse_as(format, text, source, check);
  } catch (const ParseError& e) {
    // A format given explicitly that does not fit: say what the file looks like.
    Format guess = format;
    try {
      guess = detect(text, source, &check);
    } catch (const ParseError&) {
    }
    if (guess == format) throw;
    throw ParseError(e.file(), e.line(),
                     message_of(e) + " (read as " + std::string(format_name(format)) + ", but the file looks like " +
                         std::string(format_name(guess)) + ")");
  }
}

}  // namespace duet::history
