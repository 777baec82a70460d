// Recorded concurrent histories: read them (Jepsen log, Porcupine kv log, Jepsen/Knossos EDN,
// duet's own format), check them for linearizability against a model, explain a violation, and
// draw them as an HTML timeline. The `duet-check` command-line tool is a thin layer over this.
//
//   #include <duet/history.hpp>
//   duet::history::History h = duet::history::read_history("etcd_002.log");
//   duet::history::CheckReport r = duet::history::check_history(h, {.timeout_seconds = 10});
//   if (r.verdict == duet::history::Verdict::not_linearizable) std::cout << r.explanation;
//
// Link duet::history (it needs oneTBB: partitions are checked in parallel).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::history {

/// How much of a value or of a text from the input an error message quotes: a longer quote is
/// cut there and ends in "... (N bytes)", N its full size.
inline constexpr std::size_t kQuoteBytes = 200;

/// A value in a recorded history: the EDN subset Jepsen and Porcupine write (nil, booleans,
/// integers, strings, keywords, symbols, vectors, lists, maps). Keywords and symbols keep
/// their text without the leading ':'.
///
///   Value v = Value::vector({Value::integer(3), Value::nil()});   // prints as [3 nil]
struct Value {
  enum class Kind : std::uint8_t { nil, boolean, integer, real, string, keyword, symbol, vector, map };
  Kind kind = Kind::nil;
  bool flag = false;         // boolean
  std::int64_t number = 0;   // integer
  double real_number = 0;    // real
  std::string text;          // string, keyword, symbol
  std::vector<Value> items;  // vector (and list); map: keys and values alternate

  static Value nil() { return {}; }
  static Value boolean(bool b) {
    Value v;
    v.kind = Kind::boolean;
    v.flag = b;
    return v;
  }
  static Value integer(std::int64_t n) {
    Value v;
    v.kind = Kind::integer;
    v.number = n;
    return v;
  }
  static Value string(std::string s) {
    Value v;
    v.kind = Kind::string;
    v.text = std::move(s);
    return v;
  }
  static Value keyword(std::string s) {
    Value v;
    v.kind = Kind::keyword;
    v.text = std::move(s);
    return v;
  }
  static Value vector(std::vector<Value> xs) {
    Value v;
    v.kind = Kind::vector;
    v.items = std::move(xs);
    return v;
  }

  bool is_nil() const { return kind == Kind::nil; }
  bool is_integer() const { return kind == Kind::integer; }
  bool is_keyword(std::string_view k) const { return kind == Kind::keyword && text == k; }
  /// map: the value under keyword `key`, or nullptr.
  const Value* find(std::string_view key) const;
  friend bool operator==(const Value&, const Value&);
  /// EDN text: nil, 3, "x", :ok, [1 2], {:a 1}.
  std::string to_string() const;
  /// For messages: the EDN text if it has at most max_bytes, else its first max_bytes (cut at a
  /// character boundary) and "... (N bytes)". Stops building the text at the cut, so a huge
  /// value costs a count of its size, not a copy.
  std::string to_string(std::size_t max_bytes) const;
};

/// How the completion of an operation was recorded.
enum class Outcome : std::uint8_t {
  ok,    // completed with the recorded result
  fail,  // completed without taking effect (a cas: its compare failed); in EDN and kv logs a
         // failed operation did not happen and is dropped when the file is read (see History)
  info   // indeterminate (Jepsen :info, timed out, crashed): may take effect at any point after
         // its invocation, or never; it never returns
};

/// One operation: an invocation paired with its completion.
struct Operation {
  static constexpr std::uint64_t kPending = std::numeric_limits<std::uint64_t>::max();
  std::int64_t process = 0;
  std::string f;             // read, write, cas, get, put, append, txn, enqueue, ...
  std::optional<Value> key;  // kv histories: the key
  Value input;               // the invocation's :value (write 3, cas [1 2], put "x", txn [...])
  Value output;              // the completion's :value (ok read 3, get "x"); nil if none
  Outcome outcome = Outcome::ok;
  /// Jepsen log `:fail :read :timed-out`: the operation completed and its result is unknown.
  bool result_unknown = false;
  std::uint64_t invoke = 0;           // a time: position in the file, or nanoseconds (duet format)
  std::uint64_t response = kPending;  // kPending when outcome == info
  std::size_t invoke_line = 0;        // 1-based lines in the source, for messages
  std::size_t response_line = 0;      // 0 when pending
};

