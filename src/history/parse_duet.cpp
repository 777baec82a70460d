// The parser of duet's own history format (written by write_duet_history): a `;duet-history 1`
// header, optional `;model` and `;init` lines, then one operation map per line with both of
// its times. On its own because, unlike the log formats, its operations come already paired.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "history/parse_common.hpp"

namespace duet::history::detail {
namespace {

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

}  // namespace

// ---- duet's own format ----

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

}  // namespace duet::history::detail
