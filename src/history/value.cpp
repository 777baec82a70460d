// Values of recorded histories, and the names of formats and verdicts.
#include <cstdio>
#include <stdexcept>

#include "duet/history.hpp"

namespace duet::history {

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::map) return nullptr;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2)
    if (items[i].kind == Kind::keyword && items[i].text == key) return &items[i + 1];
  return nullptr;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::nil: return true;
    case Value::Kind::boolean: return a.flag == b.flag;
    case Value::Kind::integer: return a.number == b.number;
    case Value::Kind::real: return a.real_number == b.real_number;
    case Value::Kind::string:
    case Value::Kind::keyword:
    case Value::Kind::symbol: return a.text == b.text;
    case Value::Kind::vector:
    case Value::Kind::map: return a.items == b.items;
  }
  return false;
}

namespace {
void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {  // control bytes: keep it one line
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void append(std::string& out, const Value& v) {
  switch (v.kind) {
    case Value::Kind::nil: out += "nil"; return;
    case Value::Kind::boolean: out += v.flag ? "true" : "false"; return;
    case Value::Kind::integer: out += std::to_string(v.number); return;
    case Value::Kind::real: {
      if (v.real_number != v.real_number) {
        out += "##NaN";
        return;
      }
      if (v.real_number > 1.7976931348623157e308 || v.real_number < -1.7976931348623157e308) {
        out += v.real_number > 0 ? "##Inf" : "##-Inf";
        return;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.real_number);
      out += buf;
      // Keep it a real when read back: 1.0 must not print as the integer 1.
      if (std::string_view(buf).find_first_of(".e") == std::string_view::npos) out += ".0";
      return;
    }
    case Value::Kind::string: append_quoted(out, v.text); return;
    case Value::Kind::keyword: out += ':'; out += v.text; return;
    case Value::Kind::symbol: out += v.text; return;
    case Value::Kind::vector:
    case Value::Kind::map: {
      const bool map = v.kind == Value::Kind::map;
      out += map ? '{' : '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += map && i % 2 == 0 ? ", " : " ";
        append(out, v.items[i]);
      }
      out += map ? '}' : ']';
      return;
    }
  }
}
}  // namespace

std::string Value::to_string() const {
  std::string out;
  append(out, *this);
  return out;
}

std::string describe(const Operation& op) {
  // Built with += only: GCC 12 warns falsely (-Wrestrict) on some "literal" + std::string chains.
  std::string s = "process ";
  s += std::to_string(op.process);
  s += ": ";
  s += op.f;
  if (op.key) {
    s += ' ';
    s += op.key->to_string();
  }
  if (!op.input.is_nil()) {
    s += ' ';
    s += op.input.to_string();
  }
  switch (op.outcome) {
    case Outcome::ok:
      s += " -> ";
      // Jepsen repeats a write's or cas's argument in its completion: that just means ok.
      s += op.result_unknown ? "?" : op.output == op.input && !op.input.is_nil() ? "ok" : op.output.to_string();
      break;
    case Outcome::fail: s += op.result_unknown ? " -> fail (result unknown)" : " -> fail"; break;
    case Outcome::info: s += " -> ? (indeterminate)"; break;
  }
  if (op.invoke_line > 0) {  // recorded in memory (a Recorder), not read from a file: no line
    s += " (line ";
    s += std::to_string(op.invoke_line);
    s += ')';
  }
  return s;
}

std::string_view format_name(Format f) {
  switch (f) {
    case Format::automatic: return "auto";
    case Format::jepsen_log: return "jepsen-log";
    case Format::kv_log: return "kv-log";
    case Format::edn: return "edn";
    case Format::duet: return "duet";
  }
  return "?";
}

Format parse_format_name(std::string_view name) {
  for (Format f : {Format::automatic, Format::jepsen_log, Format::kv_log, Format::edn, Format::duet})
    if (format_name(f) == name) return f;
  throw std::invalid_argument("unknown format '" + std::string(name) + "' (expected auto, jepsen-log, kv-log, edn or duet)");
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::linearizable: return "linearizable";
    case Verdict::not_linearizable: return "not-linearizable";
    case Verdict::unknown: return "unknown";
  }
  return "?";
}

}  // namespace duet::history
