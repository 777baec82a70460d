// Settings: code < environment < flags.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <unistd.h>  // environ

#include "duet/config.hpp"
#include "engine/settings_table.hpp"
#include "execute/named_executor.hpp"
#include "show/text.hpp"

namespace duet {
namespace {

std::mutex flags_mutex;
std::map<std::string, std::string>& flag_values() {
  static std::map<std::string, std::string> values;
  return values;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool known(const std::string& name) {
  for (const detail::SettingInfo& s : detail::settings_table())
    if (name == s.knob) return true;
  return false;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What --duet_help lists for a boolean setting, in any case (DUET_FORK=On).
bool truthy(const std::string& text) {
  const std::string t = lower(text);
  return t == "1" || t == "true" || t == "yes" || t == "on";
}
bool falsy(const std::string& text) {
  const std::string t = lower(text);
  return t == "0" || t == "false" || t == "no" || t == "off";
}
constexpr const char* kBooleanWords = "1, true, yes or on (or 0, false, no, off)";

// Longer times are cut to this (over three years): converted to the clock's nanoseconds, 1e10
// seconds would overflow, and a shrink budget of 1e10 s would end before it began.
constexpr double kMaxSeconds = 1e8;
double saturated(double seconds) { return seconds < kMaxSeconds ? seconds : kMaxSeconds; }

// ---- Near misses: a misspelled setting is an error naming the one meant ----

// "Shrink_Time", "shrink-time", "shrinktime" -> "shrinktime".
std::string squashed(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Edit distance with transpositions (optimal string alignment): "sed" and "sede" are 1 from "seed".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The setting a name (after "DUET_" or "--duet") was most likely meant to be, if it is near one:
// the same letters but for case and separators, within one edit (two for names over four
// letters), or a part of the setting's name at least four letters long ("timeout").
const detail::SettingInfo* near_setting(std::string_view name) {
  const std::string typed = squashed(name);
  if (typed.empty()) return nullptr;
  const detail::SettingInfo* best = nullptr;
  std::size_t best_distance = ~std::size_t{0};
  for (const detail::SettingInfo& s : detail::settings_table()) {
    const std::string knob = squashed(s.knob);
    std::size_t d = edit_distance(typed, knob);
    if (typed.size() >= 4 && knob.find(typed) != std::string::npos) d = std::min<std::size_t>(d, 1);
    if (d < best_distance) best = &s, best_distance = d;
  }
  return best_distance <= (typed.size() <= 4 ? 1u : 2u) ? best : nullptr;
}

std::string variable_of(const detail::SettingInfo& s) { return "DUET_" + upper(s.knob); }

// DUET_* variables of duet's own tests, benchmarks and scripts: not settings, never errors.
constexpr std::string_view kOtherVariables[] = {"DUET_SOAK",  "DUET_HISTORIES",      "DUET_FUZZ",
                                                "DUET_BENCH", "DUET_SHRINK_QUALITY", "DUET_UPDATE_GOLDEN",
                                                "DUET_TEST_", "DUET_REFERENCE_",     "DUET_CROSS_"};

// An environment variable that looks like a misspelled setting (DUET_SED, duet_seed) is an
// error: silently ignored, it would run a random seed, say, while the user believes it fixed.
// Other DUET_ names (another tool's, or far from every setting) are left alone.
void check_environment_names() {
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::string name(entry.substr(0, entry.find('=')));
    if (name.size() < 4 || upper(name.substr(0, 4)) != "DUET") continue;
    bool setting_or_ours = false;  // a setting itself, or one of duet's own variables
    for (const detail::SettingInfo& s : detail::settings_table())
      setting_or_ours = setting_or_ours || name == variable_of(s);
    for (std::string_view prefix : kOtherVariables) setting_or_ours = setting_or_ours || name.rfind(prefix, 0) == 0;
    if (setting_or_ours) continue;
    if (const detail::SettingInfo* meant = near_setting(std::string_view(name).substr(4)))
      throw std::invalid_argument("the environment variable " + detail::excerpt(name) +
                                  " is not a duet setting: did you mean " + variable_of(*meant) +
                                  "? (--duet_help lists them)");
  }
}

// The raw text for a knob and where it came from, if set outside the code.
std::optional<std::pair<std::string, std::string>> lookup(const std::string& name) {
  {
    std::lock_guard lock(flags_mutex);
    auto it = flag_values().find(name);
    if (it != flag_values().end()) return std::pair{it->second, "--duet_" + name};
  }
  const std::string var = "DUET_" + upper(name);
  if (const char* v = std::getenv(var.c_str())) {
    // Set but empty is a mistake (a script's unset variable), never "use the default": an
    // empty DUET_REPLAY would otherwise run a random check and pass.
    if (!*v) throw std::invalid_argument(var + " is set but empty: give it a value, or unset it");
    return std::pair{std::string(v), var};
  }
  return std::nullopt;
}

[[noreturn]] void bad(const std::string& where, const std::string& text, const char* want) {
  throw std::invalid_argument(where + "=" + detail::excerpt(text) + ": expected " + want);
}

// ---- Numbers: only the forms the settings table documents ----
// strtoull and strtod alone take spaces, a sign (" -3" wraps to 2^64-3), hexadecimal floats,
// inf and nan: the text is checked first, and they only convert what passed.

constexpr const char* kInteger = "a non-negative integer";
constexpr const char* kSeconds = "a non-negative number of seconds";
constexpr const char* kCommands = "a number of commands >= 1";
constexpr const char* kLevels = "-1, 0 or 1";
constexpr const char* kScale = "a number >= 1";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Decimal digits; with `hex_allowed` (the seed) also 0x and hexadecimal digits, as reports
// print seeds; never octal.
std::uint64_t parse_u64(const std::string& text, const std::string& where, bool hex_allowed = false) {
  const bool hex = hex_allowed && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = text.substr(hex ? 2 : 0);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), hex ? is_hex_digit : is_digit))
    bad(where, text, kInteger);
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno != 0) bad(where, text, kInteger);
  return v;
}

