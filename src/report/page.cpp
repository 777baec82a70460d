// What every HTML page duet writes shares: escaping, the stylesheet, the header's facts.
#include "report/page.hpp"

#include "report/assets.hpp"

#include <cstdint>

namespace duet::detail::page {
namespace {

// Text comes from files and user code: invalid UTF-8 becomes U+FFFD, so the page decodes the
// same in every browser and a clipped string never ends inside a character.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      out += s[i++];
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Reject overlong forms, surrogates and code points beyond U+10FFFF.
    if (ok)
      ok = !(len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF));
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// Valid UTF-8 in, valid UTF-8 out: cut at a character boundary and mark the cut.
std::string clip(std::string s, std::size_t cap) {
  if (s.size() <= cap) return s;
  std::size_t cut = cap;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  s += "\xE2\x80\xA6";  // ellipsis
  return s;
}

}  // namespace

std::string clean(std::string_view s, std::size_t cap) { return clip(valid_utf8(s), cap); }

void put_html(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '/': out += "&#47;"; break;
      default: out += c;
    }
  }
}

std::string html(std::string_view s) {
  std::string out;
  put_html(out, s);
  return out;
}

// Neither "</script>" nor "<!--" can appear.
void put_json(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '/': out += "\\/"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || ch == '<' || ch == '>' || ch == '&') {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void put_fact(std::string& o, std::string_view name, const std::string& escaped) {
  o += "<div><dt>";
  o += name;
  o += "</dt><dd>" + escaped + "</dd></div>";
}

std::string_view style() { return assets::page_css; }

}  // namespace duet::detail::page
