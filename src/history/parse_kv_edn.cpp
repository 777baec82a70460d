// The parsers of histories of Jepsen operation maps (`{:process 0, :type :invoke, :f :read,
// :value nil}`): Porcupine's kv log (one map per line) and Jepsen/Knossos EDN (a vector or list
// of maps). Together because both read the same maps and pair them the same way, and a kv log
// without keys is Jepsen's history.edn, read with EDN's defaults.
#include <algorithm>
#include <string>
#include <utility>

#include "history/parse_common.hpp"

namespace duet::history::detail {
namespace {

// Value::find for a map whose entries may be moved out.
Value* field(Value& map, std::string_view key) {
  for (std::size_t i = 0; i + 1 < map.items.size(); i += 2)
    if (map.items[i].is_keyword(key)) return &map.items[i + 1];
  return nullptr;
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

}  // namespace

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

}  // namespace duet::history::detail