/// One line for messages: "process 3: cas [1 2] -> fail (line 12)".
std::string describe(const Operation&);

enum class Format { automatic, jepsen_log, kv_log, edn, duet };

/// "jepsen-log", "kv-log", "edn", "duet", "auto".
std::string_view format_name(Format);
/// Throws std::invalid_argument naming the accepted names.
Format parse_format_name(std::string_view);

/// A parsed history: operations in invocation order.
///
/// Failed operations follow the format: in a Jepsen log (etcd) `:fail :cas` completed without
/// taking effect (legal only where the register does not hold the expected value) and
/// `:fail :read` completed with an unknown result; in EDN (Knossos) and kv logs a `:fail`
/// operation did not happen and is dropped at parse time. An invocation with no completion by
/// the end of the file is indeterminate (info).
struct History {
  std::string source;  // file name, for messages
  Format format = Format::duet;
  std::vector<Operation> ops;
  /// Model suggested by the data: "cas-register" (Jepsen log, EDN), "multi-register" (EDN
  /// :txn), "kv" (kv log), or the duet format's `;model NAME` header.
  std::string default_model;
  /// The initial state the format assumes for default_model (EDN, after Knossos: a register
  /// starts at 0), or the duet format's `;init VALUE` header; none: the model's own default.
  std::optional<Value> default_init;
  /// duet format: the line of the `;model` header (of the `;duet-history` header when there is
  /// none), for messages about the model; 0 otherwise.
  std::size_t model_line = 0;
};

/// Malformed input. what() is "file:line: what is wrong".
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, std::size_t line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), file_(std::move(file)), line_(line) {}
  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

/// The deadline given to read_history or parse_history passed before the history was read.
/// what() says how far it got: "the time budget ran out while reading the file (N bytes read)"
/// or "the time budget ran out while parsing the file (N bytes read, stopped at line L)".
class TimeBudgetExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// No deadline: parse and read until done.
inline constexpr std::chrono::steady_clock::time_point kNoDeadline = std::chrono::steady_clock::time_point::max();

/// Guesses the format from the first meaningful line (and, for Jepsen logs, which may begin
/// with other log lines, from any event line); throws ParseError if no format fits (and for
/// an empty file: "file:1: empty history file (no operations)").
Format detect_format(std::string_view text, const std::string& source = "<input>");
/// Parses a whole history. Never crashes on bad input: throws ParseError. A file with entries
/// of its format but no client operation among them (only the nemesis, or only failed
/// operations, which are dropped) is an empty history, which is linearizable; a file with no
/// entry of its format at all is an error ("no operations found").
///
///   History h = parse_history("INFO  jepsen.util - 0\t:invoke\t:read\tnil\n...", Format::automatic, "x.log");
/// Past `deadline` it gives up with TimeBudgetExceeded (checked every thousand lines or forms).
History parse_history(std::string_view text, Format format = Format::automatic, const std::string& source = "<input>",
                      std::chrono::steady_clock::time_point deadline = kNoDeadline);
/// The default of ReadLimits::max_bytes: 512 MiB.
inline constexpr std::size_t kDefaultMaxInputBytes = std::size_t{512} << 20;

/// Bounds on reading a history, whatever the deadline: /dev/zero or a FIFO whose writer never
/// stops must end in an error, not in a process that grows until it is killed.
struct ReadLimits {
  /// A larger input is refused (ParseError at line 0: "the input is larger than N MiB ...").
  std::size_t max_bytes = kDefaultMaxInputBytes;
  /// An input that is not a regular file (a FIFO, a pipe, a device, a terminal) is read for at
  /// most this long, unless the deadline comes first (TimeBudgetExceeded, saying so). A regular
  /// file is bounded by its size; a FIFO with no writer would otherwise wait forever.
  double non_regular_seconds = 10;
};

