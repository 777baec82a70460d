// The draft tests duet writes for the ready-made models over the bindings models/ ships compile:
// for every pair, a failure is provoked (the third call throws, in a wrapper spec that leaves the
// model's names and setup alone), the sequential draft and the fiber draft are written, and all
// of them are compiled together (the compiler this build uses, -fsyntax-only); a fiber draft
// that checks the failing program as a scenario names the spec (third_call_throws.hpp). The drafts call
// the subject through its binding (an adapter the model's draft setup defines), so a subject
// whose own names differ from the model's (tbb's try_pop, Boost.Lockfree's pop for push/try_pop)
// still compiles.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <duet/duet.hpp>
#include <duet/parallel.hpp>

#include "models/model_pairs.hpp"
#include "models/third_call_throws.hpp"
#include "support/emulation.hpp"

namespace {

namespace fs = std::filesystem;
using namespace duet::models;

using model_drafts::ThirdCallThrows;

fs::path drafts_dir() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("duet_model_drafts_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The drafts of each kind: sequential and fiber drafts of one spec share a TEST name, so each
// kind is compiled in a translation unit of its own.
std::vector<std::string>& drafts(const std::string& kind) {
  static std::map<std::string, std::vector<std::string>> files;
  return files[kind];
}

template <class Model>
void write_drafts(const std::string& label) {
  using Spec = ThirdCallThrows<Model>;
  duet::Config config;
  config.seed = 1;
  config.count = 200;
  config.verbose = -1;
  config.output_dir = (drafts_dir() / "sequential" / label).string();
  const duet::CheckResult seq = duet::check_sequential<Spec>(config);
  ASSERT_EQ(seq.status, duet::CheckResult::Status::failed) << label << "\n" << seq.report;
  ASSERT_FALSE(seq.draft_path.empty()) << label << "\n" << seq.report;
  EXPECT_NE(read(seq.draft_path).find("struct Bound {"), std::string::npos) << read(seq.draft_path);
  drafts("sequential").push_back(seq.draft_path);
  config.output_dir = (drafts_dir() / "fibers" / label).string();
  const duet::CheckResult fibers = duet::check_parallel<Spec>({.executor = duet::fibers()}, config);
  ASSERT_EQ(fibers.status, duet::CheckResult::Status::failed) << label << "\n" << fibers.report;
  ASSERT_FALSE(fibers.draft_path.empty()) << label << "\n" << fibers.report;
  // A scenario of the failing program when its commands print as C++, else a run_fibers replay.
  const std::string fiber_draft = read(fibers.draft_path);
  EXPECT_TRUE(fiber_draft.find("duet::check_scenario<") != std::string::npos ||
              fiber_draft.find("duet::run_fibers(") != std::string::npos)
      << fiber_draft;
  drafts("fibers").push_back(fibers.draft_path);
}

// Every pair's drafts, written.
void write_every_pairs_drafts() {
  write_drafts<Counter<AtomicCounter>>("counter");
  write_drafts<StaleCounter<AtomicCounter, 2>>("stale_counter");
  write_drafts<Register<AtomicRegister>>("register");
  write_drafts<Queue<MutexQueue>>("queue_mutex");
  write_drafts<Queue<TbbQueue>>("queue_tbb");
  // Boost.Lockfree's node-based containers use a 16-byte compare-exchange off x86-64 and arm64.
  const bool lockfree = duet_test::sixteen_byte_cas_completes();
  if (lockfree) write_drafts<Queue<LockfreeQueue>>("queue_lockfree");
  write_drafts<Queue<MsQueueBinding<StdSync>>>("queue_ms");
  write_drafts<SpuriousEmptyQueue<MutexQueue>>("spurious_empty");
  write_drafts<Bag<TbbQueue>>("bag");
  if (lockfree) write_drafts<FifoPerProducerQueue<LockfreeQueue, EmptyPop::may_give_up>>("fifo_per_producer");
  write_drafts<Map<TbbHashMap>>("map_tbb_hash");
  write_drafts<Map<TbbUnorderedMap>>("map_tbb_unordered");
  write_drafts<Set<TbbSet>>("set_tbb");
  if (lockfree) write_drafts<Stack<LockfreeStack>>("stack_lockfree");
  write_drafts<Stack<TreiberBinding<TreiberStack<int, StdSync>>>>("stack_treiber");
  write_drafts<BoundedQueue<SpscRingBinding<>>>("bounded_spsc_ring");
  write_drafts<BoundedQueue<BoundedBufferBinding<BoundedBuffer<int, StdSync>>>>("bounded_buffer");
  write_drafts<PairRegister<SeqLockBinding<SeqLock<int, StdSync>>>>("pair_seqlock");
  write_drafts<WorkStealingDeque<ChaseLevBinding<>>>("work_stealing_chase_lev");
  write_drafts<PriorityQueue<MutexPriorityQueue<>>>("priority_mutex");
  write_drafts<PriorityQueue<TbbPriorityQueue<std::greater<int>>, Priority::min>>("priority_tbb_min");
}

// Every pair's drafts, each kind in one translation unit after the pairs' headers (what a user
// adds: "Add the #include lines for your types"). One test: ctest runs each test in a process.
TEST(ModelDrafts, EveryPairsDraftsCompile) {
  write_every_pairs_drafts();
  if (HasFatalFailure()) return;
  for (const std::string kind : {"sequential", "fibers"}) {
    // 18 where an emulator cannot run Boost.Lockfree's pairs (sixteen_byte_cas_completes()).
    ASSERT_EQ(drafts(kind).size(), duet_test::sixteen_byte_cas_completes() ? 21u : 18u);
    const fs::path unit = drafts_dir() / (kind + "_drafts.cpp");
    const fs::path log = drafts_dir() / (kind + "_compiler.txt");
    {
      std::ofstream out(unit);
      out << "#include <memory>\n#include <utility>\n#include \"models/model_pairs.hpp\"\n"
          << "#include \"models/third_call_throws.hpp\"\n";
      for (const std::string& d : drafts(kind)) out << "#include \"" << d << "\"\n";
    }
    const std::string command = std::string(DUET_TEST_CXX) +
                                " -std=c++20 -fsyntax-only -I" DUET_SOURCE_DIR "/include -I" DUET_SOURCE_DIR
                                "/models -I" DUET_SOURCE_DIR "/tests " +
                                unit.string() + " > " + log.string() + " 2>&1";
    const int status = std::system(command.c_str());
    ASSERT_EQ(status, 0) << command << "\n" << read(log);
  }
  fs::remove_all(drafts_dir());
}

}  // namespace
