// duet's own history format: one EDN map per operation with both of its times, written so
// that parse_history reads back exactly the same operations.
#include <cstdio>
#include <string>

#include "duet/history.hpp"
#include "edn.hpp"

namespace duet::history {
namespace {

// Like Value::to_string, but every value reads back as itself: reals always carry a `.` or an
// exponent (1.0, not 1, which would read as an integer), control bytes in strings are escaped
// (a raw newline would split the one-line map).
void write_value(std::string& out, const Value& v) {
  switch (v.kind) {
    case Value::Kind::nil: out += "nil"; return;
    case Value::Kind::boolean: out += v.flag ? "true" : "false"; return;
    case Value::Kind::integer: out += std::to_string(v.number); return;
    case Value::Kind::real: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v.real_number);
      out += buf;
      const std::string_view s = buf;
      if (s.find_first_of(".eEn") == std::string_view::npos) out += ".0";  // ("n": inf, nan)
      return;
    }
    case Value::Kind::string: {
      out += '"';
      for (char c : v.text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
          case '"': out += "\\\""; break;
          case '\\': out += "\\\\"; break;
          case '\n': out += "\\n"; break;
          case '\t': out += "\\t"; break;
          case '\r': out += "\\r"; break;
          default:
            if (u < 0x20 || u == 0x7f) {
              char buf[8];
              std::snprintf(buf, sizeof buf, "\\u%04x", u);
              out += buf;
            } else {
              out += c;
            }
        }
      }
      out += '"';
      return;
    }
    case Value::Kind::keyword: out += ':'; out += v.text; return;
    case Value::Kind::symbol: out += v.text; return;
    case Value::Kind::vector:
    case Value::Kind::map: {
      const bool map = v.kind == Value::Kind::map;
      out += map ? '{' : '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += map && i % 2 == 0 ? ", " : " ";
        write_value(out, v.items[i]);
      }
      out += map ? '}' : ']';
      return;
    }
  }
}

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
