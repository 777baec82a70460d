// Internal: a bounded EDN reader over a string_view, shared by the history parsers.
//
// It never reads past the end of its text, never recurses deeper than kMaxEdnDepth and
// reports every problem as a ParseError carrying the 1-based line where it was found.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "duet/history.hpp"
#include "history/quote.hpp"

namespace duet::history::detail {

/// Deepest nesting of vectors, lists, maps, sets, tags and discards; deeper input is refused
/// (bounded recursion, whatever the input).
inline constexpr int kMaxEdnDepth = 256;

/// EDN whitespace: commas count as whitespace.
inline bool is_edn_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ',';
}

/// A character that may appear in a symbol or keyword (and in a number token). Bytes >= 0x80
/// are accepted so that UTF-8 names pass through unchanged.
bool is_token_char(char c);

/// Gives up parsing past a deadline (TimeBudgetExceeded). tick() is called per line and per
/// form; it reads the clock only every kEvery calls, which keeps it cheap.
class DeadlineCheck {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint32_t kEvery = 1024;
  DeadlineCheck(Clock::time_point deadline, std::size_t text_bytes) : deadline_(deadline), bytes_(text_bytes) {}
  void tick(std::size_t line) {
    if (--countdown_ == 0) check(line);
  }
  /// Throws TimeBudgetExceeded if the deadline has passed.
  void check(std::size_t line);

 private:
  Clock::time_point deadline_;
  std::size_t bytes_;
  std::uint32_t countdown_ = kEvery;
};

class EdnReader {
 public:
  /// `first_line`: the line number of text[0]. `unit` names what ends the input in messages
  /// ("file" for a whole EDN file, "line" for one line of a line-based format).
  /// `deadline`, if not null, is ticked per form (one line can hold millions of them).
  EdnReader(std::string_view text, const std::string& source, std::size_t first_line, const char* unit,
            DeadlineCheck* deadline = nullptr)
      : text_(text), source_(source), line_(first_line), first_line_(first_line), unit_(unit), deadline_(deadline) {}

  /// Skips whitespace, commas, `;` comments and `#_` discarded forms. False at the end.
  bool skip_space(int depth = 0);
  /// Reads one form starting at the next non-space character; `depth` is the nesting level of
  /// the form (the top-level history vector, read by the caller, is level 0).
  Value read(int depth = 0);

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }  // requires !at_end()
  void advance() { ++pos_; }                 // over a character that is not a newline
  std::size_t line() const { return line_; }
  /// The line of the last character: where "unexpected end" is reported.
  std::size_t end_line() const;
  std::string_view rest() const { return text_.substr(pos_ < text_.size() ? pos_ : text_.size()); }
  [[noreturn]] void fail(std::size_t line, const std::string& what) const;

 private:
  Value read_form(int depth);
  Value read_sequence(char close, Value::Kind kind, char open, int depth);
  Value read_string();
  Value read_number();
  std::string_view read_token();

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_;
  std::size_t first_line_;
  const char* unit_;
  DeadlineCheck* deadline_;
};

}  // namespace duet::history::detail
