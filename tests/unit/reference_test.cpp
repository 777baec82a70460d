// docs/reference.md names every public entry point of duet.
//
// The public headers are include/duet/**/*.hpp without include/duet/detail/, and the ready-made
// models, models/duet/models/*.hpp. From each one this test collects the names it declares at
// namespace scope in namespace duet (or duet::models, duet::history, ...) outside any
// `namespace detail` block: classes, structs, unions, enums, concepts, type aliases,
// using-declarations, variables and functions (declarations start at column 0 in these headers),
// and the DUET_ macros meant for users. Each name must appear as an identifier inside some
// backtick span of docs/reference.md (`name`, `duet::name`, `name(...)`, `X::name`...), and each
// header's path (duet/api.hpp, duet/models/queue.hpp) in one of its headings.
//
// The parser is deliberately small: comments and literals are blanked, braces are counted to
// know the enclosing namespaces, and only lines starting at column 0 at namespace scope are read
// as declarations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef DUET_SOURCE_DIR
#error "DUET_SOURCE_DIR must name the repository root"
#endif

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = DUET_SOURCE_DIR;
const fs::path kReference = kRoot / "docs" / "reference.md";

struct PublicHeader {
  fs::path file;
  std::string name;  // as included: "duet/api.hpp", "duet/models/queue.hpp"
};

