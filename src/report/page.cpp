// What every HTML page duet writes shares: escaping, the stylesheet, the header's facts.
#include "report/page.hpp"

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

namespace {

constexpr std::string_view kStyle = R"css(
:root{--bg:#f5f6f8;--card:#fff;--ink:#1f2328;--mute:#59636e;--line:#d8dee4;--blue:#1f6feb;--red:#cf222e;--green:#1a7f37;--amber:#9a6700}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header.top{background:var(--card);border-bottom:1px solid var(--line);padding:16px 24px 12px}
.title{display:flex;align-items:center;gap:14px;flex-wrap:wrap}
h1{font-size:19px;margin:0;font-weight:600}
.verdict{font-weight:600;font-size:13px;padding:3px 10px;border-radius:999px;color:#fff;letter-spacing:.02em}
.v-linearizable{background:var(--green)}.v-not-linearizable{background:var(--red)}.v-unknown{background:var(--amber)}
.facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:12px 0 0;padding:0}
.facts div{display:flex;flex-direction:column}
.facts dt{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--mute)}
.facts dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums;word-break:break-all}
.stuckbox{margin-top:12px;border-left:4px solid var(--red);background:#fff1f0;padding:8px 12px;border-radius:0 6px 6px 0}
.stuckbox code,.panel code{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",monospace;background:#0000000d;padding:1px 4px;border-radius:4px;word-break:break-all}
details{margin-top:10px}summary{cursor:pointer;color:var(--mute);font-weight:600}
pre.expl{margin:6px 0 0;padding:10px 12px;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;max-height:260px;overflow:auto;font:12.5px/1.45 ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre-wrap;word-break:break-word}
.omitted{margin:12px 24px 0;padding:8px 12px;background:#fff8c5;border:1px solid #d4a72c66;border-radius:6px}
.omitted .counts{display:flex;gap:10px 28px;flex-wrap:wrap;margin-top:2px;font-weight:600}
.tools{display:flex;align-items:center;gap:16px;flex-wrap:wrap;padding:10px 24px;font-size:13px;color:var(--mute)}
.tools label{display:flex;align-items:center;gap:6px}
.tools button{font:inherit;padding:3px 10px;border:1px solid var(--line);background:var(--card);border-radius:6px;cursor:pointer;color:var(--ink)}
.tools button:hover{border-color:var(--blue)}
.legend{display:flex;gap:12px;flex-wrap:wrap;margin-left:auto}
.legend span{display:flex;align-items:center;gap:5px}
.legend i{display:inline-block;width:22px;height:11px;border-radius:3px}
.tl{display:flex;margin:0 24px;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden}
.names{flex:0 0 104px;border-right:1px solid var(--line);background:#fafbfc}
.pname{display:flex;align-items:flex-start;padding:20px 10px 0;font-size:12px;font-weight:600;color:var(--mute);border-bottom:1px solid #eef1f4;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.sc{flex:1;overflow-x:auto;overflow-y:hidden;position:relative}
.cv{--u:16px;--lh:44px;position:relative}
.lane{position:absolute;left:0;right:0;top:calc(var(--l) * var(--lh));height:calc(var(--n) * var(--lh));border-bottom:1px solid #eef1f4}
.lane.alt{background:#f7f8fa99}
.bar{position:absolute;left:calc(var(--s) * var(--u));width:calc(var(--w) * var(--u) - 2px);top:calc(var(--l) * var(--lh) + 19px);height:22px;border:1px solid #b6bcc4;background:#eceef1;color:#4b535c;border-radius:5px;font:11.5px/20px ui-monospace,"DejaVu Sans Mono",monospace;padding:0 5px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;z-index:1}
.bar.lin{background:#dbe7fd;border-color:#6e9ef0;color:#0a3069}
.bar.fail{background:repeating-linear-gradient(135deg,#f6e7d0 0 5px,#fcf4e8 5px 10px);border-color:#d39a4a;color:#6b4200}
.bar.info{border-style:dashed;border-right:none;border-radius:5px 0 0 5px;background:linear-gradient(to right,#e4e7eb,#e4e7eb00 85%);color:#6e7781;font-style:italic}
.bar.info.lin{background:linear-gradient(to right,#dbe7fd,#dbe7fd00 85%);border-color:#6e9ef0}
.bar.other{opacity:.35}
.bar.wit{outline:2px dashed #bf8700;outline-offset:1px}
.bar.stuck{background:#ffe4e1;border:2px solid var(--red);color:#82071e;font-weight:700;line-height:18px;box-shadow:0 0 0 3px #cf222e2e;z-index:2}
.bar:hover{filter:brightness(.96);z-index:3}
.bar.nb{box-shadow:0 0 0 2px #1f6feb55}
.bar.sel{box-shadow:0 0 0 3px #ffb000;z-index:4}
.links{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none;z-index:0;overflow:visible}
.links path{fill:none;stroke:var(--blue);stroke-width:1.6;stroke-opacity:.55}
.links path.gap{stroke-dasharray:4 4}
.mk{position:absolute;left:calc(var(--x) * var(--u));top:calc(var(--l) * var(--lh) + 10px);transform:translate(-50%,-50%);min-width:17px;height:17px;padding:0 4px;border-radius:9px;background:var(--blue);color:#fff;font:600 10px/17px system-ui,"DejaVu Sans",sans-serif;text-align:center;z-index:6;cursor:pointer;box-shadow:0 0 0 2px #fff}
.mk.stk{background:var(--red);transform:translate(-6px,-50%);padding:0 7px;font-size:10.5px}
.links path.stk{stroke:var(--red);stroke-opacity:.8;stroke-dasharray:3 3}
.mk.sel{background:#bf8700;z-index:7;transform:translate(-50%,-50%) scale(1.25)}
.mk.stk.sel{background:var(--red);transform:translate(-6px,-50%) scale(1.15)}
.panel .st{color:var(--red);font-weight:600}
.edge{position:absolute;top:2px;font-size:11px;color:var(--mute);background:#fff8c5;padding:0 6px;border-radius:4px;z-index:8}
.panel{margin:12px 24px 24px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-height:44px;color:var(--mute)}
.panel b{color:var(--ink)}
.panel .nav{float:right;display:flex;gap:6px}
.panel button{font:inherit;padding:2px 10px;border:1px solid var(--line);background:var(--card);border-radius:6px;cursor:pointer}
.tip{position:fixed;z-index:20;max-width:560px;background:#1f2328f2;color:#f0f3f6;padding:8px 10px;border-radius:6px;font-size:12.5px;pointer-events:none;box-shadow:0 6px 20px #0004}
.tip div{white-space:pre-wrap;word-break:break-word}
.tip .h{font-weight:700;font:12.5px ui-monospace,"DejaVu Sans Mono",monospace}
.tip .st{color:#ffaba8}
footer{margin:0 24px 20px;font-size:12px;color:var(--mute)}
)css";

}  // namespace

std::string_view style() { return kStyle; }

}  // namespace duet::detail::page
