// Reading recorded histories: format detection, the four parsers (Jepsen log, Porcupine kv
// log, Jepsen/Knossos EDN, duet's own format) and the pairing of invocations with completions.
//
// Hand-written scanners over std::string_view: the checker's benchmark parses dozens of files
// per run, and bad input must end in a ParseError with a line, never in a crash.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "duet/history.hpp"
#include "history/edn.hpp"

namespace duet::history {
namespace {

using detail::DeadlineCheck;
using detail::EdnReader;
using detail::snippet;

constexpr std::string_view kDuetHeader = ";duet-history";

// ---- lines ----

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view strip_bom(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
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

std::size_t newlines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

bool only_whitespace(std::string_view text) {
  for (char c : text)
    if (!is_blank(c) && c != '\n') return false;
  return true;
}

[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& what) {
  throw ParseError(source, line, what);
}

// ---- events and their pairing ----

enum class EventType { invoke, ok, fail, info };

bool event_type(std::string_view kw, EventType& out) {
  if (kw == "invoke") out = EventType::invoke;
  else if (kw == "ok") out = EventType::ok;
  else if (kw == "fail") out = EventType::fail;
  else if (kw == "info") out = EventType::info;
  else return false;
  return true;
}

std::string_view type_name(EventType t) {
  switch (t) {
    case EventType::invoke: return ":invoke";
    case EventType::ok: return ":ok";
    case EventType::fail: return ":fail";
    case EventType::info: return ":info";
  }
  return "?";
}

// ---- Jepsen log lines ----
// Jepsen prints an operation as `PROCESS :TYPE :F VALUE [ERROR]` through the logger
// jepsen.util, behind whatever prefix its logging configuration adds:
//   INFO  jepsen.util - 3<TAB>:invoke<TAB>:read<TAB>nil                      (Knossos, etcd logs)
//   2017-05-31 16:32:45,114{GMT}<TAB>INFO<TAB>[jepsen worker 3] jepsen.util: 3<TAB>:ok<TAB>:read<TAB>2
//   INFO [2021-03-04 05:06:07,890] jepsen worker 3 - jepsen.util 3<TAB>:fail<TAB>:cas<TAB>[1 2]<TAB>:timeout
// Fields are separated by tabs, or by runs of spaces where a log pipeline rewrote the tabs.

// The text after the logger's name and its separator (` - `, `: ` or blanks), or nothing if
// the line is not from jepsen.util.
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

bool is_jepsen_event_line(std::string_view line) {
  const std::optional<std::string_view> message = jepsen_message(line);
  return message && is_jepsen_event(*message);
}

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

  void add(Event&& e) {
    const std::uint64_t time = time_++;
    const auto open = open_.find(e.process);
    if (e.type == EventType::invoke) {
      if (open != open_.end())
        fail(source_, e.line,
             "`:invoke` for process " + std::to_string(e.process) + " while its operation invoked at line " +
                 std::to_string(ops_[open->second].invoke_line) + " is still pending (no :ok, :fail or :info in between)");
      Operation op;
      op.process = e.process;
      op.f = std::move(e.f);
      op.key = std::move(e.key);
      op.input = std::move(e.value);
      op.outcome = Outcome::info;  // until its completion is seen
      op.invoke = time;
      op.response = Operation::kPending;
      op.invoke_line = e.line;
      open_.emplace(e.process, ops_.size());
      ops_.push_back(std::move(op));
      dropped_.push_back(false);
      return;
    }
    if (open == open_.end())
      fail(source_, e.line,
           "`" + std::string(type_name(e.type)) + "` for process " + std::to_string(e.process) + " with no pending :invoke");
    const std::size_t index = open->second;
    open_.erase(open);
    Operation& op = ops_[index];
    if (e.f != op.f)
      fail(source_, e.line,
           "`" + std::string(type_name(e.type)) + " :" + detail::cut(e.f) + "` for process " + std::to_string(e.process) +
               " does not match its pending `:invoke :" + detail::cut(op.f) + "` from line " +
               std::to_string(op.invoke_line));
    switch (e.type) {
      case EventType::ok:
        op.outcome = Outcome::ok;
        op.output = std::move(e.value);
        break;
      case EventType::fail:
        if (fail_drops_) {
          dropped_[index] = true;
          return;
        }
        op.outcome = Outcome::fail;
        op.result_unknown = op.f == "read";  // a failed read completed, telling nothing
        break;
      case EventType::info: return;  // indeterminate: stays pending; the process may invoke again
      case EventType::invoke: break;
    }
    op.response = time;
    op.response_line = e.line;
  }

  // Operations in invocation order (they were created in it); dropped ones removed.
  std::vector<Operation> finish() {
    if (std::find(dropped_.begin(), dropped_.end(), true) == dropped_.end()) return std::move(ops_);
    std::vector<Operation> out;
    out.reserve(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i)
      if (!dropped_[i]) out.push_back(std::move(ops_[i]));
    return out;
  }

 private:
  const std::string& source_;
  bool fail_drops_;
  std::uint64_t time_ = 0;
  std::vector<Operation> ops_;
  std::vector<bool> dropped_;
  std::unordered_map<std::int64_t, std::size_t> open_;  // process -> its pending operation
};

// ---- maps (kv log, EDN, duet) ----

// A value in a message: its first 60 bytes (the printer stops there, however big the value).
std::string shown(const Value& v) { return detail::printable(v.to_string(60)); }

const Value& required(const Value& map, std::string_view key, const std::string& source, std::size_t line) {
  const Value* v = map.find(key);
  if (v == nullptr) fail(source, line, "operation has no :" + std::string(key) + " (in `" + shown(map) + "`)");
  return *v;
}

// Value::find for a map whose entries may be moved out.
Value* field(Value& map, std::string_view key) {
  for (std::size_t i = 0; i + 1 < map.items.size(); i += 2)
    if (map.items[i].is_keyword(key)) return &map.items[i + 1];
  return nullptr;
}

std::string function_name(const Value& f, const std::string& source, std::size_t line) {
  if (f.kind == Value::Kind::keyword || f.kind == Value::Kind::string) return f.text;
  fail(source, line, ":f must be a keyword like :read, found `" + shown(f) + "`");
}

// A Jepsen operation map. False for entries that are not client operations (a :process
// that is a keyword: :nemesis). Any other :process that is not an integer is an error, not
// an operation silently dropped.
bool event_from_map(Value& m, std::size_t line, const std::string& source, Event& e) {
  const Value& process = required(m, "process", source, line);
  if (process.kind == Value::Kind::keyword) return false;
  if (!process.is_integer())
    fail(source, line, ":process must be an integer (or a keyword such as :nemesis), found `" + shown(process) + "`");
  const Value& type = required(m, "type", source, line);
  if (type.kind != Value::Kind::keyword || !event_type(type.text, e.type))
    fail(source, line, "unknown :type `" + shown(type) + "` (expected :invoke, :ok, :fail or :info)");
  e.f = function_name(required(m, "f", source, line), source, line);
  e.process = process.number;
  // The map is discarded afterwards: move its values out rather than copy them.
  if (Value* v = field(m, "value")) e.value = std::move(*v);
  if (Value* k = field(m, "key")) e.key = std::move(*k);
  e.line = line;
  return true;
}

// A line that should hold one operation map (kv log, duet): the map, or a ParseError.
Value read_map_line(std::string_view line, std::size_t number, const std::string& source, std::string_view example,
                    DeadlineCheck& deadline) {
  const std::string_view t = trim(line);
  if (t.front() != '{' && t.front() != '#')
    fail(source, number, "expected one EDN map per line like `" + std::string(example) + "`, found `" + snippet(t) + "`");
  EdnReader r(line, source, number, "line", &deadline);
  Value m = r.read();
  if (r.skip_space()) fail(source, number, "unexpected text after the operation map: `" + snippet(r.rest()) + "`");
  if (m.kind != Value::Kind::map)
    fail(source, number, "expected one EDN map per line like `" + std::string(example) + "`, found `" + shown(m) + "`");
  return m;
}

// ---- Jepsen log (etcd) ----

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

// One field of a Jepsen log line, read as a single EDN form.
Value read_field(std::string_view text, std::size_t line, const std::string& source, const char* what,
                 DeadlineCheck& deadline) {
  EdnReader r(text, source, line, "line", &deadline);
  if (!r.skip_space()) fail(source, line, std::string("empty ") + what + " field");
  Value v = r.read();
  if (r.skip_space()) fail(source, line, std::string("unexpected text after the ") + what + ": `" + snippet(r.rest()) + "`");
  return v;
}

History paired_history(const std::string& source, Format format, std::vector<Operation> ops, std::string model) {
  History h;
  h.source = source;
  h.format = format;
  h.ops = std::move(ops);
  h.default_model = std::move(model);
  return h;
}

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

// The model an EDN history (Jepsen, Knossos) suggests: multi-register for transactions, else
// Knossos' cas-register, which starts at 0 (as Knossos' tests build it) and for which a read
// that returned nil tells nothing (its model accepts a nil read in any state).
void knossos_defaults(History& h) {
  const bool txn = std::any_of(h.ops.begin(), h.ops.end(), [](const Operation& op) { return op.f == "txn"; });
  if (txn) {
    h.default_model = "multi-register";
    return;
  }
  h.default_model = "cas-register";
  h.default_init = Value::integer(0);
  for (Operation& op : h.ops)
    if (op.f == "read" && op.outcome == Outcome::ok && op.output.is_nil()) op.result_unknown = true;
}

// ---- Porcupine kv log ----

History parse_kv_log(std::string_view text, const std::string& source, DeadlineCheck& deadline) {
  Pairer pairer(source, /*fail_drops=*/true, newlines(text) / 2 + 1);
  std::size_t entries = 0;
  LineCursor lines{text, &deadline};
  std::string_view line;
  while (lines.next(line)) {
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == ';') continue;
    Value m =
        read_map_line(line, lines.number, source, "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}", deadline);
    ++entries;
    Event e;
    if (event_from_map(m, lines.number, source, e)) pairer.add(std::move(e));
  }
  if (entries == 0) fail(source, 1, "no operations found (read as kv-log: no line holds an operation map)");
  // One map per line is also how Jepsen writes history.edn: operations with a :key are
  // Porcupine's kv; others are read as an EDN history is.
  std::vector<Operation> ops = pairer.finish();
  const bool keyed = std::any_of(ops.begin(), ops.end(), [](const Operation& op) { return op.key.has_value(); });
  History h = paired_history(source, Format::kv_log, std::move(ops), "kv");
  if (!keyed && !h.ops.empty()) {
    h.format = Format::edn;  // Jepsen's history.edn
    knossos_defaults(h);
  }
  return h;
}

// ---- Jepsen/Knossos EDN ----

History parse_edn(std::string_view text, const std::string& source, DeadlineCheck& deadline) {
  EdnReader r(text, source, 1, "file", &deadline);
  if (!r.skip_space()) fail(source, r.end_line(), "no operations found (read as edn: the file holds only comments)");
  const char open = r.peek();
  if (open != '[' && open != '(')
    r.fail(r.line(), "expected an EDN vector `[...]` or list `(...)` of operation maps, found `" + snippet(r.rest()) + "`");
  const char close = open == '[' ? ']' : ')';
  const std::size_t open_line = r.line();
  r.advance();
  Pairer pairer(source, /*fail_drops=*/true, newlines(text) / 2 + 1);
  std::size_t entries = 0;
  for (;;) {
    if (!r.skip_space(1))
      r.fail(r.end_line(), std::string("unexpected end of file: the `") + open + "` opened at line " +
                               std::to_string(open_line) + " is not closed");
    const char c = r.peek();
    if (c == close) {
      r.advance();
      break;
    }
    const std::size_t line = r.line();
    if (c == ']' || c == ')' || c == '}')
      r.fail(line, std::string("`") + c + "` does not match the `" + open + "` opened at line " + std::to_string(open_line));
    Value m = r.read(1);
    if (m.kind != Value::Kind::map)
      r.fail(line,
             "expected an operation map like `{:process 0, :type :invoke, :f :read, :value nil}`, found `" + shown(m) + "`");
    ++entries;
    Event e;
    if (!event_from_map(m, line, source, e)) continue;
    pairer.add(std::move(e));
  }
  if (r.skip_space())
    r.fail(r.line(), std::string("unexpected text after the closing `") + close + "`: `" + snippet(r.rest()) + "`");
  if (entries == 0) fail(source, open_line, "no operations found (read as edn: the history is empty)");
  History h = paired_history(source, Format::edn, pairer.finish(), "cas-register");
  knossos_defaults(h);
  return h;
}

// ---- duet's own format ----

std::uint64_t time_field(const Value& v, const char* name, const std::string& source, std::size_t line) {
  if (!v.is_integer() || v.number < 0)
    fail(source, line, std::string(":") + name + " must be a non-negative integer (a time), found `" + shown(v) + "`");
  return static_cast<std::uint64_t>(v.number);
}

Operation duet_operation(const Value& m, std::size_t line, const std::string& source) {
  Operation op;
  const Value& process = required(m, "process", source, line);
  if (!process.is_integer()) fail(source, line, ":process must be an integer, found `" + shown(process) + "`");
  op.process = process.number;
  const Value& type = required(m, "type", source, line);
  if (type.is_keyword("ok")) op.outcome = Outcome::ok;
  else if (type.is_keyword("fail")) op.outcome = Outcome::fail;
  else if (type.is_keyword("info")) op.outcome = Outcome::info;
  else fail(source, line, "unknown :type `" + shown(type) + "` (expected :ok, :fail or :info)");
  op.f = function_name(required(m, "f", source, line), source, line);
  op.invoke = time_field(required(m, "invoke", source, line), "invoke", source, line);
  op.invoke_line = line;
  const Value* complete = m.find("complete");
  const Value* value = m.find("value");
  if (op.outcome == Outcome::info) {
    if (complete != nullptr) fail(source, line, "an :info operation has no :complete (it never returned)");
    if (value != nullptr) fail(source, line, "an :info operation has no :value (it never returned)");
  } else {
    if (complete == nullptr) fail(source, line, "operation has no :complete (in `" + shown(m) + "`)");
    op.response = time_field(*complete, "complete", source, line);
    if (op.response < op.invoke)
      fail(source, line, ":complete " + std::to_string(op.response) + " is before :invoke " + std::to_string(op.invoke));
    op.response_line = line;
    if (value != nullptr) op.output = *value;
  }
  if (const Value* k = m.find("key")) op.key = *k;
  if (const Value* in = m.find("input")) op.input = *in;
  if (const Value* u = m.find("unknown")) {
    if (u->kind != Value::Kind::boolean) fail(source, line, ":unknown must be true or false, found `" + shown(*u) + "`");
    op.result_unknown = u->flag;
  }
  return op;
}

History parse_duet(std::string_view text, const std::string& source, DeadlineCheck& deadline) {
  History h;
  h.source = source;
  h.format = Format::duet;
  LineCursor lines{text, &deadline};
  std::string_view line;
  bool header = false;
  bool model = false;
  while (lines.next(line)) {
    const std::string_view t = trim(line);
    if (t.empty()) continue;
    if (!header) {
      if (t.substr(0, kDuetHeader.size()) == kDuetHeader) {
        const std::string_view version = trim(t.substr(kDuetHeader.size()));
        if (version != "1")
          fail(source, lines.number,
               "unsupported duet history version `" + snippet(version) + "` (this reader knows version 1)");
        header = true;
        h.model_line = lines.number;  // where a `;model` line would go
        continue;
      }
      if (t.front() == ';') continue;
      fail(source, lines.number, "expected the header `;duet-history 1`, found `" + snippet(t) + "`");
    }
    if (t.front() == ';') {
      if (t.substr(0, 6) == ";model" && (t.size() == 6 || is_blank(t[6]))) {
        if (model) fail(source, lines.number, "a second `;model` line");
        if (!h.ops.empty()) fail(source, lines.number, "`;model` must come before the first operation");
        const std::string_view name = trim(t.substr(6));
        if (name.empty()) fail(source, lines.number, "`;model` needs a model name");
        h.default_model = std::string(name);
        h.model_line = lines.number;
        model = true;
      } else if (t.substr(0, 5) == ";init" && (t.size() == 5 || is_blank(t[5]))) {
        if (h.default_init) fail(source, lines.number, "a second `;init` line");
        if (!h.ops.empty()) fail(source, lines.number, "`;init` must come before the first operation");
        const std::string_view value = trim(t.substr(5));
        if (value.empty()) fail(source, lines.number, "`;init` needs a value (the model's initial state, in EDN)");
        h.default_init = read_field(value, lines.number, source, "`;init`", deadline);
      }
      continue;  // a comment
    }
    const Value m = read_map_line(
        line, lines.number, source,
        "{:process 0, :invoke 1200, :complete 1350, :type :ok, :f :put, :key \"3\", :input \"x\", :value nil}", deadline);
    h.ops.push_back(duet_operation(m, lines.number, source));
  }
  if (!header) fail(source, 1, "no operations found (read as duet: no `;duet-history 1` header)");
  // The header alone is a valid, empty history: write_duet_history of an empty history.
  std::stable_sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
  // A process runs one operation at a time: one invoked before its previous one completed is
  // a recording error (equal times are allowed: the clock could not tell them apart).
  std::unordered_map<std::int64_t, const Operation*> previous;
  for (const Operation& op : h.ops) {
    auto [it, fresh] = previous.try_emplace(op.process, &op);
    if (!fresh) {
      const Operation& before = *it->second;
      if (before.outcome != Outcome::info && op.invoke < before.response)
        fail(source, op.invoke_line,
             "process " + std::to_string(op.process) + " invokes this operation at " + std::to_string(op.invoke) +
                 ", before its previous one (line " + std::to_string(before.invoke_line) + ") completed at " +
                 std::to_string(before.response));
      it->second = &op;
    }
  }
  return h;
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

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// Reads all of `fd`, at most limits.max_bytes of it (beyond: ParseError). Past the deadline:
// TimeBudgetExceeded. A regular file is read in chunks with the clock checked between them;
// anything else (a FIFO, a pipe, a terminal, a device) is polled with the time left first, and
// has a deadline of its own (limits.non_regular_seconds), so that a FIFO with no writer ends.
std::string read_all(int fd, const std::string& source, std::chrono::steady_clock::time_point deadline,
                     const ReadLimits& limits) {
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  auto too_large = [&] {
    fail(source, 0,
         "the input is larger than " + mib(limits.max_bytes) +
             ", the limit for one history (raise it with --max-input MIB, or ReadLimits::max_bytes)");
  };
  if (regular && static_cast<std::uint64_t>(st.st_size) > limits.max_bytes) too_large();
  // A non-regular input's own deadline, when it comes before the caller's.
  bool input_deadline = false;
  if (!regular) {
    const auto own = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(std::min(limits.non_regular_seconds, 1e9)));  // (1e9 s: no overflow)
    if (own < deadline) {
      deadline = own;
      input_deadline = true;
    }
  }
  std::string text;
  if (regular && st.st_size > 0) text.reserve(static_cast<std::size_t>(st.st_size));
  std::vector<char> buffer(std::size_t{1} << 20);
  auto failed = [&](int err) { fail(source, 0, std::string("cannot read file: ") + std::strerror(err)); };
  for (;;) {
    int wait_ms = -1;  // no deadline: wait as long as it takes, as a blocking read would
    if (deadline != kNoDeadline) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline && input_deadline) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", limits.non_regular_seconds);
        throw TimeBudgetExceeded(std::string("reading took longer than ") + seconds +
                                 " s, the limit for an input that is not a regular file (a FIFO, a pipe, a device); " +
                                 std::to_string(text.size()) + " bytes read (change it with --input-timeout SECONDS)");
      }
      if (now >= deadline)
        throw TimeBudgetExceeded("the time budget ran out while reading the file (" + std::to_string(text.size()) +
                                 " bytes read)");
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
      wait_ms = static_cast<int>(std::min<decltype(left)>(left, INT_MAX));
    }
    if (!regular) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, wait_ms);
      if (ready < 0 && errno != EINTR) failed(errno);
      if (ready <= 0) continue;  // interrupted, or out of time (said at the top of the loop)
    }
    // One byte past the limit is enough to know the input is too large.
    const std::size_t room = limits.max_bytes - std::min(limits.max_bytes, text.size()) + 1;
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), room));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      failed(errno);
    }
    if (n == 0) break;
    if (static_cast<std::size_t>(n) >= room) too_large();
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return text;
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

History read_history(const std::string& path, Format format, std::chrono::steady_clock::time_point deadline,
                     const ReadLimits& limits) {
  // Non-blocking: opening a FIFO would otherwise wait for a writer, with no deadline.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, 0, std::string("cannot read file: ") + std::strerror(errno));
  std::string text;
  try {
    text = read_all(fd, path, deadline, limits);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  History h = parse_history(text, format, path, deadline);
  h.source = path;
  return h;
}

History read_history_stdin(Format format, std::chrono::steady_clock::time_point deadline, const ReadLimits& limits) {
  // Standard input keeps its flags (they are shared with the caller's shell): it is polled
  // before each read instead.
  const std::string source = "<stdin>";
  return parse_history(read_all(STDIN_FILENO, source, deadline, limits), format, source, deadline);
}

}  // namespace duet::history