// The length of the decimal number `text` starts with (2, 2.5, .5, 1e10), 0 if it starts
// with none.
std::size_t decimal_length(std::string_view text) {
  std::size_t at = 0, digits = 0;
  auto skip_digits = [&] {
    std::size_t n = 0;
    for (; at < text.size() && is_digit(text[at]); ++at) ++n;
    return n;
  };
  digits += skip_digits();
  if (at < text.size() && text[at] == '.') ++at, digits += skip_digits();
  if (digits == 0) return 0;
  const std::size_t mantissa_end = at;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (skip_digits() == 0) return mantissa_end;  // "2e" is 2 and a unit "e", refused as a unit
  }
  return at;
}

// A decimal number and what follows it (a unit); refused as `want` when there is none, or it
// is too large for a double.
std::pair<double, std::string> parse_decimal(const std::string& text, const std::string& where, const char* want) {
  const std::size_t length = decimal_length(text);
  if (length == 0) bad(where, text, want);
  const double v = std::strtod(text.substr(0, length).c_str(), nullptr);
  if (!std::isfinite(v)) bad(where, text, want);
  return {v, text.substr(length)};
}

double parse_seconds(const std::string& text, const std::string& where) {
  auto [v, unit] = parse_decimal(text, where, kSeconds);
  if (unit == "ms") v /= 1000;
  else if (unit == "min") v *= 60;
  else if (!unit.empty() && unit != "s") {
    // A word after the number is a unit mistyped ("2m"); anything else is not a number (0x1p-3).
    const bool word =
        std::all_of(unit.begin(), unit.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    bad(where, text, word ? "a number of seconds (units: ms, s, min)" : kSeconds);
  }
  if (!std::isfinite(v)) bad(where, text, kSeconds);
  return v;
}

double parse_commands(const std::string& text, const std::string& where) {
  const auto [v, rest] = parse_decimal(text, where, kCommands);
  if (!rest.empty()) bad(where, text, kCommands);
  return v;
}

double parse_scale(const std::string& text, const std::string& where) {
  const auto [v, rest] = parse_decimal(text, where, kScale);
  if (!rest.empty()) bad(where, text, kScale);
  return v;
}

// -1, 0 or 1 (any other integer is refused by the level's range, with the same words).
int parse_level(const std::string& text, const std::string& where) {
  const std::string digits = text.substr(text.rfind('-', 0) == 0 ? 1 : 0);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), is_digit)) bad(where, text, kLevels);
  const int magnitude = std::stoi(digits);
  return text[0] == '-' ? -magnitude : magnitude;
}

