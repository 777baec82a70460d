#include "engine/walk_jobs.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/candidate_fork.hpp"
#include "engine/messages.hpp"
#include "engine/protocol.hpp"
#include "engine/search.hpp"
#include "engine/wire.hpp"
#include "execute/trial_progress.hpp"

namespace duet::detail {
namespace {

// Each worker's cases and trials so far, in memory shared with this process: the progress line.
// `beats` counts the trials as they start: a worker whose beats stop for longer than any trial
// may run (its own watchdog ends a trial past the case's limit) is stuck outside them.
struct Tally {
  std::atomic<std::uint64_t> cases{0}, trials{0}, beats{0};
};

// Of the first `count` programs of this shard (its cases), worker j's: those numbered j modulo
// `jobs`.
std::uint64_t share_of(std::uint64_t count, std::uint32_t j, std::uint32_t jobs) {
  if (count == ~std::uint64_t{0}) return count;
  return count / jobs + (j < count % jobs ? 1 : 0);
}

// Worker j: this shard's programs numbered j modulo `jobs` are shard j of `jobs` within it. Its
// case seeds are the unsplit walk's for the same programs (run_context.hpp's case_seed).
[[noreturn]] void run_share(RunContext& context, InProcessBackend& inner, std::uint32_t j, std::uint32_t jobs, int fd,
                            Tally& tally, Clock::time_point start) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the test process gone: nobody reads the answer
  Settings& s = context.settings;
  s.count = share_of(s.count, j, jobs);
  s.shard_index += s.shards * j;
  s.shards *= jobs;
  context.params.shards = s.shards;
  context.params.shard_index = s.shard_index;
  const Property& p = context.property;
  ShareAnswer answer;
  SearchCounts counts;
  const TrialProgressScope beating([&tally](const TrialProgress&) { tally.beats.fetch_add(1, std::memory_order_relaxed); });
  answer.search.end = inner.search_cases(counts, start, nullptr, [&](const SearchCounts& c) {
    answer.marks.push_back({p.walk_progress(), c});
    tally.cases.store(c.cases, std::memory_order_relaxed);
    tally.trials.store(c.trials, std::memory_order_relaxed);
  });
  answer.walk = p.walk_progress();
  answer.counts = counts;
  // Ran elsewhere: the check's process takes a failing share's end as it is, not its own
  // Property's figures (the walk's are merged from the shares' marks).
  answer.search.end.coverage.emplace();
  answer.search.end.unexercised = inner.unexercised();
  if (!answer.search.end.failed) answer.totals = p.save_totals();
  std::fflush(nullptr);
  ::_exit(send_message(fd, encode(answer)) ? 0 : 3);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::optional<std::string> answer;
  int status = 0;
  std::uint64_t beats = 0;      // its tally's cases and beats when last seen
  std::int64_t beat_at_ns = 0;  // when they last changed
  bool stuck = false;           // ended by this process for it (kill_if_stuck)
};

// Kills a worker whose trials stopped starting long past the longest a trial may run.
void kill_if_stuck(Worker& w, const Tally& tally, std::int64_t stuck_after_ns) {
  const std::uint64_t beats = tally.cases.load(std::memory_order_relaxed) + tally.beats.load(std::memory_order_relaxed);
  const std::int64_t now = steady_now_ns();
  if (beats != w.beats || w.beat_at_ns == 0) {
    w.beats = beats;
    w.beat_at_ns = now;
  } else if (now - w.beat_at_ns > stuck_after_ns) {
    ::kill(w.pid, SIGKILL);
    w.stuck = true;
  }
}

std::string ended_how(const Worker& w) {
  const int status = w.status;
  if (w.stuck) return "started no trial for longer than any trial may run, and was ended";
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// The search's end when a worker gave no answer: nothing this process can replay (the worker's
// own report, a crash's or a hang's, is on stderr above).
SearchEnd worker_lost(std::uint32_t j, std::uint32_t jobs, const Worker& w) {
  SearchEnd end;
  end.failed = true;
  end.run.outcome.kind = CaseOutcome::Kind::error;
  end.run.outcome.message = "worker " + std::to_string(j) + " of the walk's " + std::to_string(jobs) +
                            " processes (DUET_JOBS) " + ended_how(w) +
                            " before it answered: its report, if it made one, is above; run with DUET_JOBS=1 to see "
                            "the walk in this process";
  end.run.death = Death{};
  return end;
}

// A share's counts added to the walk's. Every worker draws every path of the walk (the paths of
// other workers' programs are attempts of its next case), so its attempts and rejections at a
// program are the whole walk's up to it: the walk's are the furthest share's.
void add_counts(SearchCounts& total, const SearchCounts& c) {
  total.cases += c.cases;
  total.commands += c.commands;
  total.attempts = std::max(total.attempts, c.attempts);
  total.rejected = std::max(total.rejected, c.rejected);
  total.overruns += c.overruns;
  total.abandoned += c.abandoned;
  total.busy += c.busy;
  total.trials += c.trials;
  total.overlapped += c.overlapped;
  total.cpus = std::max(total.cpus, c.cpus);
}

// Forks the workers, each with a socket to this process (standard output flushed first, so
// that no line is printed twice).
std::vector<Worker> start_workers(RunContext& context, InProcessBackend& inner, std::uint32_t jobs, Tally* tallies,
                                  Clock::time_point start) {
  std::vector<Worker> workers(jobs);
  for (std::uint32_t j = 0; j < jobs; ++j) {
    int ends[2];
    std::fflush(nullptr);
    pid_t pid = -1;
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0) {
      const OwnFork own;  // duet's child, not the candidate's
      pid = ::fork();
    }
    if (pid == 0) {
      ::close(ends[0]);
      for (std::uint32_t k = 0; k < j; ++k) ::close(workers[k].fd);
      run_share(context, inner, j, jobs, ends[1], tallies[j], start);
    }
    if (pid < 0) {
      const std::string why = std::strerror(errno);
      for (std::uint32_t k = 0; k < j; ++k) {
        ::kill(workers[k].pid, SIGKILL);
        ::waitpid(workers[k].pid, nullptr, 0);
        ::close(workers[k].fd);
      }
      throw std::runtime_error("a walk over every program could not start its " + std::to_string(jobs) +
                               " worker processes (DUET_JOBS): " + why);
    }
    ::close(ends[1]);
    workers[j] = Worker{pid, ends[0], std::nullopt, 0};
  }
  return workers;
}

// Waits for every worker's answer (a worker that ends without one has none), printing the
// walk's progress meanwhile; then reaps them.
void collect_answers(const RunContext& context, std::vector<Worker>& workers, const Tally* tallies, Progress& progress) {
  constexpr std::int64_t kAnswerDeadlineNs = 60'000'000'000;  // from its first byte: a message, not a search
  const double case_limit = context.settings.case_timeout > 0 ? context.settings.case_timeout : 60.0;
  const auto stuck_after_ns = static_cast<std::int64_t>(std::max(3 * case_limit, 300.0) * 1e9);
  for (std::size_t open = workers.size(); open > 0;) {
    std::vector<pollfd> fds;
    for (const Worker& w : workers)
      if (w.fd >= 0) fds.push_back({w.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) {
      for (const Worker& w : workers)
        if (w.fd >= 0) ::kill(w.pid, SIGKILL);  // cannot wait for them: they answer nobody
      break;
    }
    for (const pollfd& f : fds) {
      if (f.revents == 0) continue;
      for (Worker& w : workers)
        if (w.fd == f.fd) {
          w.answer = read_message(w.fd, steady_now_ns() + kAnswerDeadlineNs);
          ::close(std::exchange(w.fd, -1));
          --open;
        }
    }
    for (std::size_t j = 0; j < workers.size(); ++j)
      if (workers[j].fd >= 0) kill_if_stuck(workers[j], tallies[j], stuck_after_ns);
    if (progress.due()) {
      SearchCounts so_far;
      for (std::size_t j = 0; j < workers.size(); ++j) {
        so_far.cases += tallies[j].cases.load(std::memory_order_relaxed);
        so_far.trials += tallies[j].trials.load(std::memory_order_relaxed);
      }
      print_search_progress(context, progress, so_far, ", in " + std::to_string(workers.size()) + " processes");
    }
  }
  for (Worker& w : workers) {
    if (w.fd >= 0) ::close(w.fd);
    ::waitpid(w.pid, &w.status, 0);
  }
}

// The shares added up as the unsplit walk would count them: up to the first failing program in
// the walk's order, or everything; the walk adopted, and after a pass, the executors' totals.
SearchEnd merge_shares(RunContext& context, std::vector<ShareAnswer>& shares, SearchCounts& counts,
                       std::string& unexercised) {
  std::optional<std::size_t> failing;
  for (std::size_t j = 0; j < shares.size(); ++j)
    if (shares[j].search.end.failed && !shares[j].marks.empty() &&
        (!failing || shares[j].marks.back().walk.position < shares[*failing].marks.back().walk.position))
      failing = j;
  const std::uint64_t last = failing ? shares[*failing].marks.back().walk.position : ~std::uint64_t{0};
  WalkProgress walk;
  walk.done = !failing;
  walk.shards = context.settings.shards;
  walk.shard = context.settings.shard_index;
  bool none_exercised = true;
  for (ShareAnswer& share : shares) {
    const CaseMark* at = nullptr;  // the share's last case at or before the first failing program
    for (const CaseMark& m : share.marks)
      if (m.walk.position <= last) at = &m;
    const WalkProgress& w = failing ? (at ? at->walk : WalkProgress{}) : share.walk;
    const SearchCounts c = failing ? (at ? at->counts : SearchCounts{}) : share.counts;
    add_counts(counts, c);
    walk.ran += w.ran;
    walk.exhausted += w.exhausted;
    walk.position = std::max(walk.position, failing ? last : share.walk.position);
    walk.done = walk.done && share.walk.done;
    walk.total = std::max(walk.total, share.walk.total);
    walk.fingerprint = share.walk.done ? share.walk.fingerprint : walk.fingerprint;
    walk.searches_every_run = walk.searches_every_run || share.walk.searches_every_run;
    none_exercised = none_exercised && !share.search.end.unexercised.empty();
  }
  const Property& p = context.property;
  p.adopt_walk(walk);
  if (failing) {
    SearchEnd end = std::move(shares[*failing].search.end);
    end.by_choices = true;
    return end;
  }
  SearchEnd end;
  for (ShareAnswer& share : shares) {
    p.add_totals(share.totals);
    if (end.abandon_reason.empty()) end.abandon_reason = share.search.end.abandon_reason;
    end.nothing_generated = end.nothing_generated || share.search.end.nothing_generated;
  }
  if (none_exercised && !shares.empty()) unexercised = shares.front().search.end.unexercised;
  return end;
}

}  // namespace

std::uint32_t jobs_to_run(std::uint32_t jobs) {
  if (jobs != 0) return jobs;
  cpu_set_t cpus;
  if (::sched_getaffinity(0, sizeof cpus, &cpus) == 0) return static_cast<std::uint32_t>(std::max(1, CPU_COUNT(&cpus)));
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<std::uint32_t>(online) : 1;
}

SearchEnd WalkJobsBackend::search(SearchCounts& counts, Clock::time_point start, Progress& progress) {
  const std::size_t bytes = jobs_ * sizeof(Tally);
  void* shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error("a walk over every program could not map memory for its workers");
  auto* tallies = new (shared) Tally[jobs_];
  std::vector<Worker> workers = start_workers(context_, inner_, jobs_, tallies, start);
  collect_answers(context_, workers, tallies, progress);
  ::munmap(shared, bytes);
  std::vector<ShareAnswer> shares;
  for (std::uint32_t j = 0; j < jobs_; ++j) {
    if (!workers[j].answer) return worker_lost(j, jobs_, workers[j]);
    try {
      shares.push_back(decode<ShareAnswer>(*workers[j].answer));
    } catch (const std::exception&) {
      return worker_lost(j, jobs_, workers[j]);
    }
  }
  return merge_shares(context_, shares, counts, unexercised_);
}

}  // namespace duet::detail
