// A fuzz driver that needs no special compiler: runs duet_fuzz_parse on every file of a seed
// corpus (and on the duet-format rendering of each seed that parses), then on deterministic
// mutations of them (seeded PRNG: byte flips, truncations, line edits, splices, inserted
// brackets, quotes, deep nesting and huge numbers), bounded by a count and a time budget.
//
//   duet_fuzz_parse_corpus [--count N] [--seconds S] [--seed X] [--crash-file PATH]
//                          [--slowest-file PATH] DIR_OR_FILE...
//
// On a crash or a hang (an input running for more than --hang-seconds) the current input is
// written to the crash file (default duet-fuzz-crash.bin) before the process dies.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <duet/history.hpp>

#include "parse_fuzz.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The input being run, for the crash and hang handlers (plain globals: read from a signal
// handler).
const char* g_input = nullptr;
std::size_t g_input_size = 0;
char g_crash_path[4096] = "duet-fuzz-crash.bin";
std::atomic<std::int64_t> g_started_ns{0};  // 0: between inputs

void save_input() {
  const int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (g_input != nullptr && done < g_input_size) {
    const ssize_t n = ::write(fd, g_input + done, g_input_size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

extern "C" void on_fatal_signal(int sig) {
  save_input();
  static const char msg[] = "duet_fuzz_parse_corpus: crashed; the input is in the crash file\n";
  (void)!::write(2, msg, sizeof msg - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void run(const std::string& input) {
  g_input = input.data();
  g_input_size = input.size();
  g_started_ns.store(now_ns());
  duet_fuzz_parse(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  g_started_ns.store(0);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size() - 1;
    lines.push_back(s.substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l;
  return s;
}

class Mutator {
 public:
  Mutator(std::uint64_t seed, const std::vector<std::string>& seeds) : rng_(seed), seeds_(seeds) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

  std::string next() {
    std::string s = seeds_[below(seeds_.size())];
    const std::size_t edits = 1 + below(4);
    for (std::size_t i = 0; i < edits; ++i) mutate(s);
    if (s.size() > kMaxSize) s.resize(kMaxSize);
    return s;
  }

 private:
  static constexpr std::size_t kMaxSize = 1 << 20;

  std::string token() {
    static constexpr std::string_view kTokens[] = {
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        "\"",
        "\\",
        ";",
        ",",
        ":",
        "#",
        "#{",
        "#_",
        "#inst ",
        "##Inf",
        "\\u",
        "\\u00",
        "\n",
        "\t",
        " ",
        "\r\n",
        "nil",
        "true",
        "-",
        "+",
        ".",
        "e",
        "N",
        "M",
        "1.5",
        "-0.0",
        "1e999",
        "1e-400",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999999999",
        "0",
        "-1",
        ":invoke",
        ":ok",
        ":fail",
        ":info",
        ":process",
        ":type",
        ":f",
        ":value",
        ":key",
        ":invoke 0",
        ":complete 1",
        ":input",
        ":unknown true",
        ":nemesis",
        ":txn",
        ":cas",
        ":read",
        ":write",
        "jepsen.util - ",
        "INFO  jepsen.util - 1\t:invoke\t:read\tnil\n",
        "INFO  jepsen.util - 1\t:ok\t:read\t3\n",
        ";duet-history 1\n",
        ";model kv\n",
        ";model\n",
        "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n",
        "{:process 0, :type :ok, :f :get, :key \"1\", :value \"x\"}\n",
        "{:process 0, :invoke 5, :complete 3, :type :ok, :f :read, :input nil, :value nil}\n",
        std::string_view("\0", 1),
        "\xff",
        "\xEF\xBB\xBF",
        "\x7f"};
    return std::string(kTokens[below(std::size(kTokens))]);
  }

  char interesting_byte() {
    static const char kBytes[] = "[]{}()\"\\;:#,\n\t 09-+.eE";
    if (below(4) == 0) return static_cast<char>(below(256));
    return kBytes[below(sizeof kBytes - 1)];
  }

  void mutate(std::string& s) {
    switch (below(14)) {
      case 0:  // flip a bit
        if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:  // overwrite a byte
        if (!s.empty()) s[below(s.size())] = interesting_byte();
        break;
      case 2:  // truncate
        s.resize(below(s.size() + 1));
        break;
      case 3: {  // delete a line
        auto lines = lines_of(s);
        if (!lines.empty()) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(below(lines.size())));
        s = join(lines);
        break;
      }
      case 4: {  // duplicate a line
        auto lines = lines_of(s);
        if (!lines.empty()) {
          const std::size_t i = below(lines.size());
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(below(lines.size() + 1)), lines[i]);
        }
        s = join(lines);
        break;
      }
      case 5: {  // swap two lines
        auto lines = lines_of(s);
        if (lines.size() > 1) std::swap(lines[below(lines.size())], lines[below(lines.size())]);
        s = join(lines);
        break;
      }
      case 6: {  // splice: a prefix of this one and a suffix of another seed
        const std::string& other = seeds_[below(seeds_.size())];
        s = s.substr(0, below(s.size() + 1)) + other.substr(below(other.size() + 1));
        break;
      }
      case 7:  // insert a token
      case 8: s.insert(below(s.size() + 1), token()); break;
      case 9: {  // delete a range
        if (s.empty()) break;
        const std::size_t at = below(s.size());
        s.erase(at, 1 + below(std::min<std::size_t>(64, s.size() - at)));
        break;
      }
      case 10: {  // deep nesting
        static const char* const kOpen[] = {"[", "{", "(", "#{", "#_", "#t ", "{:a ", "[["};
        const std::string open = kOpen[below(std::size(kOpen))];
        std::string run;
        const std::size_t n = 1 + below(below(2) ? 300 : 5000);
        for (std::size_t i = 0; i < n; ++i) run += open;
        if (below(2)) run += std::string(below(n + 1), open[0] == '{' ? '}' : open[0] == '(' ? ')' : ']');
        s.insert(below(s.size() + 1), run);
        break;
      }
      case 11: {  // a number becomes huge or a boundary
        static const char* const kNumbers[] = {"9223372036854775807",
                                               "9223372036854775808",
                                               "-9223372036854775808",
                                               "18446744073709551615",
                                               "1e308",
                                               "1e309",
                                               "-0",
                                               "00",
                                               "1.",
                                               "1N",
                                               "2M"};
        std::size_t at = below(s.size() + 1);
        while (at < s.size() && !(s[at] >= '0' && s[at] <= '9')) ++at;
        std::size_t end = at;
        while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
        s.replace(at, end - at, kNumbers[below(std::size(kNumbers))]);
        break;
      }
      case 12: {  // duplicate a range
        if (s.empty()) break;
        const std::size_t at = below(s.size());
        const std::string piece = s.substr(at, 1 + below(256));
        s.insert(below(s.size() + 1), piece);
        break;
      }
      default: {  // a line of another seed inserted between lines (formats mixed)
        auto lines = lines_of(s);
        const auto other = lines_of(seeds_[below(seeds_.size())]);
        if (!other.empty())
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(below(lines.size() + 1)), other[below(other.size())]);
        s = join(lines);
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& seeds_;
};

void usage() {
  std::fprintf(stderr, "usage: duet_fuzz_parse_corpus [--count N] [--seconds S] [--seed X] [--hang-seconds S] "
                       "[--crash-file PATH] [--slowest-file PATH] DIR_OR_FILE...\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t count = 200000;
  double seconds = 15;
  double hang_seconds = 10;
  std::uint64_t seed = 1;
  std::vector<std::string> roots;
  std::string slowest_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (arg == "--count") count = std::stoull(value());
    else if (arg == "--seconds") seconds = std::stod(value());
    else if (arg == "--seed") seed = std::stoull(value());
    else if (arg == "--hang-seconds") hang_seconds = std::stod(value());
    else if (arg == "--slowest-file") slowest_path = value();
    else if (arg == "--crash-file") std::snprintf(g_crash_path, sizeof g_crash_path, "%s", value().c_str());
    else if (!arg.empty() && arg[0] == '-') usage();
    else roots.push_back(arg);
  }
  if (roots.empty()) usage();

  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_fatal_signal);
  // A hang is a bug too: an input running too long is saved and the run aborted.
  std::thread([hang_seconds] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const std::int64_t started = g_started_ns.load();
      if (started != 0 && static_cast<double>(now_ns() - started) > hang_seconds * 1e9) {
        save_input();
        std::fprintf(stderr, "duet_fuzz_parse_corpus: an input ran for more than %.0f s (saved to %s)\n", hang_seconds,
                     g_crash_path);
        std::_Exit(3);
      }
    }
  }).detach();

  // Seeds: every file under the roots, in a fixed order.
  std::vector<std::string> paths;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(root, ec)) {
      paths.push_back(root);
      continue;
    }
    if (!std::filesystem::is_directory(root, ec)) {
      std::fprintf(stderr, "duet_fuzz_parse_corpus: %s is neither a file nor a directory\n", root.c_str());
      return 2;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
      if (entry.is_regular_file()) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> seeds;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    seeds.push_back(text.str());
  }
  // The duet format has no recorded files: its renderings of the seeds stand in.
  const std::size_t files = seeds.size();
  for (std::size_t i = 0; i < files; ++i) {
    try {
      seeds.push_back(duet::history::write_duet_history(duet::history::parse_history(seeds[i])));
    } catch (const duet::history::ParseError&) {
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "duet_fuzz_parse_corpus: no seed files\n");
    return 2;
  }

  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  double slowest = 0;
  std::string slowest_input;
  std::uint64_t ran = 0;
  const auto timed_run = [&](const std::string& input) {
    const auto t0 = Clock::now();
    run(input);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ms > slowest) {
      slowest = ms;
      if (!slowest_path.empty()) slowest_input = input;
    }
    ++ran;
  };
  for (const std::string& s : seeds) timed_run(s);
  const std::uint64_t seed_runs = ran;
  Mutator mutator(seed, seeds);
  while (ran - seed_runs < count && elapsed() < seconds) timed_run(mutator.next());

  if (!slowest_path.empty()) std::ofstream(slowest_path, std::ios::binary) << slowest_input;
  std::printf("duet_fuzz_parse_corpus: ran %llu inputs (%llu seeds from %zu files, %llu mutations, seed %llu) in %.1f s; "
              "slowest input %.1f ms; no bug found\n",
              static_cast<unsigned long long>(ran), static_cast<unsigned long long>(seed_runs), files,
              static_cast<unsigned long long>(ran - seed_runs), static_cast<unsigned long long>(seed), elapsed(), slowest);
  return 0;
}
