// What the parser fuzzers check on every input: parse_history under each Format either returns
// a well-formed history or throws ParseError (with a sensible line), and whatever parses
// round-trips through duet's own format.
#include "parse_fuzz.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <duet/history.hpp>

namespace {
using namespace duet::history;

constexpr Format kFormats[] = {Format::automatic, Format::jepsen_log, Format::kv_log, Format::edn, Format::duet};

[[noreturn]] void bug(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "duet_fuzz_parse: BUG: %s\n", what.c_str());
  std::fprintf(stderr, "input (%zu bytes): %.*s\n", input.size(),
               static_cast<int>(std::min<std::size_t>(input.size(), 2000)), input.data());
  std::fflush(stderr);
  std::abort();
}

std::string op_text(const Operation& op) {
  return "{process " + std::to_string(op.process) + " f " + op.f + " key " + (op.key ? op.key->to_string() : "-") +
         " input " + op.input.to_string() + " output " + op.output.to_string() + " outcome " +
         std::to_string(static_cast<int>(op.outcome)) + " unknown " + std::to_string(op.result_unknown) + " invoke " +
         std::to_string(op.invoke) + " response " + std::to_string(op.response) + "}";
}

bool same_op(const Operation& a, const Operation& b) {
  return a.process == b.process && a.f == b.f && a.key.has_value() == b.key.has_value() && (!a.key || *a.key == *b.key) &&
         a.input == b.input && a.output == b.output && a.outcome == b.outcome && a.result_unknown == b.result_unknown &&
         a.invoke == b.invoke && a.response == b.response;
}

void expect_same(const History& a, const History& b, const std::string& what, std::string_view input) {
  if (a.default_model != b.default_model)
    bug(what + ": model `" + a.default_model + "` became `" + b.default_model + "`", input);
  if (a.ops.size() != b.ops.size())
    bug(what + ": " + std::to_string(a.ops.size()) + " operations became " + std::to_string(b.ops.size()), input);
  for (std::size_t i = 0; i < a.ops.size(); ++i)
    if (!same_op(a.ops[i], b.ops[i]))
      bug(what + ": operation " + std::to_string(i) + " " + op_text(a.ops[i]) + " became " + op_text(b.ops[i]), input);
}

std::size_t line_count(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// One map per line is kv-log to the detector; without keys it is Jepsen's history.edn, and the
// parser says edn.
bool history_edn(Format read_as, const History& h) {
  return read_as == Format::kv_log && h.format == Format::edn &&
         std::none_of(h.ops.begin(), h.ops.end(), [](const Operation& op) { return op.key.has_value(); });
}

void check_history(const History& h, Format asked, std::string_view input) {
  const std::string name(format_name(asked));
  if (asked != Format::automatic && h.format != asked && !history_edn(asked, h))
    bug("parsed as " + name + " but History::format differs", input);
  if (h.source != "fuzz") bug("History::source is not the name given", input);
  if (h.format != Format::duet && h.default_model.empty()) bug("no default model for " + name, input);
  const std::size_t lines = line_count(input);
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    const Operation& op = h.ops[i];
    const std::string at = name + " operation " + std::to_string(i) + " " + op_text(op);
    if (i > 0 && h.ops[i - 1].invoke > op.invoke) bug(at + ": not sorted by invocation", input);
    if (op.invoke_line == 0 || op.invoke_line > lines) bug(at + ": invoke_line out of the file", input);
    if (op.outcome == Outcome::info) {
      if (op.response != Operation::kPending || op.response_line != 0) bug(at + ": info but not pending", input);
      continue;
    }
    if (op.response == Operation::kPending || op.response_line == 0 || op.response_line > lines)
      bug(at + ": completed but pending or with a bad line", input);
    if (op.response < op.invoke) bug(at + ": completes before its invocation", input);
    if (h.format != Format::duet && (op.response == op.invoke || op.response_line < op.invoke_line))
      bug(at + ": invocation and completion not strictly ordered", input);
  }
}

void round_trip(const History& h, std::string_view input) {
  const std::string text = write_duet_history(h);
  History back;
  try {
    if (detect_format(text, "roundtrip") != Format::duet) bug("written duet history not detected as duet", input);
    back = parse_history(text, Format::automatic, "roundtrip");
  } catch (const ParseError& e) {
    bug(std::string("written duet history does not read back: ") + e.what() + "\n--- written:\n" + text, input);
  }
  expect_same(h, back, "round trip through write_duet_history", input);
  if (write_duet_history(back) != text) bug("writing the read-back history gives different text", input);
}

}  // namespace

int duet_fuzz_parse(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t lines = line_count(input);
  std::optional<History> parsed[std::size(kFormats)];
  for (std::size_t k = 0; k < std::size(kFormats); ++k) {
    const Format format = kFormats[k];
    try {
      parsed[k] = parse_history(input, format, "fuzz");
    } catch (const ParseError& e) {
      if (e.file() != "fuzz") bug(std::string("ParseError names another file: ") + e.what(), input);
      if (e.line() == 0 || e.line() > lines) bug(std::string("ParseError line out of the file: ") + e.what(), input);
      continue;
    } catch (const std::exception& e) {
      bug(std::string("parse_history(") + std::string(format_name(format)) + ") threw a non-ParseError: " + e.what(), input);
    } catch (...) {
      bug("parse_history threw something that is not a std::exception", input);
    }
    check_history(*parsed[k], format, input);
    round_trip(*parsed[k], input);
  }
  // Detection alone agrees with the automatic parse: what it picks, an explicit parse reads
  // the same way.
  try {
    const Format detected = detect_format(input, "fuzz");
    if (parsed[0]) {
      if (parsed[0]->format != detected && !history_edn(detected, *parsed[0]))
        bug("automatic parse and detect_format disagree", input);
      const auto k =
          static_cast<std::size_t>(std::find(std::begin(kFormats), std::end(kFormats), detected) - std::begin(kFormats));
      if (!parsed[k]) bug("the automatic parse succeeds but the explicit one fails", input);
      expect_same(*parsed[0], *parsed[k], "automatic vs explicit format", input);
    }
  } catch (const ParseError& e) {
    if (parsed[0]) bug(std::string("automatic parse succeeded but detect_format throws: ") + e.what(), input);
  } catch (const std::exception& e) {
    bug(std::string("detect_format threw a non-ParseError: ") + e.what(), input);
  }
  return 0;
}
