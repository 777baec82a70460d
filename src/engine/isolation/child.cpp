#include "engine/isolation/child.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include <sys/prctl.h>
#include <unistd.h>

#include "engine/candidate_fork.hpp"
#include "engine/case_wire.hpp"
#include "engine/crash.hpp"
#include "engine/isolation/shared_block.hpp"
#include "engine/messages.hpp"
#include "execute/hang_clock.hpp"

namespace duet::detail {
namespace {

constexpr auto kRelease = std::memory_order_release;
constexpr auto kRelaxed = std::memory_order_relaxed;

// The choice tap: the running case's record mirrored into the shared block as it changes, so
// that the parent can shrink a case the child died in. Copies only what changed since it last
// looked (a draw appends a choice, end_span a span; a cut record is copied again from the cut).
class ChoiceTap final : public RecordWatcher {
 public:
  explicit ChoiceTap(SharedBlock& block) : block_(block) {}
  void mirror(const Source* source) {
    source_ = source;
    choices_ = spans_ = 0;
  }
  void changed(const Source& source) override {
    if (&source != source_) return;  // a copy of the case's source
    const std::vector<std::uint64_t>& choices = source.choices();
    const std::vector<Source::Span>& spans = source.spans();
    copy_from(choices, choices_, block_.choices, SharedBlock::kChoices, block_.choice_count);
    copy_from(spans, spans_, block_.spans, SharedBlock::kSpans, block_.span_count);
    block_.concurrent_start.store(source.concurrent_start(), kRelease);
  }

 private:
  // Entries from `synced` on (or from the end, if the record was cut below it), then the count.
  template <class T>
  static void copy_from(const std::vector<T>& from, std::size_t& synced, T* to, std::size_t capacity, SharedCount& count) {
    synced = std::min(synced, from.size());
    for (std::size_t i = synced; i < std::min(from.size(), capacity); ++i) to[i] = from[i];
    synced = from.size();
    count.store(from.size(), kRelease);
  }

  SharedBlock& block_;
  const Source* source_ = nullptr;
  std::size_t choices_ = 0, spans_ = 0;  // entries already copied
};

// A traced case's steps and the call running, and where each trial starts.
class SharedObserver final : public CaseObserver {
 public:
  explicit SharedObserver(SharedBlock& block) : block_(block) {}
  void calling(const std::string& code) override {
    const std::size_t n = std::min(code.size(), sizeof block_.calling);
    block_.calling_len.store(0, kRelaxed);
    std::memcpy(block_.calling, code.data(), n);
    block_.calling_len.store(n, kRelease);
  }
  void steps_done(const Trace& trace) override {
    const std::string bytes = encode(trace);
    block_.calling_len.store(0, kRelaxed);
    if (bytes.size() > sizeof block_.trace) return;  // too big to keep: the previous one stays
    block_.trace_len.store(0, kRelaxed);
    std::memcpy(block_.trace, bytes.data(), bytes.size());
    block_.trace_len.store(bytes.size(), kRelease);
  }
  // A parallel case is a hang when one of its trials outlives the limit, not when all of them
  // together do: an exhaustive search runs a program thousands of times in one case.
  void trial_starts(const CaseOutcome& so_far) override {
    if (block_.case_started_ns.load(kRelaxed) != 0) block_.case_started_ns.store(steady_now_ns(), kRelease);
    block_.case_trials.store(so_far.trials, kRelaxed);
    block_.case_overlapped.store(so_far.overlapped, kRelaxed);
    block_.case_cpus.store(so_far.cpus, kRelaxed);
  }

