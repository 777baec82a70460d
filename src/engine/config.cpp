// Settings: code < environment < flags.
#include <algorithm>
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
#include <vector>

#include <unistd.h>  // environ

#include "duet/config.hpp"
#include "engine/settings_table.hpp"
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

std::uint64_t parse_u64(const std::string& text, const std::string& where) {
  if (text.empty() || text[0] == '-') bad(where, text, "a non-negative integer");
  errno = 0;
  char* end = nullptr;
  // Decimal, or hexadecimal with 0x (as reports print seeds); never octal.
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const unsigned long long v = std::strtoull(text.c_str() + (hex ? 2 : 0), &end, hex ? 16 : 10);
  if (errno != 0 || *end != '\0') bad(where, text, "a non-negative integer");
  return v;
}

double parse_seconds(const std::string& text, const std::string& where) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || !std::isfinite(v)) bad(where, text, "a number of seconds");
  std::string unit(end);
  if (unit == "ms") v /= 1000;
  else if (unit == "m" || unit == "min") v *= 60;
  else if (!unit.empty() && unit != "s") bad(where, text, "a number of seconds (units: ms, s, min)");
  if (!(v >= 0)) bad(where, text, "a non-negative number of seconds");
  return saturated(v);
}

template <class T, class Parse>
T pick(const std::optional<T>& code, const std::string& name, T fallback, Parse parse, bool* from_outside = nullptr) {
  if (auto raw = lookup(name)) {
    if (from_outside) *from_outside = true;
    return parse(raw->first, raw->second);
  }
  if (from_outside) *from_outside = false;
  return code ? *code : fallback;
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
    // Any --duet... flag is meant for duet (--DUET_SEED, --duet-seed, --duetseed too): one
    // that is not exactly a setting's flag is an error, never passed on to be ignored.
    if (lower(arg.substr(0, 6)) != "--duet") {
      argv[out++] = argv[i];
      continue;
    }
    const auto eq = arg.find('=');
    const bool exact = arg.rfind("--duet_", 0) == 0;
    const std::string name = exact ? arg.substr(7, eq == std::string::npos ? std::string::npos : eq - 7) : std::string();
    if (!exact || !known(name)) {
      const detail::SettingInfo* meant = near_setting(arg.substr(6, eq == std::string::npos ? std::string::npos : eq - 6));
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

Settings resolve(const Config& c, const std::string& default_name, double default_time, bool default_isolate) {
  auto u64 = [](const std::string& t, const std::string& w) { return parse_u64(t, w); };
  auto u32 = [](const std::string& t, const std::string& w) {
    const std::uint64_t v = parse_u64(t, w);
    if (v > 0xffffffffu) bad(w, t, "a 32-bit integer");
    return static_cast<std::uint32_t>(v);
  };
  auto secs = [](const std::string& t, const std::string& w) { return parse_seconds(t, w); };
  auto text = [](const std::string& t, const std::string&) { return t; };

  check_environment_names();
  Settings s;
  bool seed_outside = false;
  // Drawn only when no seed is given (opening the random device costs more than a fuzzer's case).
  s.seed = pick<std::uint64_t>(c.seed, "seed", 0, u64, &seed_outside);
  if (!seed_outside && !c.seed) s.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  s.seed_given = seed_outside || c.seed.has_value();
  bool count_outside = false, time_outside = false;
  s.count = pick<std::uint64_t>(c.count, "count", ~std::uint64_t{0}, u64, &count_outside);
  const bool count_set = count_outside || c.count.has_value();
  s.time = saturated(pick<double>(c.time, "time", count_set ? 0.0 : default_time, secs, &time_outside));
  s.budget_given = count_set || time_outside || c.time.has_value();
  s.max_length = static_cast<std::size_t>(pick<std::uint64_t>(
      c.max_length ? std::optional<std::uint64_t>(*c.max_length) : std::nullopt, "max_length", 100, u64));
  s.mean_length = pick<double>(c.mean_length, "mean_length", 10.0, [](const std::string& t, const std::string& w) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !(v >= 1)) bad(w, t, "a number of commands >= 1");
    return v;
  });
  if (c.mean_length && !(*c.mean_length >= 1)) throw std::invalid_argument("Config::mean_length must be >= 1");
  s.replay = pick<std::string>(c.replay, "replay", "", text);
  if (c.replay && c.replay->empty() && s.replay.empty())
    throw std::invalid_argument("Config::replay is empty: give a token, or leave the field unset");
  s.replay_file = pick<std::string>(c.replay_file, "replay_file", "", text);
  if (c.replay_file && c.replay_file->empty() && s.replay_file.empty())
    throw std::invalid_argument("Config::replay_file is empty: give a file, or leave the field unset");
  if (!s.replay.empty() && !s.replay_file.empty())
    throw std::invalid_argument("DUET_REPLAY and DUET_REPLAY_FILE are both set: give one of them");
  s.regressions = pick<std::string>(c.regressions, "regressions", "", text);
  if (c.regressions && c.regressions->empty() && s.regressions.empty())
    throw std::invalid_argument("Config::regressions is empty: give a directory, or leave the field unset");
  s.shrink_time = saturated(pick<double>(c.shrink_time, "shrink_time", 30.0, secs));
  s.shrink_steps = pick<std::uint64_t>(c.shrink_steps, "shrink_steps", 100000, u64);
  s.output_dir = pick<std::string>(c.output_dir, "output_dir", "duet-output", text);
  if (s.output_dir.empty())
    throw std::invalid_argument("Config::output_dir is empty: give a directory, or leave the field unset");
  // -1: no line for a passing check; 0: that line; 1: failure reports on stderr as well.
  s.verbose = pick<int>(c.verbose, "verbose", 0, [](const std::string& t, const std::string& w) {
    if (t == "-1") return -1;
    const std::uint64_t v = parse_u64(t, w);
    if (v > 9) bad(w, t, "-1, 0 or 1");
    return static_cast<int>(v);
  });
  s.shards = pick<std::uint32_t>(c.shards, "shards", 1, u32);
  s.shard_index = pick<std::uint32_t>(c.shard_index, "shard_index", 0, u32);
  if (s.shards == 0) throw std::invalid_argument("DUET_SHARDS must be at least 1");
  if (s.shard_index >= s.shards)
    throw std::invalid_argument("DUET_SHARD_INDEX=" + std::to_string(s.shard_index) +
                                " must be below DUET_SHARDS=" + std::to_string(s.shards));
  s.isolate = pick<bool>(c.isolate, "fork", default_isolate, [](const std::string& t, const std::string& w) {
    if (truthy(t)) return true;
    if (falsy(t)) return false;
    bad(w, t, kBooleanWords);
  });
  // In a child process a hang costs one limit per shrink candidate that hangs: a short one.
  s.case_timeout = saturated(pick<double>(c.case_timeout, "case_timeout", s.isolate ? 2.0 : 60.0, secs));
  // A count given as the largest number is a budget like any other (no limit, in effect).
  if (!count_set && s.time == 0)
    throw std::invalid_argument("no budget: DUET_TIME=0 means no time limit, so set DUET_COUNT too");
  if (c.name && c.name->empty()) throw std::invalid_argument("Config::name is empty: give a name, or leave the field unset");
  s.name = c.name ? *c.name : default_name;
  return s;
}

}  // namespace detail
}  // namespace duet
