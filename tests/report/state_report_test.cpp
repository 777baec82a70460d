// States in reports (a spec's show_state and show_sut, Lin::state, Api::state), beyond the golden
// reports: a printer that throws, the state the branches start from after a prefix, the subject
// a deadlocked fiber run left, the states of a case run in a child process, an Api's witness.
#include <duet/gtest.hpp>

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "kv_store_spec.hpp"
#include "persistent_array.hpp"
#include "ring_buffer.hpp"
#include "support/fiber_subjects.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct ThrowingPrinterSpec : ring::BuggyRingBufferSpec {
  static std::string show_state(const State& s) {
    if (s.size() > 1) throw std::runtime_error("too long to print");
    return std::to_string(s.size());
  }
};

TEST(StateReport, APrinterThatThrowsIsNamedInItsPlace) {
  const duet::CheckResult r = duet::check_sequential<ThrowingPrinterSpec>({.seed = 1, .output_dir = "duet-output/state"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.report, "// state: 1\n")) << r.report;
  EXPECT_TRUE(has(r.report, "// state: (the spec's show_state threw std::runtime_error(\"too long to print\"))"))
      << r.report;
}

// After a crash the model may be in several states: each is shown. The key's value is
// printed by its length (the golden crash report's is 65 letters).
struct ShownKvSpec : kv::Spec<kv::Bug::directory_before_data> {
  static std::string show_state(const State& m) {
    std::string text = "{";
    for (const auto& [k, v] : m) text += k + ": " + std::to_string(v.size()) + " bytes";
    return text + "}";
  }
};

TEST(StateReport, EveryStateAModelMayBeInAfterACrash) {
  const duet::CheckResult r =
      duet::check_sequential<ShownKvSpec>({.seed = 1, .output_dir = "duet-output/state", .name = "kv"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.report, "// state: {}\n")) << r.report;
  EXPECT_TRUE(has(r.report, "// state: {} or {a: 65 bytes}\n")) << r.report;
}

// A relaxed model: a register whose writes may be lost, so that after a write the model is in two
// states; the candidate reads a value never written once it has seen three writes.
struct LossyWrite {
  int value;
};
struct LossyRead {};
std::string duet_show(const LossyWrite& w) { return "write(" + duet::show(w.value) + ")"; }
std::string duet_show(const LossyRead&) { return "read()"; }
struct InventingRegister {
  duet::atomic<int> value{0}, writes{0};
  void write(int v) {
    writes.fetch_add(1);
    value.store(v);
  }
  int read() { return writes.load() > 2 ? 7 : value.load(); }
};
struct LossyRegisterSpec {
  using Sut = InventingRegister;
  using State = int;
  using Cmd = std::variant<LossyWrite, LossyRead>;
  static constexpr const char* sut_name = "r";
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::construct<LossyWrite>(duet::integers(1, 2)).map([](LossyWrite w) { return Cmd(w); }),
                        duet::just(Cmd(LossyRead{})));
  }
  static duet::Result run(const Cmd& c, Sut& r) {
    if (auto* w = std::get_if<LossyWrite>(&c)) {
      r.write(w->value);
      return {};
    }
    return r.read();
  }
  static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& got) {
    if (auto* w = std::get_if<LossyWrite>(&c)) return {s, w->value};
    if (got == duet::Result(s)) return {s};
    return {};
  }
  static std::string show_state(const State& s) { return std::to_string(s); }
};