struct Declared {
  std::string name;
  std::size_t line = 0;  // 1-based
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool has_component(const fs::path& p, const std::string& component) {
  for (const auto& part : p)
    if (part == component) return true;
  return false;
}

// Every public header, sorted by its include name.
std::vector<PublicHeader> public_headers() {
  std::vector<PublicHeader> out;
  const fs::path include = kRoot / "include";
  for (const auto& e : fs::recursive_directory_iterator(include / "duet")) {
    const fs::path rel = fs::relative(e.path(), include);
    if (e.is_regular_file() && e.path().extension() == ".hpp" && !has_component(rel, "detail"))
      out.push_back({e.path(), rel.generic_string()});
  }
  const fs::path models = kRoot / "models";
  for (const auto& e : fs::directory_iterator(models / "duet" / "models"))
    if (e.is_regular_file() && e.path().extension() == ".hpp")
      out.push_back({e.path(), fs::relative(e.path(), models).generic_string()});
  std::sort(out.begin(), out.end(), [](const PublicHeader& a, const PublicHeader& b) { return a.name < b.name; });
  return out;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The text with comments and the contents of string and character literals replaced by spaces;
// line breaks and columns are kept.
std::string blank_comments_and_literals(const std::string& s) {
  std::string out = s;
  enum class State { code, line_comment, block_comment, string, character, raw_string } state = State::code;
  std::string raw_end;  // )delim"
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') {
          state = State::line_comment;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = State::block_comment;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c == '"') {
          if (i > 0 && s[i - 1] == 'R' &&
              (i < 2 || !is_ident_char(s[i - 2]) || s[i - 2] == '8' || s[i - 2] == 'L' || s[i - 2] == 'u' ||
               s[i - 2] == 'U')) {
            const std::size_t open = s.find('(', i);
            raw_end = ")" + s.substr(i + 1, open == std::string::npos ? 0 : open - i - 1) + "\"";
            state = State::raw_string;
          } else {
            state = State::string;
          }
        } else if (c == '\'') {
          // A digit separator (10'000) when the token it is in starts with a digit.
          std::size_t b = i;
          while (b > 0 && (is_ident_char(s[b - 1]) || s[b - 1] == '\'' || s[b - 1] == '.')) --b;
          if (b == i || !std::isdigit(static_cast<unsigned char>(s[b]))) state = State::character;
        }
        break;
      case State::line_comment:
        if (c == '\n') state = State::code;
        else out[i] = ' ';
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = State::code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case State::string:
      case State::character:
        if (c == '\\' && next != '\n') {
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if ((state == State::string && c == '"') || (state == State::character && c == '\'')) {
          state = State::code;
        } else if (c == '\n') {
          state = State::code;  // unterminated: give up on it at the end of the line
        } else {
          out[i] = ' ';
        }
        break;
      case State::raw_string:
        if (s.compare(i, raw_end.size(), raw_end) == 0) {
          i += raw_end.size() - 1;
          state = State::code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The identifier that ends right before position `end` (spaces skipped), and where it starts.
std::string identifier_before(const std::string& s, std::size_t end, std::size_t* start = nullptr) {
  while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  std::size_t b = end;
  while (b > 0 && is_ident_char(s[b - 1])) --b;
  if (start) *start = b;
  if (b == end || std::isdigit(static_cast<unsigned char>(s[b]))) return {};
  return s.substr(b, end - b);
}

// Removes leading `template <...>` headers; false when one does not close on this line.
bool strip_template_headers(std::string& s) {
  static const std::regex kTemplate(R"(^template\s*<)");
  std::smatch m;
  while (std::regex_search(s, m, kTemplate)) {
    int depth = 0;
    std::size_t i = static_cast<std::size_t>(m.length(0)) - 1;
    for (; i < s.size(); ++i) {
      if (s[i] == '<') ++depth;
      else if (s[i] == '>' && --depth == 0) break;
    }
    if (i >= s.size()) return false;
    s = trim(s.substr(i + 1));
  }
  return true;
}

bool all_caps(const std::string& name) {
  return std::none_of(name.begin(), name.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
}

// The name a column-0 line at namespace scope declares, or empty.
std::string declared_on_line(std::string s) {
  s = trim(s);
  if (!strip_template_headers(s) || s.empty()) return {};
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == ':')) return {};

  static const std::set<std::string> kNotDeclarations = {
      "return",  "if",        "else",     "for",      "while",         "do",       "switch",    "case",     "default",
      "throw",   "co_return", "co_await", "co_yield", "static_assert", "requires", "namespace", "friend",   "public",
      "private", "protected", "goto",     "break",    "continue",      "delete",   "new",       "template", "extern"};
  std::size_t first_end = 0;
  while (first_end < s.size() && is_ident_char(s[first_end])) ++first_end;
  const std::string first = s.substr(0, first_end);
  if (kNotDeclarations.count(first) && !(first == "extern" && s.find('"') == std::string::npos)) return {};

  std::smatch m;
  static const std::regex kClass(
      R"(^(?:(?:inline|constexpr|export)\s+)*(?:struct|class|union)\s+(?:(?:\[\[[^\]]*\]\]|alignas\s*\([^)]*\))\s*)*(\w+)\s*(.*)$)");
  if (std::regex_match(s, m, kClass)) {
    const std::string rest = m[2];
    if (!rest.empty() && rest[0] == ';') return {};  // a forward declaration: the definition counts
    return m[1];
  }
  static const std::regex kEnum(R"(^enum\s+(?:class\s+|struct\s+)?(?:\[\[[^\]]*\]\]\s*)*(\w+))");
  if (std::regex_search(s, m, kEnum)) return m[1];
  static const std::regex kConcept(R"(^concept\s+(\w+))");
  if (std::regex_search(s, m, kConcept)) return m[1];
  if (std::regex_search(s, std::regex(R"(^using\s+namespace\b)"))) return {};
  static const std::regex kAlias(R"(^using\s+(\w+)\s*(?:\[\[[^\]]*\]\]\s*)?=)");
  if (std::regex_search(s, m, kAlias)) return m[1];
  static const std::regex kUsingDeclaration(R"(^using\s+(?:typename\s+)?(?:[\w]+\s*::\s*)*(\w+)\s*;)");
  if (std::regex_search(s, m, kUsingDeclaration)) return m[1];
  static const std::regex kTypedef(R"(^typedef\b.*?(\w+)\s*;)");
  if (std::regex_search(s, m, kTypedef)) return m[1];

  const std::size_t paren = s.find('(');
  std::size_t eq = std::string::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '=') continue;
    const char before = i > 0 ? s[i - 1] : ' ', after = i + 1 < s.size() ? s[i + 1] : ' ';
    if (after == '=' || before == '=' || before == '!' || before == '<' || before == '>') continue;
    eq = i;
    break;
  }
  // Operator overloads (operator==, operator(), conversions) are reached through their class.
  static const std::regex kOperator(R"(\boperator\b)");
  if (std::regex_search(s.substr(0, paren), kOperator)) return {};

  // A variable: `inline constexpr std::size_t kQuoteBytes = 200;`
  if (eq != std::string::npos && (paren == std::string::npos || eq < paren)) {
    std::size_t end = eq;
    while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
    while (end > 0 && s[end - 1] == ']') {  // an array: name[N]
      const std::size_t open = s.rfind('[', end - 1);
      if (open == std::string::npos) return {};
      end = open;
    }
    std::size_t start = 0;
    const std::string name = identifier_before(s, end, &start);
    return start > 0 ? name : std::string();  // something (a type) must come before the name
  }
  if (paren == std::string::npos) {
    // `extern T name;` or `inline constexpr T name{...};`
    static const std::regex kVariable(R"(^(?:extern|inline|constexpr|constinit|static|const)\b[^;{]*?(\w+)\s*[;{])");
    if (std::regex_search(s, m, kVariable)) return m[1];
    return {};
  }

  // A function: the identifier right before the first '(' that is not decltype(...) and such.
  static const std::set<std::string> kNotNames = {"decltype",      "alignas",    "noexcept", "sizeof",  "alignof",
                                                  "__attribute__", "__declspec", "requires", "explicit"};
  for (std::size_t p = paren; p != std::string::npos; p = s.find('(', p + 1)) {
    std::size_t start = 0;
    const std::string name = identifier_before(s, p, &start);
    if (name.empty() || kNotNames.count(name)) continue;
    if (start >= 2 && s.compare(start - 2, 2, "::") == 0) return {};  // Class::member( defined out of line
    if (start > 0 && s[start - 1] == '~') return {};                  // a destructor
    if (name == "main" || kNotDeclarations.count(name)) return {};
    if (start == 0 && all_caps(name)) return {};  // a macro used at namespace scope
    return name;
  }
  return {};
}

// A #define meant for users: DUET_..., not an include guard, not DUET_DETAIL_..., not documented
// as internal (defining it inside a detail namespace says so too: see public_names).
bool user_macro(const std::string& name, const std::vector<std::string>& raw, std::size_t line,
                const std::string& previous_directive) {
  if (name.rfind("DUET_", 0) != 0 || name.find("_DETAIL_") != std::string::npos) return false;
  static const std::regex kGuard(R"(_(HPP|HH|H|HXX)_?$)");
  if (std::regex_search(name, kGuard)) return false;
  if (previous_directive.find("ifndef") != std::string::npos && previous_directive.find(name) != std::string::npos)
    return false;
  // The comment right above it (or after it on its line) saying it is internal.
  static const std::regex kInternal(R"(\binternal\b|\bnot public\b|\bnot for users\b|\bdo not use\b)", std::regex::icase);
  if (std::regex_search(raw[line], kInternal)) return false;
  for (std::size_t i = line; i-- > 0;) {
    const std::string t = trim(raw[i]);
    if (t.rfind("//", 0) != 0 && t.rfind("*", 0) != 0 && t.rfind("/*", 0) != 0) break;
    if (std::regex_search(t, kInternal)) return false;
  }
  return true;
}

struct Scope {
  bool is_namespace = false;
  std::string name;  // "duet::models", "detail", "" (anonymous)
};

std::vector<std::string> namespace_components(const std::vector<Scope>& scopes) {
  std::vector<std::string> parts;
  for (const Scope& s : scopes) {
    if (!s.is_namespace) continue;
    std::size_t b = 0;
    for (;;) {
      const std::size_t e = s.name.find("::", b);
      parts.push_back(trim(s.name.substr(b, e == std::string::npos ? std::string::npos : e - b)));
      if (e == std::string::npos) break;
      b = e + 2;
    }
  }
  return parts;
}

bool inside_detail(const std::vector<Scope>& scopes) {
  const std::vector<std::string> parts = namespace_components(scopes);
  return std::find(parts.begin(), parts.end(), "detail") != parts.end();
}

// Whether the enclosing scopes are all namespaces, the first being duet and none detail.
bool public_namespace_scope(const std::vector<Scope>& scopes) {
  for (const Scope& s : scopes)
    if (!s.is_namespace || s.name.empty()) return false;  // a class or function body; anonymous
  const std::vector<std::string> parts = namespace_components(scopes);
  if (parts.empty() || parts.front() != "duet") return false;
  return std::find(parts.begin(), parts.end(), "detail") == parts.end();
}

// The public names a header declares, each once, in order of first declaration.
std::vector<Declared> public_names(const std::string& text) {
  const std::vector<std::string> raw = split_lines(text);
  const std::vector<std::string> code = split_lines(blank_comments_and_literals(text));
  std::vector<Declared> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name, std::size_t line) {
    if (!name.empty() && seen.insert(name).second) out.push_back({name, line + 1});
  };

