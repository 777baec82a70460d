// duet's own history format: one EDN map per operation with both of its times, written so
// that parse_history reads back exactly the same operations.
#include <string>

#include "duet/history.hpp"
#include "history/edn.hpp"

namespace duet::history {
namespace {

// Value::to_string reads back as itself: reals keep a `.` or an exponent, control bytes in
// strings are escaped (a raw newline would split the one-line map).
void write_value(std::string& out, const Value& v) { out += v.to_string(); }

// :f as a keyword when its text reads back as one, else as a string (both are accepted).
void write_function(std::string& out, const std::string& f) {
  bool keyword = !f.empty();
  for (char c : f) keyword = keyword && detail::is_token_char(c);
  if (keyword) {
    out += ':';
    out += f;
  } else {
    write_value(out, Value::string(f));
  }
}

}  // namespace

std::string write_duet_history(const History& h) {
  std::string out = ";duet-history 1\n";
  if (!h.default_model.empty()) {
    // One line: a newline in a model name would end the header line early.
    std::string model = h.default_model;
    for (char& c : model)
      if (c == '\n') c = ' ';
    out += ";model " + model + "\n";
  }
  if (h.default_init) {
    std::string init = h.default_init->to_string();
    for (char& c : init)
      if (c == '\n') c = ' ';  // EDN strings print a newline as \n: this is a bare one's only way in
    out += ";init " + init + "\n";
  }
  out.reserve(out.size() + h.ops.size() * 96);
  for (const Operation& op : h.ops) {
    out += "{:process ";
    out += std::to_string(op.process);
    out += ", :invoke ";
    out += std::to_string(op.invoke);
    if (op.outcome != Outcome::info) {
      out += ", :complete ";
      out += std::to_string(op.response);
    }
    out += ", :type ";
    out += op.outcome == Outcome::ok ? ":ok" : op.outcome == Outcome::fail ? ":fail" : ":info";
    out += ", :f ";
    write_function(out, op.f);
    if (op.key) {
      out += ", :key ";
      write_value(out, *op.key);
    }
    out += ", :input ";
    write_value(out, op.input);
    if (op.outcome != Outcome::info) {
      out += ", :value ";
      write_value(out, op.output);
    }
    if (op.result_unknown) out += ", :unknown true";
    out += "}\n";
  }
  return out;
}

}  // namespace duet::history