 private:
  SharedBlock& block_;
};

}  // namespace

struct IsolatedChild::State {
  explicit State(SharedBlock& b) : block(b), tap(b), observer(b) {}
  SharedBlock& block;
  ChoiceTap tap;
  SharedObserver observer;
};

namespace {

// The child's one piece of process state: set once, right after the fork, and never unset (the
// child ends with _exit). Null in every other process.
IsolatedChild::State* registered = nullptr;

IsolatedChild::State& state() { return *registered; }

// exit() during a case: record how it was called and end the child at once (static destructors
// of the test binary must not run in the child). Registered in the child, so it runs before the
// handlers the parent registered.
void on_exit_in_case(int status, void*) {
  if (!registered || state().block.case_started_ns.load() == 0) return;
  state().block.exit_status.store(status);
  state().block.exit_called.store(1);
  std::fflush(stdout);
  ::_exit(kExitDuringCase);
}
void on_quick_exit_in_case() {
  if (!registered || state().block.case_started_ns.load() == 0) return;
  state().block.exit_called.store(2);
  std::fflush(stdout);
  ::_exit(kExitDuringCase);
}

// A group of its own, so that a hang kills whatever the candidate started too; and no life
// after the parent's (a parent killed by Ctrl-C, which its group no longer gets).
void detach_from_parent(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the parent was gone before prctl
}

}  // namespace

void IsolatedChild::serve(const Start& start, const Handler& handler, const std::function<void()>& in_child) {
  detach_from_parent(start.parent);
  State child_state(start.block);  // lives as long as the child, which ends in this function
  registered = &child_state;
  set_crash_stack_sink(start.block.stack, kCrashFrames, &start.block.stack_count);
  if (start.output >= 0) ::dup2(start.output, 2);
  ::on_exit(&on_exit_in_case, nullptr);
  std::at_quick_exit(&on_quick_exit_in_case);
  // Signal handlers stay as they are: the parent's crash guard reports only while the parent
  // runs a case (never here) and passes a signal on to the handler before it (a sanitizer's,
  // whose report the parent attaches) or to the default action, which ends the child.
  if (in_child) in_child();
  for (;;) {
    std::optional<std::string> request = read_message(start.socket);
    if (!request) break;  // the parent is done
    std::string answer;
    try {
      answer = handler(*request);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "duet: isolation: the child process failed: %s\n", e.what());
      std::fflush(stderr);
      ::_exit(125);
    }
    leave_if_candidates_child();  // it would answer on the child's socket
    std::fflush(stdout);
    if (!send_message(start.socket, answer)) break;
  }
  std::fflush(stdout);
  ::_exit(0);
}

void IsolatedChild::begin_case(Source& src) {
  SharedBlock& s = state().block;
  for (SharedCount* count : {&s.trace_len, &s.calling_len, &s.choice_count, &s.span_count, &s.case_trials,
                             &s.case_overlapped, &s.case_cpus, &s.stack_count})
    count->store(0, kRelaxed);
  s.concurrent_start.store(Source::kNoMark, kRelaxed);
  state().tap.mirror(&src);
  src.watch(&state().tap);  // copies what it holds already (a replay's Source is made before the case)
  s.case_started_ns.store(steady_now_ns(), kRelease);
}

void IsolatedChild::end_case(Source& src) {
  state().block.case_started_ns.store(0, kRelease);
  src.watch(nullptr);
  state().tap.mirror(nullptr);
}

void IsolatedChild::count_search(const SearchCounts& counts) {
  if (registered) state().block.counts.store(counts);  // a search outside isolation's child: nobody reads them
}

void IsolatedChild::shrink_tried(const std::vector<std::uint64_t>& candidate) {
  SharedBlock& s = state().block;
  s.shrink_tried.fetch_add(1, kRelaxed);
  s.candidate_count.store(0, kRelaxed);
  if (candidate.size() > SharedBlock::kChoices) return;
  std::copy(candidate.begin(), candidate.end(), s.candidate);
  s.candidate_count.store(candidate.size() + 1, kRelease);  // +1: 0 means none
}

void IsolatedChild::shrink_kept(const std::vector<std::uint64_t>& choices, const std::vector<Source::Span>& spans,
                                std::size_t mark) {
  SharedBlock& s = state().block;
  if (choices.size() > SharedBlock::kChoices || spans.size() > SharedBlock::kSpans) return;  // too big: the last stays
  s.best_count.store(0, kRelaxed);                                                           // invalid while it is rewritten
  std::copy(choices.begin(), choices.end(), s.best);
  std::copy(spans.begin(), spans.end(), s.best_spans);
  s.best_span_count.store(spans.size(), kRelaxed);
  s.best_mark.store(mark, kRelaxed);
  s.shrink_kept.fetch_add(1, kRelaxed);
  s.best_count.store(choices.size() + 1, kRelease);  // +1: 0 means none
}

CaseObserver* IsolatedChild::observer() { return &state().observer; }

}  // namespace duet::detail
