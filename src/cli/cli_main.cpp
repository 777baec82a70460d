// duet-check's command line, as a library function (duet::history::cli_main) so that a user's
// checker with models of its own is a 10-line main (src/cli/duet_check.cpp is duet's).
//
//   duet-check [--model NAME] [--init VALUE] [--format auto|jepsen-log|kv-log|edn|duet] [--timeout SECONDS]
//              [--memory MIB] [--max-input MIB] [--input-timeout SECONDS] [--no-partition] [--no-window] [--html OUT.html] [--witness] [--quiet] FILE...
//   (FILE "-" is standard input)
//
// One line per file, FILE<TAB>linearizable|not-linearizable|unknown|unreadable<TAB>MILLISECONDS,
// details indented below it, then a summary. Exit status: 0 if every history is linearizable,
// 1 if some is not (and every file was decided), 2 if some file is unknown or unreadable (or
// a timeline page could not be written, or the command line is wrong).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <algorithm>
#include <set>

#include <vector>

#include "history/edn.hpp"
#include "report/report.hpp"
#include "duet/history.hpp"
#include "duet/history_model.hpp"
#include "duet/version.hpp"

namespace {

using namespace duet::history;

struct Options {
  CheckOptions check;
  ReadLimits read;
  Format format = Format::automatic;
  std::string html;
  bool witness = false;
  bool quiet = false;
  std::vector<std::string> files;
};

constexpr const char* kUsage = "usage: duet-check [options] FILE...\n"
                               "Checks recorded concurrent histories for linearizability against a model\n"
                               "(FILE - reads standard input).\n"
                               "\n"
                               "  --model NAME        the model (default: from the format; --list-models shows them)\n"
                               "  --init VALUE        the model's initial state, in EDN: 0, nil, {:x 0 :y 1}, [1 2]\n"
                               "                      (default: empty, or the format's; each report says which)\n"
                               "  --format F          auto (default), jepsen-log, kv-log, edn or duet\n"
                               "  --timeout SECONDS   per file, reading and parsing included; when it runs out the\n"
                               "                      verdict is unknown (default: none; at most 10000000, about 115 days)\n"
                               "  --memory MIB        memo budget per file (default 2048, at most 1048576 = 1 TiB);\n"
                               "                      beyond it: unknown\n"
                               "  --max-input MIB     refuse a history file larger than this (default 512)\n"
                               "  --input-timeout SECONDS\n"
                               "                      read an input that is not a regular file (a FIFO, a pipe, a\n"
                               "                      device) for at most this long (default 10); --timeout, when\n"
                               "                      shorter, still wins\n"
                               "  --no-partition      search partitionable models (kv) as one history\n"
                               "  --no-window         do not shrink a violation the search found to a failing window\n"
                               "                      (which takes at most about the search's time again)\n"
                               "  --html OUT.html     write the timeline page (several files: OUT.<file name>.html)\n"
                               "                      (a FIFO, a device or a directory there is refused)\n"
                               "  --witness           print a linearization order of each linearizable history\n"
                               "  --quiet             only the one-line verdicts and the summary (no failing window is\n"
                               "                      sought, as nothing would show it, unless --html)\n"
                               "  --list-models       print the models and exit\n"
                               "  --version           print duet's version and exit\n"
                               "\n"
                               "Prints FILE<TAB>verdict<TAB>milliseconds per file, then a summary. Exit status: 0 all\n"
                               "linearizable, 1 some not linearizable, 2 some unknown or unreadable.\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "duet-check: " << what << "\n" << kUsage;
  std::exit(2);
}

constexpr double kMaxTimeoutSeconds = 1e7;       // about 115 days: beyond it, a typo
constexpr double kMaxMemoryMiB = 1024.0 * 1024;  // 1 TiB: fits size_t with room to spare

// A finite positive number, or a usage error. 0 is refused rather than read as "no limit":
// no limit is what leaving the option out means.
double parse_positive(const std::string& flag, const char* text, const char* unit, const char* omitted) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v))
    usage_error(flag + " needs a positive number of " + unit + ", not '" + text + "'");
  if (!(v > 0)) usage_error(flag + " needs a positive number of " + unit + "; omit it for " + omitted);
  return v;
}

double parse_timeout(const std::string& flag, const char* text, const char* omitted = "no limit") {
  const double v = parse_positive(flag, text, "seconds", omitted);
  if (v > kMaxTimeoutSeconds)
    usage_error(flag + " is at most 10000000 seconds (about 115 days), not '" + text + "'; omit it for " + omitted);
  return v;
}

std::size_t parse_memory(const std::string& flag, const char* text, const char* omitted = "the default (2048)") {
  const double v = parse_positive(flag, text, "MiB", omitted);
  if (v > kMaxMemoryMiB) usage_error(flag + " is at most 1048576 MiB (1 TiB), not '" + text + "'");
  const auto bytes = static_cast<std::size_t>(v * 1024 * 1024);  // in range: checked above
  if (bytes == 0) usage_error(flag + " of '" + text + "' MiB is less than a byte");
  return bytes;
}