/// Reads and parses a file; an unreadable file is a ParseError at line 0. With a deadline,
/// reading gives up at it too (TimeBudgetExceeded): a FIFO or device is opened non-blocking and
/// waited on only until then (or until `limits.non_regular_seconds`, whichever comes first),
/// so a FIFO with no writer does not block.
History read_history(const std::string& path, Format format = Format::automatic,
                     std::chrono::steady_clock::time_point deadline = kNoDeadline, const ReadLimits& limits = {});
/// read_history for standard input ("<stdin>" in messages).
History read_history_stdin(Format format = Format::automatic, std::chrono::steady_clock::time_point deadline = kNoDeadline,
                           const ReadLimits& limits = {});

/// duet's own format: a `;duet-history 1` line, an optional `;model NAME` line, then one EDN
/// map per operation with both times:
/// `{:process 0, :invoke 1200, :complete 1350, :type :ok, :f :put, :key "3", :input "x", :value nil}`
/// (:complete and :value are absent for :type :info). Round-trips through parse_history.
std::string write_duet_history(const History&);

/// Records a history from a live run, for check_history or write_duet_history: each client
/// brackets its calls with invoke() and complete(). Times come from duet's fenced clock (the
/// one the parallel runner uses). Clients write only their own slot: no locks, no contention.
///
///   Recorder rec(threads, "kv");
///   // on client thread p:
///   auto op = rec.invoke(p, "put", Value::string("k"), Value::string("v"));
///   store.put("k", "v");
///   rec.complete(p, op, Value::nil());
///   // after the clients joined:
///   CheckReport r = check_history(rec.history("stress run"));
class Recorder {
 public:
  /// Where times come from: duet's fenced clock by default; any monotonic clock of the
  /// caller's otherwise (a simulation's virtual time, duet::async's virtual clock), which makes
  /// the recorded history as deterministic as that clock.
  ///
  ///   std::uint64_t now = 0;
  ///   Recorder sim(2, "cas-register", [&now] { return now; });
  using Clock = std::function<std::uint64_t()>;
  explicit Recorder(std::size_t clients, std::string model = "", Clock clock = {});
  /// Client `process` starts an operation; the returned handle completes it.
  std::size_t invoke(std::size_t process, std::string f, std::optional<Value> key, Value input);
  /// ok with the result; fail: completed without taking effect (for a cas: its compare
  /// failed, as in a Jepsen log); info: unknown, it stays pending.
  void complete(std::size_t process, std::size_t handle, Value output, Outcome outcome = Outcome::ok);
  /// Every client's operations, in invocation order; call once the clients are done.
  History history(std::string source = "recorded") const;

 private:
  std::uint64_t now() const;
  std::string model_;
  Clock clock_;
  std::vector<std::vector<Operation>> per_client_;
  std::vector<std::vector<bool>> completed_;  // per client, per operation
};

// ---- checking ----

enum class Verdict { linearizable, not_linearizable, unknown };
std::string_view verdict_name(Verdict);  // "linearizable", "not-linearizable", "unknown"

class Models;  // duet/history_model.hpp: models of your own

struct CheckOptions {
  std::string model;  // empty: History::default_model
  /// The model's initial state (duet-check --init): for cas-register an integer or nil, for
  /// multi-register a map {register value} or one value for every register, for kv a map
  /// {key "value"}, for queue and set a vector, for counter an integer (docs/checker.md).
  /// None: the format's default for the model it names (EDN registers start at 0), else the
  /// model's own (empty). CheckReport::initial_state says which was assumed.
  std::optional<Value> init;
  /// Models beside duet's own (a model there replaces one of duet's of the same name).
  const Models* models = nullptr;
  double timeout_seconds = 0;  // 0: none; on expiry the verdict is unknown
  /// An absolute end as well (the earlier one wins): duet-check's, which starts when it starts
  /// reading the file.
  std::chrono::steady_clock::time_point deadline = kNoDeadline;
  std::size_t max_memory_bytes = std::size_t{2} << 30;  // memo size; beyond it: unknown
  bool partition = true;                                // split partitionable models (kv per key)
  bool want_states = false;                             // fill CheckReport::states (for the timeline)
  /// a violation only the search found: shrink the history to a failing window
  /// (CheckReport::witness), for at most twice the search's steps and about its time
  bool failing_window = true;
  const std::atomic<bool>* cancel = nullptr;  // set it to stop: verdict unknown
};

