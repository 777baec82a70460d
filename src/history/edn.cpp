// The EDN reader behind every history parser: a hand-written scanner over a string_view (no
// regexes, no per-character allocation), bounded in depth, with line numbers in every error.
#include "history/edn.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

#include "show/text.hpp"

namespace duet::history::detail {

bool is_token_char(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c >= 0x80) return true;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '.':
    case '*':
    case '+':
    case '!':
    case '-':
    case '_':
    case '?':
    case '$':
    case '%':
    case '&':
    case '=':
    case '<':
    case '>':
    case '/':
    case ':':
    case '\'':
    case '#':
    case '|': return true;
    default: return false;
  }
}

std::string snippet(std::string_view text, std::size_t max) {
  // One line at most: what follows a newline belongs to another line's message.
  const std::size_t nl = text.find('\n');
  if (nl != std::string_view::npos) text = text.substr(0, nl);
  return duet::detail::excerpt(text, max);
}

void DeadlineCheck::check(std::size_t line) {
  countdown_ = kEvery;
  if (deadline_ == Clock::time_point::max() || Clock::now() < deadline_) return;
  throw TimeBudgetExceeded("the time budget ran out while parsing the file (" + std::to_string(bytes_) +
                           " bytes read, stopped at line " + std::to_string(line) + ")");
}

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_closer(char c) { return c == ']' || c == ')' || c == '}'; }

// The character as it should appear in a message.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) return snippet(std::string_view(&c, 1));
  return std::string(1, c);
}

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}
}  // namespace

void EdnReader::fail(std::size_t line, const std::string& what) const { throw ParseError(source_, line, what); }

std::size_t EdnReader::end_line() const {
  // Every newline has been counted once the end is reached; a final newline ends the last
  // line rather than starting a new one.
  std::size_t l = line_;
  if (!text_.empty() && text_.back() == '\n' && l > first_line_) --l;
  return l;
}

bool EdnReader::skip_space(int depth) {
  for (;;) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (is_edn_space(c)) {
        ++pos_;
      } else if (c == ';') {
        const std::size_t nl = text_.find('\n', pos_);
        pos_ = nl == std::string_view::npos ? text_.size() : nl;
      } else {
        break;
      }
    }
    if (pos_ + 1 < text_.size() && text_[pos_] == '#' && text_[pos_ + 1] == '_') {
      // `#_ form` comments out the next form; reading it keeps the brackets balanced.
      if (depth >= kMaxEdnDepth) fail(line_, "nesting too deep (more than " + std::to_string(kMaxEdnDepth) + " levels)");
      const std::size_t at = line_;
      pos_ += 2;
      if (!skip_space(depth + 1))
        fail(end_line(),
             std::string("unexpected end of ") + unit_ + ": `#_` at line " + std::to_string(at) + " discards nothing");
      (void)read_form(depth + 1);
      continue;
    }
    return pos_ < text_.size();
  }
}

Value EdnReader::read(int depth) {
  if (!skip_space(depth)) fail(end_line(), std::string("unexpected end of ") + unit_ + ": expected a value");
  return read_form(depth);
}