  std::vector<Scope> scopes;
  bool pending_namespace = false;
  std::string pending_name;
  bool continued_directive = false;
  std::string previous_directive;
  static const std::regex kDefine(R"(^\s*#\s*define\s+(\w+))");
  static const std::regex kNamespace(R"(^namespace\b\s*((?:\w+\s*(?:::\s*)?)*))");

  for (std::size_t n = 0; n < code.size() && n < raw.size(); ++n) {
    const std::string& line = code[n];
    const std::string t = trim(line);
    // Preprocessor lines (and their continuations) take no part in the scopes.
    if (continued_directive || (!t.empty() && t[0] == '#')) {
      std::smatch m;
      if (!continued_directive && std::regex_search(line, m, kDefine) && !inside_detail(scopes) &&
          user_macro(m[1], raw, n, previous_directive))
        add(m[1], n);
      if (!continued_directive) previous_directive = t;
      continued_directive = !t.empty() && t.back() == '\\';
      continue;
    }
    if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) && public_namespace_scope(scopes))
      add(declared_on_line(line), n);

    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (is_ident_char(c) && (i == 0 || !is_ident_char(line[i - 1]))) {
        std::size_t e = i;
        while (e < line.size() && is_ident_char(line[e])) ++e;
        if (line.compare(i, e - i, "namespace") == 0) {
          std::smatch m;
          const std::string rest = line.substr(i);
          if (std::regex_search(rest, m, kNamespace)) {
            const std::size_t after = i + static_cast<std::size_t>(m.length(0));
            const std::string following = trim(line.substr(after));
            // `namespace a = b;` is an alias, `using namespace a;` opens nothing.
            const bool opens = following.empty() || following[0] == '{';
            const bool using_directive = i >= 6 && trim(line.substr(0, i)).ends_with("using");
            if (opens && !using_directive) {
              pending_namespace = true;
              pending_name = trim(m[1].str());
            }
          }
        }
        i = e - 1;
      } else if (c == '{') {
        scopes.push_back({pending_namespace, pending_namespace ? pending_name : std::string()});
        pending_namespace = false;
      } else if (c == '}') {
        if (!scopes.empty()) scopes.pop_back();
      } else if (c == ';') {
        pending_namespace = false;
      }
    }
  }
  return out;
}

