// Small programs whose schedules the exhaustive searches explore (tests/fibers/strategies_test.cpp,
// tests/fibers/optimal_explorer_test.cpp), and the Mazurkiewicz trace of a run, computed
// independently of the searches, to count the distinct traces a brute-force search finds.
#pragma once

#include <duet/sync.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "execute/fibers/schedule_search.hpp"
#include "execute/fibers/scheduler.hpp"
#include "fiber_support.hpp"

namespace duet::fibertest {

// ---- programs: state, branches, and whether a run of them failed ----

struct Program {
  virtual ~Program() = default;
  virtual void reset() = 0;
  virtual bool failed(const fb::RunResult& r) const { return r.outcome != fb::Outcome::completed; }
  /// What a run computed, for comparing the outcomes two searches reach (empty: not recorded).
  virtual std::string outcome() const { return {}; }
  Branches branches;
};

// n fibers each incrementing once by load + store: the lost update.
struct RacyCounter : Program {
  duet::atomic<int> c{0};
  int n;
  explicit RacyCounter(int fibers) : n(fibers) {
    branches.assign(static_cast<std::size_t>(n), [this] {
      const int v = c.load();
      c.store(v + 1);
    });
  }
  void reset() override { c.store(0); }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || c.load() != n; }
};

// Spin lock from exchange / store; `broken` tests then sets (load, then store): not atomic.
struct SpinLock : Program {
  duet::atomic<bool> flag{false};
  duet::atomic<int> counter{0};
  int total;
  SpinLock(int fibers, int rounds, bool broken = false) : total(fibers * rounds) {
    branches.assign(static_cast<std::size_t>(fibers), [this, rounds, broken] {
      for (int i = 0; i < rounds; ++i) {
        if (broken) {
          while (flag.load()) {
          }
          flag.store(true);
        } else {
          while (flag.exchange(true)) {
          }
        }
        const int v = counter.load();
        counter.store(v + 1);
        flag.store(false);
      }
    });
  }
  void reset() override {
    flag.store(false);
    counter.store(0);
  }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || counter.load() != total; }
};

// Every fiber works on its own atomics only.
struct Disjoint : Program {
  std::array<duet::atomic<int>, 4> a{}, b{};
  Disjoint(int fibers, int ops) {
    for (int f = 0; f < fibers; ++f)
      branches.push_back([this, f, ops] {
        for (int i = 0; i < ops; ++i) (i % 2 ? b : a)[static_cast<std::size_t>(f)].fetch_add(1);
      });
  }
  void reset() override {
    for (auto& x : a) x.store(0);
    for (auto& x : b) x.store(0);
  }
};

// A mix: a mutex-protected update, a read of a shared flag, private work. Correct.
struct MutexMix : Program {
  duet::mutex m;
  duet::atomic<int> shared{0}, flag{0};
  std::array<duet::atomic<int>, 3> own{};
  explicit MutexMix(int fibers) {
    for (int f = 0; f < fibers; ++f)
      branches.push_back([this, f] {
        own[static_cast<std::size_t>(f)].store(1);
        {
          std::lock_guard g(m);
          shared.store(shared.load() + 1);
        }
        if (flag.load() == 0 && f == 0) flag.store(1);
      });
  }
  void reset() override {
    shared.store(0);
    flag.store(0);
    for (auto& x : own) x.store(0);
  }
};

// Runs `p` under every schedule `search` hands out, each from a reset state with its own choices
// in `src`; `on_run(result)` sees each run and must end it with search.finish(result).
template <class OnRun>
void each_run(fb::ScheduleSearch& search, fb::Scheduler& s, duet::Source& src, Program& p, OnRun on_run) {
  fb::Picker* picker = nullptr;
  while (search.next(picker)) {
    src.restart(0);
    p.reset();
    on_run(s.run(p.branches, *picker));
  }
}

// Which steps commute, for trace_key: by default those of the sleep-set search's dependence;
// the optimal search's also counts a failed compare-exchange as the write it may be in another
// order, a blocked lock attempt as a read of its mutex, and a wake-up as no access.
struct KeyRules {
  bool failed_cas_writes = false;
  bool blocked_attempts_read = false;
};

// Mazurkiewicz trace of a run: per object, the sequence of (fiber, its event number, op), runs
// of reads sorted (two reads commute); objects keyed by their accesses, not their run-local
// numbers (those follow first appearance, which differs between equivalent schedules).
inline std::string trace_key(const std::vector<fb::TraceEvent>& trace, KeyRules rules = {}) {
  std::map<std::uint32_t, std::vector<std::string>> per_object;
  std::map<std::uint32_t, std::vector<bool>> is_read;
  std::array<int, fb::kMaxFibers> nth{};
  for (const fb::TraceEvent& e : trace) {
    const int i = nth[e.fiber]++;
    if (e.event.object == fb::kNoObject) continue;
    const fb::Op op = e.event.op;
    if (rules.blocked_attempts_read && op == fb::Op::wake) continue;
    per_object[e.event.object].push_back(std::to_string(e.fiber) + "." + std::to_string(i) + fb::op_name(op));
    is_read[e.event.object].push_back(op == fb::Op::load || op == fb::Op::read ||
                                      (op == fb::Op::cas_fail && !rules.failed_cas_writes) ||
                                      (op == fb::Op::block && rules.blocked_attempts_read));
  }
  std::vector<std::string> groups;
  for (auto& [object, labels] : per_object) {
    const std::vector<bool>& reads = is_read[object];
    for (std::size_t i = 0; i < labels.size();) {
      std::size_t j = i + 1;
      if (reads[i])
        while (j < labels.size() && reads[j]) ++j;
      std::sort(labels.begin() + static_cast<std::ptrdiff_t>(i), labels.begin() + static_cast<std::ptrdiff_t>(j));
      i = j;
    }
    std::string g;
    for (const auto& l : labels) g += l + " ";
    groups.push_back(g);
  }
  std::sort(groups.begin(), groups.end());
  std::string key;
  for (const auto& g : groups) key += g + "| ";
  return key;
}


// Depth 1: the bug shows when fiber 1's load comes before fiber 0's store.
struct Depth1 : Program {
  duet::atomic<int> x{0};
  bool bug = false;
  Depth1() {
    branches = {[this] { x.store(1); }, [this] { bug = x.load() == 0; }};
  }
  void reset() override {
    x.store(0);
    bug = false;
  }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || bug; }
};

// Depth 2: fiber 0 must run first (1 ordering constraint) and be preempted exactly between its
// two stores (a second one). `idle` extra fibers work on an object of their own.
struct Depth2 : Program {
  duet::atomic<int> a{0}, b{0}, other{0};
  bool bug = false;
  explicit Depth2(int idle = 0) {
    branches = {[this] {
                  a.store(1);
                  b.store(1);
                },
                [this] { bug = a.load() == 1 && b.load() == 0; }};
    for (int i = 0; i < idle; ++i) branches.push_back([this] { other.store(1); });
  }
  void reset() override {
    a.store(0);
    b.store(0);
    bug = false;
  }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || bug; }
};

}  // namespace duet::fibertest