/// Names of the models check_history knows, for --model and error messages.
std::vector<std::string> model_names();

// [[nodiscard]], as duet::CheckResult is: a history checked and its report dropped says nothing.
struct [[nodiscard("a history's check says whether it is linearizable: read .verdict (and .explanation)")]] CheckReport {
  Verdict verdict = Verdict::unknown;
  std::string model;
  /// The initial state assumed, and where it came from: "the register starts at 0 (the
  /// edn format's default; use --init to change)". A wrong assumption shows here, not only in
  /// the verdict.
  std::string initial_state;
  /// linearizable: a witness order of the whole history (indices into History::ops;
  /// indeterminate operations that never took effect are absent), merged from the partitions'
  /// witnesses when partitioned. not linearizable: the longest partial linearization found (of
  /// the partition that failed).
  std::vector<std::size_t> order;
  /// not linearizable, partitioned: the operations of the partition that failed (the others
  /// are independent of the violation; the timeline dims them). Empty otherwise.
  std::vector<std::size_t> partition_ops;
  /// not linearizable: the operation that cannot be placed after `order`, and the state there.
  std::optional<std::size_t> stuck;
  std::string stuck_state;
  /// not linearizable, when known: operations (indices into History::ops) that have no
  /// linearization even on their own, from the same initial state (a failing window cut at its
  /// front: from each of witness_start): the violation's core, as Elle's minimal witnesses are.
  /// The decisions for registers, queues and kv keys whose values name the operation that wrote
  /// them find a few (for grow-only sets: the reads that disagree and the adds of everything they
  /// returned); where only the search decided, the history
  /// is shrunk to a failing window (the operation that cannot be placed alone, or windows
  /// grown around it; else its end and front cut, read-only operations dropped, each step
  /// searched anew; CheckOptions::failing_window). Empty when nothing smaller was found.
  std::vector<std::size_t> witness;
  /// The operations of a failing window that were still running where it is cut (at its end
  /// or its front): in the window they may have taken effect, with the result they recorded,
  /// or not at all.
  std::vector<std::size_t> witness_open;
  /// A failing window cut at its front starts in any of these states (printed), the ones the
  /// operations before it can leave, and fails from each. Empty: from the initial state.
  std::vector<std::string> witness_start;
  /// `witness` is a failing window the search's violation was shrunk to (false: a decision's
  /// witness, or none).
  bool witness_is_window = false;
  /// A failing window was sought (CheckOptions::failing_window) and none smaller than the
  /// history failed within its budget (about what the search itself cost): there is no window,
  /// and the explanation says so.
  bool window_out_of_budget = false;
  /// not linearizable: `order` and `stuck_state` come from a search that ran to its end. False
  /// when the violation was decided without one: then `order` is empty, `stuck` is the
  /// witness's last operation to return, and `witness` is the explanation.
  bool partial_linearization = true;
  /// want_states: the model state after each operation of `order` (printed; when partitioned,
  /// the state of that operation's partition).
  std::vector<std::string> states;
  std::string explanation;  // human-readable diagnosis (violation or why unknown)
  std::size_t partitions = 1;
  std::uint64_t nodes = 0;  // search steps (model applications)
  std::size_t peak_memo_bytes = 0;
  double milliseconds = 0;
};

/// Checks a history against a model. An unknown model name or a history the model cannot
/// read (a cas on a kv model, a value of the wrong type) throws std::invalid_argument with
/// the operation's line (for a model named by the file, the `;model` line's); a search that runs out of time or memory answers unknown, never a
/// guess.
CheckReport check_history(const History&, const CheckOptions& = {});

/// One self-contained HTML page (no network): a lane per process, a bar per operation, the
/// linearization order, the stuck operation highlighted, states on hover. Its size is bounded
/// (max_bytes): beyond it, operations far from the interesting part are summarized.
std::string render_timeline_html(const History&, const CheckReport&, std::size_t max_bytes = 8u << 20);

}  // namespace duet::history
