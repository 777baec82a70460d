// Values and outcomes printed as C++: the vocabulary of reports and draft tests.
#include <cstdarg>
#include <cxxabi.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <typeindex>
#include <unordered_map>

#include "show/text.hpp"
#include "duet/result.hpp"
#include "duet/state_machine.hpp"

namespace duet {
namespace detail {

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> p(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && p ? std::string(p.get()) : std::string(mangled);
  // Readers write std::string, not its full spelling; and a name in an anonymous namespace as
  // the file that declares it does (where a draft test goes), without "(anonymous namespace)::".
  for (const char* long_name : {"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
                                "std::__cxx11::", "(anonymous namespace)::"}) {
    const std::string_view from = long_name;
    const std::string_view to = from == "std::__cxx11::" ? "std::" : from == "(anonymous namespace)::" ? "" : "std::string";
    for (std::size_t at = name.find(from); at != std::string::npos; at = name.find(from, at + to.size()))
      name.replace(at, from.size(), to);
  }
  return name;
}

std::string template_type_name(const char* name, const std::string& first, const std::string& second) {
  std::string out = name;
  out += '<';
  out += first;
  if (!second.empty()) out += ", " + second;
  out += '>';
  return out;
}

// Exceptions may be thrown on every command of a spec; demangle each type once.
const std::string& cached_demangle(const std::type_info& type) {
  static std::mutex mutex;
  static std::unordered_map<std::type_index, std::string> names;
  std::lock_guard lock(mutex);
  auto it = names.find(type);
  if (it == names.end()) it = names.emplace(type, demangle(type.name())).first;
  return it->second;
}

std::string show_integer(long long v, bool, unsigned bits) {
  if (bits == 64 && v == std::numeric_limits<long long>::min()) return "INT64_MIN";
  if (bits == 64 && v == std::numeric_limits<long long>::max()) return "INT64_MAX";
  if (bits == 32 && v == std::numeric_limits<int>::min()) return "INT_MIN";
  if (bits == 32 && v == std::numeric_limits<int>::max()) return "INT_MAX";
  return std::to_string(v);
}

std::string show_unsigned(unsigned long long v) {
  if (v == std::numeric_limits<unsigned long long>::max()) return "UINT64_MAX";
  return std::to_string(v) + "u";
}

std::string show_floating(double v, bool is_float) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v < 0 ? "-INFINITY" : "INFINITY";
  char buf[64];
  auto [end, ec] =
      is_float ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)) : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  // Keep it a floating literal: "1" would read as an int in a draft test.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  if (is_float) s += "f";
  return s;
}

static void escape_into(std::string& out, char c, char quote) {
  switch (c) {
    case '\n': out += "\\n"; return;
    case '\t': out += "\\t"; return;
    case '\r': out += "\\r"; return;
    case '\\': out += "\\\\"; return;
    case '\0': out += "\\0"; return;
    default: break;
  }
  if (c == quote) {
    out += '\\';
    out += c;
  } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
    out += buf;
  } else {
    out += c;
  }
}

// Declared in duet/result.hpp: the tables of LibraryValueTypes, in its order (checked below).
constinit const ValueOps library_value_ops[] = {
    make_value_ops<bool>(),
    make_value_ops<char>(),
    make_value_ops<signed char>(),
    make_value_ops<unsigned char>(),
    make_value_ops<short>(),
    make_value_ops<unsigned short>(),
    make_value_ops<int>(),
    make_value_ops<unsigned>(),
    make_value_ops<long>(),
    make_value_ops<unsigned long>(),
    make_value_ops<long long>(),
    make_value_ops<unsigned long long>(),
    make_value_ops<float>(),
    make_value_ops<double>(),
    make_value_ops<std::string>(),
    make_value_ops<std::optional<bool>>(),
    make_value_ops<std::optional<char>>(),
    make_value_ops<std::optional<int>>(),
    make_value_ops<std::optional<unsigned>>(),
    make_value_ops<std::optional<long>>(),
    make_value_ops<std::optional<unsigned long>>(),
    make_value_ops<std::optional<long long>>(),
    make_value_ops<std::optional<unsigned long long>>(),
    make_value_ops<std::optional<double>>(),
    make_value_ops<std::optional<std::string>>(),
};
namespace {
template <class... Ts>
constexpr bool library_value_ops_in_order(TypeList<Ts...> list) {
  int i = 0;
  return ((type_index<Ts>(list) == i++) && ...) && sizeof...(Ts) == std::size(library_value_ops);
}
static_assert(library_value_ops_in_order(LibraryValueTypes{}), "library_value_ops lists LibraryValueTypes in its order");
}  // namespace

void throw_valueless_variant() { throw std::bad_variant_access(); }

std::string show_char(char c) {
  std::string out = "'";
  escape_into(out, c, '\'');
  return out + "'";
}

std::string show_string(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    escape_into(out, s[i], '"');
    // "\x01" followed by a hex digit would merge into one escape; split the literal.
    const auto c = static_cast<unsigned char>(s[i]);
    const bool hex_escaped = (c < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\0') || c >= 0x7f;
    const bool octal_escaped = c == '\0';
    if (i + 1 < s.size() && ((hex_escaped && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) ||
                             (octal_escaped && s[i + 1] >= '0' && s[i + 1] <= '7')))
      out += "\" \"";
  }
  return out + "\"";
}

std::string exception_text(const Result& r) {
  // A candidate's message can be any size; a report quotes the start of it.
  constexpr std::size_t kMax = 1000;
  std::string s = r.exception_type();
  const std::string& m = r.exception_message();
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "(" + std::string&&.
  if (m.empty()) return s;
  s += '(';
  s += show_string(m.size() > kMax ? std::string_view(m).substr(0, kMax) : std::string_view(m));
  if (m.size() > kMax) s += "... (" + std::to_string(m.size()) + " bytes)";
  s += ')';
  return s;
}

std::string wrapped(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, line(indent, ' ');
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (line.size() > indent && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.assign(indent, ' ');
    }
    if (line.size() > indent) line += ' ';
    line += word;
    start = end + 1;
  }
  return out + line + "\n";
}

std::string estimated_count(double n) { return n < 1e9 ? printf_string("%.0f", n) : printf_string("%.1e", n); }

std::string printf_string(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

std::string excerpt(std::string_view text, std::size_t max) {
  std::string out;
  const std::size_t n = std::min(text.size(), max);
  out.reserve(n + 24);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (n < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string describe_current_exception() { return exception_text(Result::current_exception()); }

std::string threw(std::string_view who) { return std::string(who) + " threw " + describe_current_exception(); }

}  // namespace detail

Result Result::current_exception() {
  try {
    throw;
  } catch (const std::exception& e) {
    return exception(detail::cached_demangle(typeid(e)), e.what());
  } catch (const std::string& s) {
    return exception("std::string", s);
  } catch (const char* s) {
    return exception("const char*", s ? s : "");
  } catch (...) {
    return exception("an exception of unknown type");
  }
}

bool Result::equal_otherwise(const Result& a, const Result& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Kind::none: return true;
    case Kind::value: return (a.ops_ == b.ops_ || a.ops_->type == b.ops_->type) && a.ops_->equal(a.data(), b.data());
    default:
      return a.exc_->type == b.exc_->type &&
             (a.exc_->message.empty() || b.exc_->message.empty() || a.exc_->message == b.exc_->message);
  }
}

std::string Result::show() const {
  switch (kind_) {
    case Kind::none: return "(void)";
    case Kind::value: return ops_->show(data());
    default: return "throws " + detail::exception_text(*this);
  }
}

}  // namespace duet