// ---- Ranges: what a setting's value must be, whichever source it came from ----
// Each returns nullptr for a value in range, else what the value must be (the error's words).

const char* time_range(double seconds) { return std::isfinite(seconds) && seconds >= 0 ? nullptr : kSeconds; }
// A case has a limit: 0 would turn off the hang watchdog, and an isolated hang would never end.
const char* timeout_range(double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? nullptr : "a positive number of seconds";
}
const char* scale_range(double scale) { return std::isfinite(scale) && scale >= 1 ? nullptr : kScale; }
const char* commands_range(double commands) { return std::isfinite(commands) && commands >= 1 ? nullptr : kCommands; }
const char* level_range(int level) { return level >= -1 && level <= 1 ? nullptr : kLevels; }
const char* shards_range(std::uint32_t shards) { return shards >= 1 ? nullptr : "a number of shards >= 1"; }
struct AnyValue {
  template <class T>
  const char* operator()(const T&) const {
    return nullptr;
  }
};

// A value set in code, as an error quotes it (0.5, nan, -1).
template <class T>
std::string shown(const T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
    return text;
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(value);
  } else {
    return value;
  }
}

std::string field_of(const std::string& knob) {
  for (const detail::SettingInfo& s : detail::settings_table())
    if (knob == s.knob && s.field) return s.field;
  return knob;
}

// The setting's value from its flag, its variable, the code or the default, in that order. The
// value that wins is held to the setting's range whatever its source, so that
// Config{.time = NAN} is the same error as DUET_TIME=nan; the default is in range.
template <class T, class Parse, class Range = AnyValue>
T pick(const std::optional<T>& code, const std::string& name, T fallback, Parse parse, Range out_of_range = {},
       bool* from_outside = nullptr) {
  if (from_outside) *from_outside = false;
  if (auto raw = lookup(name)) {
    if (from_outside) *from_outside = true;
    T value = parse(raw->first, raw->second);
    if (const char* want = out_of_range(value)) bad(raw->second, raw->first, want);
    return value;
  }
  if (!code) return fallback;
  if (const char* want = out_of_range(*code)) bad("Config::" + field_of(name), shown(*code), want);
  return *code;
}

// Where "duet" starts in an argument meant for duet, or npos: --duet... in any case
// (--DUET_SEED, --duet-seed, --duetseed), and a flag typed with one dash, three, or a slash
// (-duet_seed, ---duet_seed, /duet_seed), as GoogleTest takes -gtest_ and /gtest_ for its own. A
// path into a directory (/duet-output/a.txt) is not a flag.
std::size_t duet_name_start(const std::string& arg) {
  const std::size_t dashes = std::min(arg.find_first_not_of('-'), arg.size());
  const bool slash = dashes == 0 && arg.rfind('/', 0) == 0;
  if (dashes == 0 && !slash) return std::string::npos;
  const std::size_t start = slash ? 1 : dashes;
  if (lower(arg.substr(start, 4)) != "duet") return std::string::npos;
  if (slash && arg.find('/', start) < arg.find('=')) return std::string::npos;
  return start;
}

}  // namespace