// Every identifier that appears inside an inline code span of a Markdown text (fenced code
// blocks are examples, not entries, and do not count).
std::set<std::string> identifiers_in_code_spans(const std::string& markdown) {
  std::string prose;
  bool fenced = false;
  for (const std::string& line : split_lines(markdown)) {
    const std::string t = trim(line);
    if (t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0) {
      fenced = !fenced;
      prose += "\n";
      continue;
    }
    prose += fenced ? std::string() : line;
    prose += "\n";
  }
  std::set<std::string> out;
  std::size_t i = 0;
  while (i < prose.size()) {
    if (prose[i] != '`') {
      ++i;
      continue;
    }
    std::size_t run = 0;
    while (i + run < prose.size() && prose[i + run] == '`') ++run;
    const std::size_t content = i + run;
    // The closing run: exactly as many backticks.
    std::size_t close = content;
    bool found = false;
    while ((close = prose.find('`', close)) != std::string::npos) {
      std::size_t r = 0;
      while (close + r < prose.size() && prose[close + r] == '`') ++r;
      if (r == run) {
        found = true;
        break;
      }
      close += r;
    }
    if (!found) {
      i = content;
      continue;
    }
    const std::string span = prose.substr(content, close - content);
    for (std::size_t k = 0; k < span.size();) {
      if (is_ident_char(span[k]) && !std::isdigit(static_cast<unsigned char>(span[k]))) {
        std::size_t e = k;
        while (e < span.size() && is_ident_char(span[e])) ++e;
        out.insert(span.substr(k, e - k));
        k = e;
      } else {
        ++k;
      }
    }
    i = close + run;
  }
  return out;
}

bool verbose() { return std::getenv("DUET_REFERENCE_VERBOSE") != nullptr; }