// --init's text as one EDN value, or a usage error.
Value parse_init(const char* text) {
  try {
    static const std::string source = "--init";
    duet::history::detail::EdnReader r(text, source, 1, "value");
    if (!r.skip_space()) usage_error("--init needs a value (EDN: 0, nil, {:x 0}, [1 2])");
    Value v = r.read();
    if (r.skip_space())
      usage_error(std::string("--init takes one EDN value; after it comes `") + std::string(r.rest()) + "`");
    return v;
  } catch (const ParseError& e) {
    usage_error(std::string("--init: ") + e.what());
  }
}

// duet's models, then the caller's that do not replace one of them.
std::vector<std::string> every_model(const Models& models) {
  std::vector<std::string> out = model_names();
  for (const Model* m : models.all())
    if (std::find(out.begin(), out.end(), m->name()) == out.end()) out.emplace_back(m->name());
  return out;
}

Options parse_args(int argc, char** argv, const Models& models) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--model") o.check.model = value();
    else if (a == "--init") o.check.init = parse_init(value());
    else if (a == "--format") {
      try {
        o.format = parse_format_name(value());
      } catch (const std::exception& e) {
        usage_error(e.what());
      }
    } else if (a == "--timeout") o.check.timeout_seconds = parse_timeout(a, value());
    else if (a == "--memory") o.check.max_memory_bytes = parse_memory(a, value());
    else if (a == "--max-input") o.read.max_bytes = parse_memory(a, value(), "the default (512)");
    else if (a == "--input-timeout") o.read.non_regular_seconds = parse_timeout(a, value(), "the default (10)");
    else if (a == "--no-partition") o.check.partition = false;
    else if (a == "--no-window") o.check.failing_window = false;
    else if (a == "--html") o.html = value();
    else if (a == "--witness") o.witness = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--list-models") {
      for (const std::string& m : model_names()) std::cout << m << "\n";
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "duet-check " << duet::version_string << "\n";
      std::exit(0);
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--") {
      for (++i; i < argc; ++i) o.files.emplace_back(argv[i]);
    } else if (a.size() > 1 && a[0] == '-') usage_error("unknown option " + a);
    else o.files.push_back(a);  // a file, or "-": standard input
  }
  if (o.files.empty()) usage_error("no history files given");
  if (!o.check.model.empty()) {
    bool known_model = false;
    std::string known;
    for (const std::string& name : every_model(models)) {
      known += (known.empty() ? "" : ", ") + name;
      known_model = known_model || name == o.check.model;
    }
    if (!known_model) usage_error("unknown model '" + o.check.model + "' (known: " + known + ")");
  }
  return o;
}

// OUT.html for one file; OUT.<file name>.html for several (OUT.<n>.<file name>.html when two
// files share a name).
std::string html_path(const Options& o, const std::string& file, std::set<std::string>& used) {
  if (o.files.size() == 1) return o.html;
  std::string base = file.substr(file.find_last_of('/') + 1);
  if (used.count(base) > 0) base = std::to_string(used.size()) + "." + base;
  used.insert(base);
  const std::size_t dot = o.html.rfind('.');
  const std::size_t slash = o.html.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return o.html + "." + base + ".html";
  return o.html.substr(0, dot) + "." + base + o.html.substr(dot);
}

std::string op_line(const History& h, std::size_t i) {
  std::string line = "#";  // += only: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
  line += std::to_string(i);
  line += ' ';
  line += describe(h.ops[i]);
  return line;
}

void print_order(const History& h, const CheckReport& r, std::size_t limit) {
  const std::size_t n = r.order.size();
  const std::size_t from = n > limit ? n - limit : 0;
  if (from > 0) std::cout << "    ... " << from << " earlier operations\n";
  for (std::size_t k = from; k < n; ++k) {
    std::cout << "    " << (k + 1) << ". " << op_line(h, r.order[k]);
    if (k < r.states.size()) std::cout << "   => " << r.states[k];
    std::cout << "\n";
  }
}

// How the files came out, for the summary and the exit status.
struct Tally {
  std::size_t linearizable = 0, violations = 0, unknown = 0, unreadable = 0, unwritten = 0;
};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// FILE<TAB>verdict<TAB>milliseconds, flushed at once: a run killed later (by a timeout, or while
// checking the next file) keeps the verdicts it had printed.
void print_verdict_line(const std::string& file, const char* verdict, std::chrono::steady_clock::time_point t0) {
  std::printf("%s\t%s\t%.1f\n", file.c_str(), verdict, milliseconds_since(t0));
  std::fflush(stdout);
}

