// Settings: code < environment < flags.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

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

bool truthy(const std::string& t) { return t == "1" || t == "true" || t == "yes" || t == "on"; }
bool falsy(const std::string& t) { return t == "0" || t == "false" || t == "no" || t == "off"; }

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
  return v;
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
    else if (!falsy(v)) bad("DUET_HELP", v, "0 or 1");
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
    if (arg.rfind("--duet_", 0) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(7, eq == std::string::npos ? std::string::npos : eq - 7);
    if (!known(name))
      throw std::invalid_argument("unknown flag " + detail::excerpt(arg.substr(0, eq)) + " (--duet_help lists duet's flags)");
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

  Settings s;
  bool seed_outside = false;
  // Drawn only when no seed is given (opening the random device costs more than a fuzzer's case).
  s.seed = pick<std::uint64_t>(c.seed, "seed", 0, u64, &seed_outside);
  if (!seed_outside && !c.seed)
    s.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  s.seed_given = seed_outside || c.seed.has_value();
  bool count_outside = false, time_outside = false;
  s.count = pick<std::uint64_t>(c.count, "count", ~std::uint64_t{0}, u64, &count_outside);
  const bool count_set = count_outside || c.count.has_value();
  s.time = pick<double>(c.time, "time", count_set ? 0.0 : default_time, secs, &time_outside);
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
  s.shrink_time = pick<double>(c.shrink_time, "shrink_time", 30.0, secs);
  s.shrink_steps = pick<std::uint64_t>(c.shrink_steps, "shrink_steps", 100000, u64);
  s.output_dir = pick<std::string>(c.output_dir, "output_dir", "duet-output", text);
  if (s.output_dir.empty()) throw std::invalid_argument("Config::output_dir is empty: give a directory, or leave the field unset");
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
    throw std::invalid_argument("DUET_SHARD_INDEX=" + std::to_string(s.shard_index) + " must be below DUET_SHARDS=" +
                                std::to_string(s.shards));
  s.isolate = pick<bool>(c.isolate, "fork", default_isolate, [](const std::string& t, const std::string& w) {
    if (truthy(t)) return true;
    if (falsy(t)) return false;
    bad(w, t, "0 or 1");
  });
  // In a child process a hang costs one limit per shrink candidate that hangs: a short one.
  s.case_timeout = pick<double>(c.case_timeout, "case_timeout", s.isolate ? 2.0 : 60.0, secs);
  if (s.count == ~std::uint64_t{0} && s.time == 0)
    throw std::invalid_argument("no budget: DUET_TIME=0 means no time limit, so set DUET_COUNT too");
  if (c.name && c.name->empty()) throw std::invalid_argument("Config::name is empty: give a name, or leave the field unset");
  s.name = c.name ? *c.name : default_name;
  return s;
}

}  // namespace detail
}  // namespace duet