void parse_flags(int* argc, char** argv) {
  // --duet_help (or DUET_HELP=1) first: the list is what a user with a mistyped flag needs.
  bool help = false;
  if (const char* v = std::getenv("DUET_HELP")) {
    if (truthy(v)) help = true;
    else if (!falsy(v)) bad("DUET_HELP", v, kBooleanWords);
  }
  for (int i = 1; i < *argc && !help; ++i) {
    const std::string arg = argv[i];
    help = arg == "--duet_help" || (arg.rfind("--duet_help=", 0) == 0 && truthy(arg.substr(12)));
  }
  if (help) {
    std::fputs(settings_help().c_str(), stdout);
    std::fflush(stdout);
    std::exit(0);
  }
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string arg = argv[i];
    // Any argument meant for duet that is not exactly a setting's flag is an error, never
    // passed on to be ignored.
    const std::size_t duet_at = duet_name_start(arg);
    if (duet_at == std::string::npos) {
      argv[out++] = argv[i];
      continue;
    }
    const auto eq = arg.find('=');
    const bool exact = arg.rfind("--duet_", 0) == 0;
    const std::string name = exact ? arg.substr(7, eq == std::string::npos ? std::string::npos : eq - 7) : std::string();
    if (!exact || !known(name)) {
      const std::size_t after_duet = duet_at + 4;
      const detail::SettingInfo* meant =
          near_setting(arg.substr(after_duet, eq == std::string::npos ? std::string::npos : eq - after_duet));
      throw std::invalid_argument("unknown flag " + detail::excerpt(arg.substr(0, eq)) +
                                  (meant ? std::string(": did you mean --duet_") + meant->knob + "?" : std::string()) +
                                  " (--duet_help lists duet's flags)");
    }
    if (name == "help") continue;  // --duet_help=0
    if (eq == std::string::npos || eq + 1 == arg.size())
      throw std::invalid_argument("flag --duet_" + name + " needs a value: --duet_" + name + "=...");
    std::lock_guard lock(flags_mutex);
    flag_values()[name] = arg.substr(eq + 1);
  }
  *argc = out;
  argv[out] = nullptr;
}