// Reads and checks one file into h and r; false when it could not (out of time: unknown;
// unreadable), after printing its verdict line.
bool read_and_check(const std::string& file, const Options& o, std::chrono::steady_clock::time_point t0, History& h,
                    CheckReport& r, Tally& tally) {
  // One deadline for the file, from the moment it starts being read: reading, parsing and
  // checking all come out of it.
  const auto deadline = o.check.timeout_seconds > 0 ? t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(o.check.timeout_seconds))
                                                    : kNoDeadline;
  try {
    h = file == "-" ? read_history_stdin(o.format, deadline, o.read) : read_history(file, o.format, deadline, o.read);
    CheckOptions options = o.check;
    options.deadline = deadline;
    options.want_states = !o.html.empty() || o.witness || !o.quiet;
    options.failing_window = o.check.failing_window && (!o.quiet || !o.html.empty());  // shown in the details or the page
    r = check_history(h, options);
    return true;
  } catch (const TimeBudgetExceeded& e) {
    // Out of time before the search: unknown, as for a search that runs out.
    ++tally.unknown;
    print_verdict_line(file, "unknown", t0);
    if (!o.quiet) std::printf("  %s\n", e.what());
    std::fflush(stdout);
  } catch (const std::exception& e) {
    ++tally.unreadable;
    print_verdict_line(file, "unreadable", t0);
    // Every message names its file: those that do not (std::bad_alloc) get its name.
    const std::string source = file == "-" ? "<stdin>" : file;
    const std::string what = e.what();
    std::cerr << "duet-check: " << (what.rfind(source + ":", 0) == 0 ? "" : source + ": ") << what << "\n";
  }
  return false;
}

// The lines under a verdict (without --quiet): sizes, the initial state, and why a history is
// not linearizable or unknown.
void print_details(const History& h, const CheckReport& r, const Options& o) {
  std::cout << "  " << h.ops.size() << " operations, model " << r.model << ", " << r.partitions
            << (r.partitions == 1 ? " partition" : " partitions") << ", " << r.nodes << " search steps\n";
  std::cout << "  assuming " << r.initial_state << "\n";
  if (r.verdict == Verdict::not_linearizable) {
    std::string line;
    for (char c : r.explanation) {
      line += c;
      if (c == '\n') {
        std::cout << "  " << line;
        line.clear();
      }
    }
    if (!line.empty()) std::cout << "  " << line << "\n";
    if (r.partial_linearization) {
      std::cout << "  longest partial linearization (state after each):\n";
      print_order(h, r, o.witness ? r.order.size() : 12);
      if (r.stuck) std::cout << "  cannot place: " << op_line(h, *r.stuck) << "\n  in state: " << r.stuck_state << "\n";
    }
  } else if (r.verdict == Verdict::unknown) {
    std::cout << "  " << r.explanation << "\n";
  }
}

// Writes the file's timeline page (--html) as duet writes every file (never blocking: a FIFO or
// a device at the path is refused), counting a page that could not be written.
void write_timeline(const Options& o, const std::string& file, const History& h, const CheckReport& r,
                    std::set<std::string>& html_names, Tally& tally) {
  const std::string path = html_path(o, file, html_names);
  try {
    duet::detail::write_file_aside(path, render_timeline_html(h, r));
  } catch (const std::exception& e) {
    std::fflush(stdout);  // after the lines above it, as on a terminal
    std::cerr << "duet-check: " << e.what() << "\n";
    ++tally.unwritten;
    return;
  }
  if (!o.quiet) std::cout << "  timeline: " << path << "\n";
}

// One file: its verdict line, the details, the witness and the timeline page.
void check_one_file(const std::string& file, const Options& o, std::set<std::string>& html_names, Tally& tally) {
  const auto t0 = std::chrono::steady_clock::now();
  History h;
  CheckReport r;
  if (!read_and_check(file, o, t0, h, r, tally)) return;
  print_verdict_line(file, std::string(verdict_name(r.verdict)).c_str(), t0);
  switch (r.verdict) {
    case Verdict::linearizable: ++tally.linearizable; break;
    case Verdict::not_linearizable: ++tally.violations; break;
    case Verdict::unknown: ++tally.unknown; break;
  }
  if (!o.quiet) print_details(h, r, o);
  if (o.witness && r.verdict == Verdict::linearizable) {
    std::cout << "  witness (a linearization" << (r.partitions > 1 ? ", merged from the partitions'" : "") << "):\n";
    print_order(h, r, r.order.size());
  }
  if (!o.html.empty()) write_timeline(o, file, h, r, html_names, tally);
  std::fflush(stdout);
}

}  // namespace

namespace duet::history {

int cli_main(int argc, char** argv, const Models& models) {
  Options o = parse_args(argc, argv, models);
  o.check.models = &models;
  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  std::set<std::string> html_names;
  for (const std::string& file : o.files) check_one_file(file, o, html_names, tally);
  const double total = milliseconds_since(start);
  std::printf("%zu files: %zu linearizable, %zu not linearizable, %zu unknown, %zu unreadable (%.1f ms)\n", o.files.size(),
              tally.linearizable, tally.violations, tally.unknown, tally.unreadable, total);
  if (tally.unwritten > 0) std::printf("%zu timeline pages could not be written\n", tally.unwritten);
  if (tally.unknown > 0 || tally.unreadable > 0 || tally.unwritten > 0) return 2;
  return tally.violations > 0 ? 1 : 0;
}

}  // namespace duet::history
