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

/// printf into a std::string of whatever length the output needs (never truncated: a fixed
/// buffer is what -Wformat-truncation warns about in an embedding project's build).
///
///   printf_string("%.2f s", 1.5)   // "1.50 s"
[[gnu::format(printf, 1, 2)]] std::string printf_string(const char* format, ...);

/// An estimated count as a report says it: whole below a billion, else in powers of ten.
///
///   estimated_count(3400000.4)   // "3400000"
///   estimated_count(1.9e25)      // "1.9e+25"
std::string estimated_count(double n);

/// The words of `text` on lines of at most `width` columns, each starting with `indent` spaces
/// and ending with a newline.
///
///   wrapped("note: a b c", 2, 100)   // "  note: a b c\n"
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width);

}  // namespace duet::detail