namespace detail {

std::optional<std::pair<std::string, std::string>> setting_text(const std::string& knob) { return lookup(knob); }

namespace {

std::uint64_t u64(const std::string& text, const std::string& where) { return parse_u64(text, where); }
std::uint32_t u32(const std::string& text, const std::string& where) {
  const std::uint64_t v = parse_u64(text, where);
  if (v > 0xffffffffu) bad(where, text, "a 32-bit integer");
  return static_cast<std::uint32_t>(v);
}
std::string as_text(const std::string& value, const std::string&) { return value; }
bool boolean(const std::string& value, const std::string& where) {
  if (truthy(value)) return true;
  if (falsy(value)) return false;
  bad(where, value, kBooleanWords);
}

// The seed and the search's budget: a count, a time, or both.
void resolve_budget(const Config& c, double default_time, Settings& s) {
  bool seed_outside = false;
  // Drawn only when no seed is given (opening the random device costs more than a fuzzer's case).
  s.seed = pick<std::uint64_t>(
      c.seed, "seed", 0, [](const std::string& t, const std::string& w) { return parse_u64(t, w, true); }, AnyValue{},
      &seed_outside);
  if (!seed_outside && !c.seed) s.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  s.seed_given = seed_outside || c.seed.has_value();
  bool count_outside = false, time_outside = false;
  s.count = pick<std::uint64_t>(c.count, "count", ~std::uint64_t{0}, u64, AnyValue{}, &count_outside);
  const bool count_set = count_outside || c.count.has_value();
  s.time = saturated(pick<double>(c.time, "time", count_set ? 0.0 : default_time, parse_seconds, time_range, &time_outside));
  s.budget_given = count_set || time_outside || c.time.has_value();
  // A count given as the largest number is a budget like any other (no limit, in effect). A
  // property whose default is no limit ends its search itself (a walk over every program).
  if (!count_set && s.time == 0 && default_time != 0)
    throw std::invalid_argument("no budget: DUET_TIME=0 means no time limit, so set DUET_COUNT too");
}

// A file or directory field set in code to "" is a mistake, as the same variable set empty is.
void refuse_empty(const std::optional<std::string>& code, const std::string& resolved, const char* field, const char* what) {
  if (code && code->empty() && resolved.empty())
    throw std::invalid_argument(std::string("Config::") + field + " is empty: give " + what + ", or leave the field unset");
}

void resolve_replay(const Config& c, Settings& s) {
  s.replay = pick<std::string>(c.replay, "replay", "", as_text);
  refuse_empty(c.replay, s.replay, "replay", "a token");
  s.replay_file = pick<std::string>(c.replay_file, "replay_file", "", as_text);
  refuse_empty(c.replay_file, s.replay_file, "replay_file", "a file");
  if (!s.replay.empty() && !s.replay_file.empty())
    throw std::invalid_argument("DUET_REPLAY and DUET_REPLAY_FILE are both set: give one of them");
  s.regressions = pick<std::string>(c.regressions, "regressions", "", as_text);
  refuse_empty(c.regressions, s.regressions, "regressions", "a directory");
}

const char* jobs_range(std::uint32_t jobs) { return jobs <= 256 ? nullptr : "0 (one per CPU) to 256 processes"; }

void resolve_shards(const Config& c, Settings& s) {
  s.jobs = pick<std::uint32_t>(c.jobs, "jobs", 1, u32, jobs_range);
  s.shards = pick<std::uint32_t>(c.shards, "shards", 1, u32, shards_range);
  s.shard_index = pick<std::uint32_t>(c.shard_index, "shard_index", 0, u32);
  if (s.shard_index >= s.shards)
    throw std::invalid_argument("DUET_SHARD_INDEX=" + std::to_string(s.shard_index) +
                                " must be below DUET_SHARDS=" + std::to_string(s.shards));
}

}  // namespace

Settings resolve(const Config& c, const std::string& default_name, double default_time, bool default_isolate) {
  check_environment_names();
  Settings s;
  resolve_budget(c, default_time, s);
  s.max_length = static_cast<std::size_t>(pick<std::uint64_t>(
      c.max_length ? std::optional<std::uint64_t>(*c.max_length) : std::nullopt, "max_length", 100, u64, commands_range));
  // The engine rounds the mean to an integer, which overflows past 2^63; a mean of 1e15 draws
  // every case to max_length already.
  s.mean_length = std::min(pick<double>(c.mean_length, "mean_length", 10.0, parse_commands, commands_range), 1e15);
  resolve_replay(c, s);
  // A limit that ends work early: code N times slower needs N times as long for the same shrink.
  s.time_scale = pick<double>(c.time_scale, "time_scale", 1.0, parse_scale, scale_range);
  s.shrink_time = saturated(pick<double>(c.shrink_time, "shrink_time", 30.0, parse_seconds, time_range) * s.time_scale);
  s.shrink_steps = pick<std::uint64_t>(c.shrink_steps, "shrink_steps", 100000, u64);
  s.output_dir = pick<std::string>(c.output_dir, "output_dir", "duet-output", as_text);
  if (s.output_dir.empty())
    throw std::invalid_argument("Config::output_dir is empty: give a directory, or leave the field unset");
  // -1: no line for a passing check; 0: that line; 1: failure reports on stderr as well.
  s.verbose = pick<int>(c.verbose, "verbose", 0, parse_level, level_range);
  resolve_shards(c, s);
  s.trace_steps = pick<std::uint64_t>(c.trace_steps, "trace_steps", 80, u64);
  s.timeline = pick<std::string>(c.timeline, "timeline", "", as_text);
  refuse_empty(c.timeline, s.timeline, "timeline", "a file or a directory");
  s.isolate = pick<bool>(c.isolate, "fork", default_isolate, boolean);
  s.fiber_search = saturated(pick<double>(c.fiber_search, "fiber_search", 3.0, parse_seconds, time_range));
  named_executor();                   // a malformed DUET_EXECUTOR is an error of every check, sequential ones too
  (void)setting_text("certificate");  // so is an empty DUET_CERTIFICATE
  // In a child process a hang costs one limit per shrink candidate that hangs: a short one.
  s.case_timeout = saturated(
      pick<double>(c.case_timeout, "case_timeout", s.isolate ? 2.0 : 60.0, parse_seconds, timeout_range) * s.time_scale);
  if (c.name && c.name->empty()) throw std::invalid_argument("Config::name is empty: give a name, or leave the field unset");
  s.name = c.name ? *c.name : default_name;
  return s;
}

}  // namespace detail
}  // namespace duet
