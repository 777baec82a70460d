// The Jepsen log parser (the format of etcd's and Knossos' logs): the operations among a
// Jepsen test's log lines, paired by process. On its own because recognising an operation
// line behind any logging prefix takes rules of its own; format detection uses them too.
//
// Jepsen prints an operation as `PROCESS :TYPE :F VALUE [ERROR]` through the logger
// jepsen.util, behind whatever prefix its logging configuration adds:
//   INFO  jepsen.util - 3<TAB>:invoke<TAB>:read<TAB>nil                      (Knossos, etcd logs)
//   2017-05-31 16:32:45,114{GMT}<TAB>INFO<TAB>[jepsen worker 3] jepsen.util: 3<TAB>:ok<TAB>:read<TAB>2
//   INFO [2021-03-04 05:06:07,890] jepsen worker 3 - jepsen.util 3<TAB>:fail<TAB>:cas<TAB>[1 2]<TAB>:timeout
// Fields are separated by tabs, or by runs of spaces where a log pipeline rewrote the tabs.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "history/parse_common.hpp"

namespace duet::history::detail {
namespace {

// The next whitespace-separated field of `rest`, removed from it.
std::string_view next_field(std::string_view& rest) {
  rest = trim(rest);
  std::size_t end = 0;
  while (end < rest.size() && !is_blank(rest[end])) ++end;
  const std::string_view field = rest.substr(0, end);
  rest = rest.substr(end);
  return field;
}

bool is_event_type_field(std::string_view field) {
  EventType t;
  return field.size() >= 2 && field.front() == ':' && event_type(field.substr(1), t);
}

// Is this jepsen.util message an operation (well formed or not)? Its second field is a
// keyword and either it is one of the four types or the first field looks like a process (a
// number, or a keyword such as :nemesis). Other jepsen.util messages ("Setting up nodes")
// are ordinary log lines.
bool is_jepsen_event(std::string_view message) {
  const std::string_view process = next_field(message);
  const std::string_view type = next_field(message);
  if (process.empty() || type.empty() || type.front() != ':') return false;
  if (is_event_type_field(type)) return true;
  std::string_view digits = process;
  if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
  const bool number =
      !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  return number || process.front() == ':';
}

// The process field, read by the rules of an EDN integer, as the other formats' :process is:
// an optional sign, digits, no leading zero, 64 bits.
std::int64_t parse_process(std::string_view text, const std::string& source, std::size_t line) {
  if (text.empty()) fail(source, line, "empty process field");
  std::string_view digits = text;
  if (digits.front() == '+' || digits.front() == '-') digits.remove_prefix(1);
  const bool numeric =
      !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numeric) fail(source, line, "process id `" + snippet(text) + "` is not an integer");
  if (digits.size() > 1 && digits.front() == '0')
    fail(source, line, "process id `" + snippet(text) + "` is not an integer (EDN integers have no leading zeros)");
  // from_chars takes a '-' but not a '+'.
  const std::string_view number = text.front() == '+' ? digits : text;
  std::int64_t n = 0;
  const auto r = std::from_chars(number.data(), number.data() + number.size(), n);
  if (r.ec == std::errc::result_out_of_range)
    fail(source, line, "process id `" + snippet(text) + "` is out of range (64-bit)");
  return n;
}

}  // namespace

// ---- Jepsen log lines ----

std::optional<std::string_view> jepsen_message(std::string_view line) {
  constexpr std::string_view kLogger = "jepsen.util";
  for (std::size_t at = line.find(kLogger); at != std::string_view::npos; at = line.find(kLogger, at + 1)) {
    // A logger name stands alone: not inside a longer name (jepsen.utility).
    if (at > 0 && !is_blank(line[at - 1]) && line[at - 1] != ']' && line[at - 1] != '\t') continue;
    std::string_view rest = line.substr(at + kLogger.size());
    if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
    else if (rest.empty() || !is_blank(rest.front())) continue;
    rest = trim(rest);
    if (rest.size() >= 2 && rest.front() == '-' && is_blank(rest[1])) rest = trim(rest.substr(1));
    else if (rest == "-") rest = {};
    return rest;
  }
  return std::nullopt;
}

bool is_jepsen_event_line(std::string_view line) {
  const std::optional<std::string_view> message = jepsen_message(line);
  return message && is_jepsen_event(*message);
}

// ---- Jepsen log (etcd) ----

History parse_jepsen_log(std::string_view text, const std::string& source, DeadlineCheck& deadline) {
  Pairer pairer(source, /*fail_drops=*/false, newlines(text) / 2 + 1);
  std::size_t event_lines = 0;
  LineCursor lines{text, &deadline};
  std::string_view line;
  while (lines.next(line)) {
    const std::optional<std::string_view> message = jepsen_message(line);
    if (!message || !is_jepsen_event(*message)) continue;  // an ordinary log line
    ++event_lines;
    // PROCESS :TYPE :F VALUE [ERROR]: three fields, then one EDN form, then what the
    // completion says went wrong (ignored: the type says what it means for the check).
    std::string_view rest = *message;
    const std::string_view process = next_field(rest);
    const std::string_view type = next_field(rest);
    const std::string_view function = next_field(rest);
    rest = trim(rest);
    const std::size_t number = lines.number;
    // A type where the process should be: the process field is empty (`\t:invoke\t...`).
    if (is_event_type_field(process)) fail(source, number, "empty process field");
    if (process.front() == ':') continue;  // :nemesis: not a client
    Event e;
    e.process = parse_process(process, source, number);
    if (!is_event_type_field(type))
      fail(source, number, "unknown operation type `" + snippet(type) + "` (expected :invoke, :ok, :fail or :info)");
    event_type(type.substr(1), e.type);
    const std::size_t fields = function.empty() ? 2 : rest.empty() ? 3 : 4;
    if (fields < 4)
      fail(source, number,
           "expected 4 fields after `jepsen.util` (process, type, function, value; separated by tabs or spaces), found " +
               std::to_string(fields));
    const Value f = read_field(function, number, source, "function", deadline);
    if (f.kind != Value::Kind::keyword)
      fail(source, number, "the function must be a keyword like :read, found `" + snippet(function) + "`");
    e.f = f.text;
    EdnReader r(rest, source, number, "line", &deadline);
    r.skip_space();
    e.value = r.read();
    if (r.skip_space() && e.type == EventType::invoke)
      fail(source, number, "unexpected text after the value: `" + snippet(r.rest()) + "`");
    e.line = number;
    pairer.add(std::move(e));
  }
  if (event_lines == 0)
    fail(source, 1,
         "no operations found (read as jepsen-log: no line of the form `INFO  jepsen.util - PROCESS :TYPE :F VALUE`, "
         "fields separated by tabs or spaces)");
  return paired_history(source, Format::jepsen_log, pairer.finish(), "cas-register");
}

}  // namespace duet::history::detail
