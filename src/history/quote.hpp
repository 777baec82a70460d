// Internal: quoting input in messages, bounded in size and work whatever the input (a history
// may hold one 100 MB value; its error message must not).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "duet/history.hpp"

namespace duet::history::detail {

/// Text for an error message: at most `max` bytes of its first line, control and non-ASCII
/// bytes as \xNN; a longer line ends in "... (N bytes)".
std::string snippet(std::string_view text, std::size_t max = 40);

/// At most `max` bytes of `text` (cut at a UTF-8 character boundary), then "... (N bytes)"
/// when it is longer; control bytes as \xNN, so that a message stays one line.
std::string cut(std::string_view text, std::size_t max = kQuoteBytes);

/// `s` as an EDN string literal ("a\"b"), bounded like Value::to_string(max) without copying
/// `s` into a Value first.
std::string edn_string(std::string_view s, std::size_t max = kQuoteBytes);

/// Control and non-ASCII bytes as \xNN (the rest of `text` as is).
std::string printable(std::string_view text);

/// The start states of a failing window for reports: "1, 3, 4", the first 8 and a count beyond.
std::string start_states_list(const std::vector<std::string>& states);

}  // namespace duet::history::detail
