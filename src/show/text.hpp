// Quoting text that came from outside (settings, messages) without letting its size flood a
// report: a bounded, printable excerpt.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace duet::detail {

/// The first max bytes of text, control and non-ASCII bytes escaped as \xNN, followed by
/// "... (N bytes)" when cut.
///
///   excerpt(std::string(1'000'000, 'x'))   // "xxx...x... (1000000 bytes)", 200 x's
std::string excerpt(std::string_view text, std::size_t max = 200);

}  // namespace duet::detail