TEST(Reference, EveryPublicEntryPointIsDocumented) {
  const std::vector<PublicHeader> headers = public_headers();
  ASSERT_GE(headers.size(), 20u) << "public headers not found under " << kRoot;
  ASSERT_TRUE(fs::exists(kReference)) << kReference << " is missing";

  std::map<std::string, std::vector<Declared>> names;  // by header
  for (const PublicHeader& h : headers) names[h.name] = public_names(read_text(h.file));

  // The parser itself: names it must find, and names it must not (detail, std, members).
  auto has = [&](const std::string& header, const std::string& name) {
    const auto& v = names[header];
    return std::any_of(v.begin(), v.end(), [&](const Declared& d) { return d.name == name; });
  };
  for (const auto& [header, name] :
       std::vector<std::pair<std::string, std::string>>{{"duet/state_machine.hpp", "check_sequential"},
                                                        {"duet/state_machine.hpp", "Verdict"},
                                                        {"duet/api.hpp", "Api"},
                                                        {"duet/api.hpp", "Diagnostic"},
                                                        {"duet/fuzz.hpp", "DUET_FUZZ_TARGET"},
                                                        {"duet/fuzz.hpp", "FuzzTarget"},
                                                        {"duet/parallel.hpp", "Consistency"},
                                                        {"duet/async.hpp", "task"},
                                                        {"duet/history.hpp", "kNoDeadline"},
                                                        {"duet/gen.hpp", "integers"},
                                                        {"duet/models/sync_traits.hpp", "SyncTraits"},
                                                        {"duet/models/seqlock.hpp", "SeqLockSpec"}})
    EXPECT_TRUE(has(header, name)) << "the parser missed " << name << " in " << header
                                   << " (if it was renamed or moved, update this list)";
  for (const auto& [header, name] : std::vector<std::pair<std::string, std::string>>{
           {"duet/api.hpp", "SpecKind"},                  // namespace detail
           {"duet/api.hpp", "check"},                     // a member function
           {"duet/sync.hpp", "lock_guard"},               // namespace std
           {"duet/async.hpp", "get_return_object"},       // out-of-line member, in detail
           {"duet/gen.hpp", "IntegerRange"},              // namespace detail
           {"duet/models/binding.hpp", "make_subject"}})  // namespace duet::models::detail
    EXPECT_FALSE(has(header, name)) << "the parser took " << name << " in " << header << " for a public name";

  const std::set<std::string> documented = identifiers_in_code_spans(read_text(kReference));
  std::string missing;
  std::size_t count = 0, total = 0;
  for (const PublicHeader& h : headers) {
    if (verbose()) std::cout << "  " << h.name << ": " << names[h.name].size() << " entry points\n";
    total += names[h.name].size();
    for (const Declared& d : names[h.name]) {
      if (documented.count(d.name)) continue;
      ++count;
      missing += "  " + d.name + "    (" + h.name + ":" + std::to_string(d.line) + ")\n";
    }
  }
  if (verbose()) std::cout << "  " << total << " entry points in " << headers.size() << " headers\n";
  EXPECT_GT(total, 0u);
  EXPECT_EQ(count, 0u) << count << " public entry point" << (count == 1 ? " is" : "s are")
                       << " not named in docs/reference.md (inside backticks):\n"
                       << missing << "add them to docs/reference.md";
}

TEST(Reference, EveryPublicHeaderHasASection) {
  const std::vector<PublicHeader> headers = public_headers();
  ASSERT_GE(headers.size(), 20u) << "public headers not found under " << kRoot;
  ASSERT_TRUE(fs::exists(kReference)) << kReference << " is missing";
  std::string headings;
  bool fenced = false;
  for (const std::string& line : split_lines(read_text(kReference))) {
    const std::string t = trim(line);
    if (t.rfind("```", 0) == 0) fenced = !fenced;
    if (!fenced && t.rfind("#", 0) == 0) headings += t + "\n";
  }
  std::string missing;
  for (const PublicHeader& h : headers)
    if (headings.find(h.name) == std::string::npos) missing += "  " + h.name + "\n";
  EXPECT_TRUE(missing.empty()) << "public headers without a section (a heading naming the header) in "
                                  "docs/reference.md:\n"
                               << missing << "add them to docs/reference.md";
}

}  // namespace