Value EdnReader::read_form(int depth) {
  if (deadline_ != nullptr) deadline_->tick(line_);
  if (depth > kMaxEdnDepth) fail(line_, "nesting too deep (more than " + std::to_string(kMaxEdnDepth) + " levels)");
  if (!skip_space(depth)) fail(end_line(), std::string("unexpected end of ") + unit_ + ": expected a value");
  const char c = text_[pos_];
  switch (c) {
    case '[': return read_sequence(']', Value::Kind::vector, '[', depth);
    case '(': return read_sequence(')', Value::Kind::vector, '(', depth);
    case '{': return read_sequence('}', Value::Kind::map, '{', depth);
    case '"': return read_string();
    case ']':
    case ')':
    case '}': fail(line_, "unexpected `" + std::string(1, c) + "` (nothing to close)");
    case '\\': fail(line_, "character literals (`\\c`) are not supported");
    case ':': {
      ++pos_;
      const std::string_view name = read_token();
      if (name.empty()) fail(line_, "a `:` must be followed by a keyword name");
      return Value::keyword(std::string(name));
    }
    case '#': {
      if (pos_ + 1 >= text_.size()) fail(line_, std::string("unexpected end of ") + unit_ + " after `#`");
      const char n = text_[pos_ + 1];
      if (n == '{') {  // a set: kept as a vector, its elements in file order
        ++pos_;
        return read_sequence('}', Value::Kind::vector, '{', depth);
      }
      if ((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z')) {
        // A tagged element (#inst "...", #jepsen.history.Op{...}): the tag is dropped and the
        // element stands for itself.
        const std::size_t at = line_;
        ++pos_;
        const std::string_view tag = read_token();
        if (!skip_space(depth + 1))
          fail(end_line(), std::string("unexpected end of ") + unit_ + ": the tag `#" + snippet(tag) + "` at line " +
                               std::to_string(at) + " has no value");
        return read_form(depth + 1);
      }
      fail(line_, "unsupported EDN dispatch `#" + shown(n) + "` (only sets `#{...}`, tags and `#_` are read)");
    }
    default: break;
  }
  if (is_digit(c) || ((c == '+' || c == '-') && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) return read_number();
  // `.5`, `-.5`: EDN has no such numbers, and a symbol's leading `.`, `+` or `-` may not be
  // followed by a digit either.
  std::size_t dot = pos_;
  if ((c == '+' || c == '-') && dot + 1 < text_.size()) ++dot;
  if (text_[dot] == '.' && dot + 1 < text_.size() && is_digit(text_[dot + 1]))
    fail(line_, "invalid number `" + snippet(read_token()) + "` (EDN numbers start with a digit)");
  if (!is_token_char(c)) fail(line_, "unexpected character `" + shown(c) + "`");
  const std::string_view tok = read_token();
  if (tok == "nil") return Value::nil();
  if (tok == "true") return Value::boolean(true);
  if (tok == "false") return Value::boolean(false);
  Value v;
  v.kind = Value::Kind::symbol;
  v.text = std::string(tok);
  return v;
}

// A token ends at whitespace, a bracket, a quote or a comment; any other character that
// cannot be part of it is an error (so binary garbage is refused, not absorbed).
std::string_view EdnReader::read_token() {
  const std::size_t start = pos_;
  while (pos_ < text_.size() && is_token_char(text_[pos_])) ++pos_;
  if (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (!is_edn_space(c) && !is_closer(c) && c != '[' && c != '(' && c != '{' && c != '"' && c != ';')
      fail(line_, "unexpected character `" + shown(c) + "` after `" + snippet(text_.substr(start, pos_ - start)) + "`");
  }
  return text_.substr(start, pos_ - start);
}

Value EdnReader::read_sequence(char close, Value::Kind kind, char open, int depth) {
  const std::size_t open_line = line_;
  ++pos_;
  Value v;
  v.kind = kind;
  for (;;) {
    if (!skip_space(depth + 1)) {
      if (std::string_view(unit_) == "file")
        fail(end_line(), std::string("unexpected end of file: the `") + open + "` opened at line " +
                             std::to_string(open_line) + " is not closed");
      fail(end_line(), std::string("unexpected end of ") + unit_ + ": the `" + open + "` is not closed");
    }
    const char c = text_[pos_];
    if (c == close) {
      ++pos_;
      break;
    }
    if (is_closer(c))
      fail(line_, std::string("`") + c + "` does not match the `" + open + "` opened at line " + std::to_string(open_line));
    v.items.push_back(read_form(depth + 1));
  }
  if (kind == Value::Kind::map && v.items.size() % 2 != 0)
    fail(open_line, "a map has a key without a value (odd number of forms in `{...}`)");
  return v;
}

Value EdnReader::read_string() {
  const std::size_t open_line = line_;
  ++pos_;
  std::string s;
  for (;;) {
    // Copy the run up to the next quote, backslash or newline in one go.
    std::size_t run = pos_;
    while (run < text_.size() && text_[run] != '"' && text_[run] != '\\' && text_[run] != '\n') ++run;
    s.append(text_.data() + pos_, run - pos_);
    pos_ = run;
    if (pos_ >= text_.size()) {
      if (std::string_view(unit_) == "file")
        fail(open_line, "unterminated string (no closing `\"` before the end of the file)");
      fail(open_line, std::string("unterminated string (no closing `\"` on this ") + unit_ + ")");
    }
    const char c = text_[pos_++];
    if (c == '"') break;
    if (c == '\n') {
      ++line_;
      s += '\n';
      continue;
    }
    // A backslash escape.
    if (pos_ >= text_.size()) fail(line_, "unterminated string (ends in a `\\`)");
    const char e = text_[pos_++];
    switch (e) {
      case '"': s += '"'; break;
      case '\\': s += '\\'; break;
      case '/': s += '/'; break;
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      case 'r': s += '\r'; break;
      case 'b': s += '\b'; break;
      case 'f': s += '\f'; break;
      case 'u': {
        unsigned cp = 0;
        for (int i = 0; i < 4; ++i) {
          if (pos_ >= text_.size()) fail(line_, "truncated `\\u` escape in a string");
          const char h = text_[pos_++];
          unsigned d;
          if (h >= '0' && h <= '9') d = static_cast<unsigned>(h - '0');
          else if (h >= 'a' && h <= 'f') d = static_cast<unsigned>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') d = static_cast<unsigned>(h - 'A' + 10);
          else fail(line_, "bad `\\u` escape in a string (expected 4 hex digits)");
          cp = cp * 16 + d;
        }
        append_utf8(s, cp);
        break;
      }
      default:
        if (e == '\n') ++line_;
        fail(line_, "unknown escape `\\" + shown(e) + "` in a string");
    }
  }
  return Value::string(std::move(s));
}

// [+-]digits[.digits][(e|E)[+-]digits][M|N]: integers are 64-bit (overflow is an error),
// reals are doubles (out of range is an error: no infinities, whose text would not read back).
// As the EDN spec says, no integer part other than 0 begins with 0 (Clojure would read `010`
// as octal 8: refusing it is safer than reading either 8 or 10).
Value EdnReader::read_number() {
  const std::string_view tok = read_token();
  std::size_t i = 0;
  const bool plus = tok[0] == '+';
  if (tok[0] == '+' || tok[0] == '-') ++i;
  const std::size_t int_start = i;
  while (i < tok.size() && is_digit(tok[i])) ++i;
  const bool leading_zero = i - int_start > 1 && tok[int_start] == '0';
  bool real = false;
  if (i < tok.size() && tok[i] == '.') {
    real = true;
    ++i;
    const std::size_t digits = i;
    while (i < tok.size() && is_digit(tok[i])) ++i;
    if (i == digits) fail(line_, "invalid number `" + snippet(tok) + "` (EDN needs a digit after the `.`)");
  }
  if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
    real = true;
    ++i;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) ++i;
    const std::size_t digits = i;
    while (i < tok.size() && is_digit(tok[i])) ++i;
    if (i == digits) fail(line_, "invalid number `" + snippet(tok) + "`");
  }
  std::size_t end = i;  // the numeric part, before a suffix
  if (i < tok.size() && tok[i] == 'M') {
    real = true;  // BigDecimal: read as a double
    ++i;
  } else if (i < tok.size() && tok[i] == 'N' && !real) {
    ++i;  // BigInt: read as a 64-bit integer
  }
  if (i != tok.size()) fail(line_, "invalid number `" + snippet(tok) + "`");
  if (leading_zero)
    fail(line_, "invalid number `" + snippet(tok) + "` (EDN " + (real ? "numbers" : "integers") + " have no leading zeros)");
  const char* first = tok.data() + (plus ? 1 : 0);
  const char* last = tok.data() + end;
  if (real) {
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) fail(line_, "number `" + snippet(tok) + "` is out of range");
    if (r.ec != std::errc() || r.ptr != last) fail(line_, "invalid number `" + snippet(tok) + "`");
    Value v;
    v.kind = Value::Kind::real;
    v.real_number = d;
    return v;
  }
  std::int64_t n = 0;
  const auto r = std::from_chars(first, last, n);
  if (r.ec == std::errc::result_out_of_range) fail(line_, "integer `" + snippet(tok) + "` is out of range (64-bit)");
  if (r.ec != std::errc() || r.ptr != last) fail(line_, "invalid number `" + snippet(tok) + "`");
  return Value::integer(n);
}

}  // namespace duet::history::detail
