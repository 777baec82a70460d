// Values of recorded histories, and the names of formats and verdicts.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "show/text.hpp"
#include "duet/history.hpp"
#include "history/quote.hpp"

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

// Prints EDN text up to a limit, then only counts: a message quoting a 100 MB value costs a
// walk over it, not a 100 MB string.
struct Printer {
  std::string out;
  std::size_t limit;      // bytes of text kept; SIZE_MAX: all
  std::size_t total = 0;  // bytes of the whole text

  bool full() const { return out.size() >= limit; }
  void put(std::string_view s) {
    total += s.size();
    if (!full()) out.append(s.substr(0, std::min(s.size(), limit - out.size())));
  }
  void put(char c) {
    ++total;
    if (!full()) out += c;
  }
};

// Bytes of the escape for c in a string literal, 1 for a plain character.
std::size_t escaped_size(unsigned char c) {
  switch (c) {
    case '"':
    case '\\':
    case '\n':
    case '\t':
    case '\r': return 2;
    default: return c < 0x20 || c == 0x7f ? 6 : 1;
  }
}

void put_quoted(Printer& p, std::string_view s) {
  p.put('"');
  std::size_t i = 0;
  while (i < s.size() && !p.full()) {
    // A run of plain characters in one go.
    std::size_t run = i;
    while (run < s.size() && escaped_size(static_cast<unsigned char>(s[run])) == 1) ++run;
    p.put(s.substr(i, run - i));
    i = run;
    if (i >= s.size() || p.full()) break;
    const char c = s[i++];
    switch (c) {
      case '"': p.put("\\\""); break;
      case '\\': p.put("\\\\"); break;
      case '\n': p.put("\\n"); break;
      case '\t': p.put("\\t"); break;
      case '\r': p.put("\\r"); break;
      default: {  // control bytes: keep it one line
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        p.put(buf);
      }
    }
  }
  // Past the limit: count the rest.
  std::size_t rest = 0;
  for (; i < s.size(); ++i) rest += escaped_size(static_cast<unsigned char>(s[i]));
  p.total += rest;
  p.put('"');
}

void put(Printer& p, const Value& v) {
  switch (v.kind) {
    case Value::Kind::nil: p.put("nil"); return;
    case Value::Kind::boolean: p.put(v.flag ? "true" : "false"); return;
    case Value::Kind::integer: p.put(std::to_string(v.number)); return;
    case Value::Kind::real: {
      if (v.real_number != v.real_number) {
        p.put("##NaN");
        return;
      }
      if (v.real_number > 1.7976931348623157e308 || v.real_number < -1.7976931348623157e308) {
        p.put(v.real_number > 0 ? "##Inf" : "##-Inf");
        return;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.real_number);
      p.put(buf);
      // Keep it a real when read back: 1.0 must not print as the integer 1.
      if (std::string_view(buf).find_first_of(".e") == std::string_view::npos) p.put(".0");
      return;
    }
    case Value::Kind::string: put_quoted(p, v.text); return;
    case Value::Kind::keyword:
      p.put(':');
      p.put(v.text);
      return;
    case Value::Kind::symbol: p.put(v.text); return;
    case Value::Kind::vector:
    case Value::Kind::map: {
      const bool map = v.kind == Value::Kind::map;
      p.put(map ? '{' : '[');
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) p.put(map && i % 2 == 0 ? ", " : " ");
        put(p, v.items[i]);
      }
      p.put(map ? '}' : ']');
      return;
    }
  }
}

// The cut text: at most p.limit bytes, not ending inside a UTF-8 character, then its size.
std::string finish(Printer& p) {
  if (p.total <= p.limit) return std::move(p.out);
  std::string& out = p.out;
  out.resize(std::min(out.size(), p.limit));
  // Drop a trailing incomplete UTF-8 sequence: its lead byte and the continuation bytes after it.
  std::size_t i = out.size();
  while (i > 0 && out.size() - i < 3 && (static_cast<unsigned char>(out[i - 1]) & 0xC0) == 0x80) --i;
  if (i > 0 && static_cast<unsigned char>(out[i - 1]) >= 0xC0) {
    const auto lead = static_cast<unsigned char>(out[i - 1]);
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (out.size() - (i - 1) < length) out.resize(i - 1);
  }
  out += "... (";
  out += std::to_string(p.total);
  out += " bytes)";
  return std::move(out);
}
}  // namespace

std::string Value::to_string() const {
  Printer p{{}, SIZE_MAX};
  put(p, *this);
  return std::move(p.out);
}

std::string Value::to_string(std::size_t max_bytes) const {
  Printer p{{}, max_bytes};
  put(p, *this);
  return finish(p);
}

namespace detail {

std::string edn_string(std::string_view s, std::size_t max) {
  Printer p{{}, max};
  put_quoted(p, s);
  return finish(p);
}

std::string printable(std::string_view text) { return duet::detail::excerpt(text, std::string_view::npos); }

std::string start_states_list(const std::vector<std::string>& states) {
  constexpr std::size_t kShown = 8;
  std::string out;
  for (std::size_t k = 0; k < states.size() && k < kShown; ++k) out += (k > 0 ? ", " : "") + states[k];
  if (states.size() > kShown) out += ", ... (" + std::to_string(states.size()) + " states)";
  return out;
}

std::string cut(std::string_view text, std::size_t max) {
  Printer p{{}, max};
  p.put(text);
  std::string kept = finish(p);
  // Control bytes as \xNN; UTF-8 stays as it is.
  std::string out;
  for (char ch : kept) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace detail

std::string describe(const Operation& op) {
  // Built with += only: GCC 12 warns falsely (-Wrestrict) on some "literal" + std::string chains.
  std::string s = "process ";
  s += std::to_string(op.process);
  s += ": ";
  s += detail::cut(op.f);  // every part bounded: this line goes into messages
  if (op.key) {
    s += ' ';
    s += op.key->to_string(kQuoteBytes);
  }
  if (!op.input.is_nil()) {
    s += ' ';
    s += op.input.to_string(kQuoteBytes);
  }
  switch (op.outcome) {
    case Outcome::ok:
      s += " -> ";
      // Jepsen repeats a write's or cas's argument in its completion: that just means ok.
      s += op.result_unknown ? "?" : op.output == op.input && !op.input.is_nil() ? "ok" : op.output.to_string(kQuoteBytes);
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
  throw std::invalid_argument("unknown format '" + detail::cut(name) + "' (expected auto, jepsen-log, kv-log, edn or duet)");
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
