// What every HTML page duet writes shares (the history timeline of `duet-check --html`, a fiber
// failure's interleaving): text made safe for markup and scripts, the stylesheet, the header's
// facts. Self-contained pages: no network, the same input gives the same bytes.
//
//   std::string o = "<style>";
//   o += duet::detail::page::style();
//   o += "</style><p>";
//   duet::detail::page::put_html(o, duet::detail::page::clean(user_text, 400));
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace duet::detail::page {

/// `s` as valid UTF-8 (invalid bytes become U+FFFD), cut at a character boundary past `cap`
/// bytes and marked with an ellipsis.
std::string clean(std::string_view s, std::size_t cap);
/// Markup text and attribute values: & < > " ' and / escaped, so nothing can form "</" or a
/// URL-looking "http://".
void put_html(std::string& out, std::string_view s);
std::string html(std::string_view s);
/// A JSON string safe inside <script>: no '<', '>', '&' or '/' survive literally.
void put_json(std::string& out, std::string_view s);
/// One entry of a header's facts (<dl class="facts">): a name and its (escaped) value.
void put_fact(std::string& o, std::string_view name, const std::string& escaped);
/// The pages' stylesheet (header, facts, lanes, bars, panel, tooltip), without <style>.
std::string_view style();

}  // namespace duet::detail::page