TEST(StateReport, EveryStateARelaxedModelMayBeIn) {
  const duet::CheckResult seq = duet::check_sequential<LossyRegisterSpec>({.seed = 1, .output_dir = "duet-output/state"});
  ASSERT_FALSE(seq);
  EXPECT_TRUE(has(seq.report, "// state: 0 or ")) << seq.report;
  const duet::CheckResult par =
      duet::check_parallel<LossyRegisterSpec>({.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/state"});
  ASSERT_FALSE(par.passed()) << par.report;
  EXPECT_TRUE(has(par.report, "closest sequential witness")) << par.report;
  EXPECT_TRUE(has(par.report, "state: 0 or ")) << par.report;
}

// The sequential states are those of the case as run in the child process (isolation mode).
struct ShownRingBufferSpec : ring::BuggyRingBufferSpec {
  static std::string show_state(const State& s) { return duet::show(s); }
};

TEST(StateReport, StatesComeBackFromAChildProcess) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation under a sanitizer";
#endif
  const duet::CheckResult r =
      duet::check_sequential<ShownRingBufferSpec>({.seed = 1, .output_dir = "duet-output/state", .isolate = true});
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.report, "// state: std::deque<int>{0, 0, 1}\n")) << r.report;
}

// Racy only once the counter is past 0: the failing program needs a call before the branches,
// which the shrinker moves into the prefix.
class LateRacyCounter {
 public:
  int incr() {
    const int x = value_.load();
    if (x == 0) return value_.fetch_add(1) + 1;
    value_.store(x + 1);
    return x + 1;
  }
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};

TEST(StateReport, TheWitnessMarksTheStateTheBranchesStartFrom) {
  const auto lin = duet::Lin<LateRacyCounter>("LateRacyCounter", "c")
                       .op("incr", [](LateRacyCounter& c) { return c.incr(); })
                       .state([](const LateRacyCounter& c) { return "value " + std::to_string(c.get()); });
  const duet::CheckResult r =
      duet::check_parallel(lin, {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/state"});
  ASSERT_FALSE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "    prefix    c.incr() : 1  state: value 1  (before the branches)\n")) << r.report;
  EXPECT_TRUE(has(r.report, "state: value 0\n")) << r.report;  // initially, not where the branches start
  EXPECT_TRUE(has(r.report, "  not explained after it: c.incr() : 2 (branch ")) << r.report;
  EXPECT_TRUE(has(r.report, "  the subject where the run ended: value 2\n")) << r.report;
}

// A deadlocked run's subject is abandoned, not destroyed: it is printed as the run left it.
struct ShownAccountsSpec : fiber_subjects::AccountsSpec {
  static std::string show_sut(const Sut&) { return "two accounts"; }
};

TEST(StateReport, TheSubjectADeadlockedRunLeftIsPrinted) {
  const duet::CheckResult r =
      duet::check_parallel<ShownAccountsSpec>({.executor = duet::fibers()}, {.seed = 3, .output_dir = "duet-output/state"});
  ASSERT_FALSE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "deadlock")) << r.report;
  EXPECT_TRUE(has(r.report, "  the subject where the run ended: two accounts\n")) << r.report;
  EXPECT_FALSE(has(r.report, "closest sequential witness")) << r.report;  // no search ran
}

// Ed's arrays on fibers: set writes in place, so a get in another branch reads what no order
// explains. The witness starts from the values the prefix left.
TEST(StateReport, AnApiWitnessStartsAfterThePrefix) {
  using namespace persistent;
  duet::Api api("PersistentArray");
  auto array = api.abstract<ref::Array, ed::Array>("a");
  auto index = [](const ref::Array& a) { return duet::integers(0, ref::length(a) - 1); };
  auto nonempty = [](const ref::Array& a) { return !a.empty(); };
  api.op("make", duet::args(duet::integers(1, 2), duet::sequential()), array, ref::make, ed::make);
  api.op("get", duet::args(array.where(nonempty), index), duet::value<std::int64_t>(), ref::get, ed::get);
  api.op("set", duet::args(array.where(nonempty), index, duet::sequential()), array, ref::set, ed::set);
  api.state(array, [](const ref::Array& a) { return duet::show(a); });
  const duet::CheckResult r =
      api.check_parallel({.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/state"});
  ASSERT_FALSE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "after the prefix")) << r.report;
  EXPECT_TRUE(has(r.report, "(before the branches)")) << r.report;
  EXPECT_TRUE(has(r.report, "state: a0 = ")) << r.report;
}

}  // namespace
