// What the history parsers share (declared in parse_common.hpp): the pairing of invocations
// with completions, and reading operation maps and single EDN fields, with a ParseError that
// names the line for anything that does not fit.
#include "history/parse_common.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace duet::history::detail {
namespace {

std::string_view type_name(EventType t) {
  switch (t) {
    case EventType::invoke: return ":invoke";
    case EventType::ok: return ":ok";
    case EventType::fail: return ":fail";
    case EventType::info: return ":info";
  }
  return "?";
}

}  // namespace

// ---- events and their pairing ----

bool event_type(std::string_view kw, EventType& out) {
  if (kw == "invoke") out = EventType::invoke;
  else if (kw == "ok") out = EventType::ok;
  else if (kw == "fail") out = EventType::fail;
  else if (kw == "info") out = EventType::info;
  else return false;
  return true;
}

void Pairer::add(Event&& e) {
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
  // Starts from std::string("`"), not "`" + ...: GCC 12's -Wrestrict misfires on that here.
  if (e.f != op.f)
    fail(source_, e.line,
         std::string("`").append(type_name(e.type)) + " :" + detail::cut(e.f) + "` for process " +
             std::to_string(e.process) + " does not match its pending `:invoke :" + detail::cut(op.f) + "` from line " +
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

std::vector<Operation> Pairer::finish() {
  if (std::find(dropped_.begin(), dropped_.end(), true) == dropped_.end()) return std::move(ops_);
  std::vector<Operation> out;
  out.reserve(ops_.size());
  for (std::size_t i = 0; i < ops_.size(); ++i)
    if (!dropped_[i]) out.push_back(std::move(ops_[i]));
  return out;
}

// ---- maps (kv log, EDN, duet) ----

std::string shown(const Value& v) { return detail::printable(v.to_string(60)); }

const Value& required(const Value& map, std::string_view key, const std::string& source, std::size_t line) {
  const Value* v = map.find(key);
  if (v == nullptr) fail(source, line, "operation has no :" + std::string(key) + " (in `" + shown(map) + "`)");
  return *v;
}

std::string function_name(const Value& f, const std::string& source, std::size_t line) {
  if (f.kind == Value::Kind::keyword || f.kind == Value::Kind::string) return f.text;
  fail(source, line, ":f must be a keyword like :read, found `" + shown(f) + "`");
}

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

}  // namespace duet::history::detail
