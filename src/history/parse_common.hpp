// Internal: what the history parsers share (parse.cpp, read.cpp and one file per format:
// parse_jepsen_log.cpp, parse_kv_edn.cpp, parse_duet.cpp): walking the text line by line, the
// events of the log formats and their pairing into operations, reading operation maps, and the
// parsers themselves, which parse.cpp picks between.
//
// Hand-written scanners over std::string_view: the checker's benchmark parses dozens of files
// per run, and bad input must end in a ParseError with a line, never in a crash.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "duet/history.hpp"
#include "history/edn.hpp"

namespace duet::history::detail {

inline constexpr std::string_view kDuetHeader = ";duet-history";

// ---- lines ----

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Walks the text line by line; `number` is the 1-based number of the line last returned.
struct LineCursor {
  std::string_view text;
  DeadlineCheck* deadline = nullptr;  // ticked per line
  std::size_t pos = 0;
  std::size_t number = 0;

  bool next(std::string_view& line) {
    if (pos >= text.size()) return false;
    if (deadline != nullptr) deadline->tick(number + 1);
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl + 1;
    ++number;
    return true;
  }
};

inline std::size_t newlines(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

[[noreturn]] inline void fail(const std::string& source, std::size_t line, const std::string& what) {
  throw ParseError(source, line, what);
}

// ---- events and their pairing ----

enum class EventType { invoke, ok, fail, info };

// The type named by a keyword's text (`invoke`, `ok`, `fail`, `info`); false for any other.
bool event_type(std::string_view kw, EventType& out);

struct Event {
  std::int64_t process = 0;
  EventType type = EventType::invoke;
  std::string f;
  std::optional<Value> key;
  Value value;
  std::size_t line = 0;
};

// Pairs each process's :invoke with its next completion. Times are positions among the
// client events, so invocations and completions are strictly ordered.
class Pairer {
 public:
  // fail_drops: `:fail` means the operation did not happen (EDN, kv); otherwise it completed
  // without effect (Jepsen log).
  // expected_ops: a guess for reserving (about half the lines are invocations).
  Pairer(const std::string& source, bool fail_drops, std::size_t expected_ops) : source_(source), fail_drops_(fail_drops) {
    ops_.reserve(expected_ops);
    dropped_.reserve(expected_ops);
  }

  // One event, in the order of the file; a ParseError when it does not fit the process's
  // pending operation.
  void add(Event&& e);

  // Operations in invocation order (they were created in it); dropped ones removed.
  std::vector<Operation> finish();

 private:
  const std::string& source_;
  bool fail_drops_;
  std::uint64_t time_ = 0;
  std::vector<Operation> ops_;
  std::vector<bool> dropped_;
  std::unordered_map<std::int64_t, std::size_t> open_;  // process -> its pending operation
};

// ---- Jepsen log lines (parse_jepsen_log.cpp; detection reads them too) ----

// The text after the logger's name and its separator (` - `, `: ` or blanks), or nothing if
// the line is not from jepsen.util.
std::optional<std::string_view> jepsen_message(std::string_view line);

// Is this line an operation of a Jepsen log (a jepsen.util message that is an operation)?
bool is_jepsen_event_line(std::string_view line);

// ---- maps (kv log, EDN, duet) ----

// A value in a message: its first 60 bytes (the printer stops there, however big the value).
std::string shown(const Value& v);

// The value under `key` in an operation map, or a ParseError saying it is missing.
const Value& required(const Value& map, std::string_view key, const std::string& source, std::size_t line);

// The text of an operation's :f (a keyword or a string), or a ParseError.
std::string function_name(const Value& f, const std::string& source, std::size_t line);

// A line that should hold one operation map (kv log, duet): the map, or a ParseError.
Value read_map_line(std::string_view line, std::size_t number, const std::string& source, std::string_view example,
                    DeadlineCheck& deadline);

// One field of a Jepsen log line, read as a single EDN form.
Value read_field(std::string_view text, std::size_t line, const std::string& source, const char* what,
                 DeadlineCheck& deadline);

// A history of paired operations read from `source`, with the model its format suggests.
History paired_history(const std::string& source, Format format, std::vector<Operation> ops, std::string model);

// ---- the parsers, one per format (each in a file of its own) ----

History parse_jepsen_log(std::string_view text, const std::string& source, DeadlineCheck& deadline);
History parse_kv_log(std::string_view text, const std::string& source, DeadlineCheck& deadline);
History parse_edn(std::string_view text, const std::string& source, DeadlineCheck& deadline);
History parse_duet(std::string_view text, const std::string& source, DeadlineCheck& deadline);

}  // namespace duet::history::detail
