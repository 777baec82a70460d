// Demos 8 and 9: what no other C++ tool does. Code written with plain std::atomic and
// std::mutex, compiled through duet_instrument (this file only), runs on duet's fiber scheduler:
// a lost push found with the interleaving at the subject's own lines and replayed from its
// token step for step; and a relaxed publication, which x86 hardware almost never shows, found
// under the C++ memory model, its correct twin passing.
#include <cstdio>
#include <string>
#include <vector>

#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include "atomic_stack.hpp"
#include "demo/demo.hpp"
#include "lazy_answer.hpp"

namespace demo {
namespace {

#ifndef DUET_DEMO_NOT_INSTRUMENTED

// The part of a report from its interleaving to the replay line: what a replay must repeat.
std::string interleaving(const std::string& report) {
  const std::size_t at = report.find("interleaving (");
  return at == std::string::npos ? std::string() : report.substr(at, report.find("(The replay", at) - at);
}

template <bool Racy>
duet::Lin<atomic_stack::TreiberStack<Racy>> stack_spec() {
  using Stack = atomic_stack::TreiberStack<Racy>;
  return duet::Lin<Stack>("atomic_stack", "s")
      .op(
          "push", [](Stack& s, int v) { s.push(v); }, duet::integers(0, 9))
      .op("pop", [](Stack& s) { return s.pop(); });
}

template <bool Relaxed>
duet::Lin<lazy_answer::LazyAnswer<Relaxed>> answer_spec() {
  using Answer = lazy_answer::LazyAnswer<Relaxed>;
  return duet::Lin<Answer>("lazy_answer", "a").op("get", [](Answer& a) { return a.get(); });
}

void lost_push(std::vector<Line>& summary) {
  std::printf("\n-- 8. a Treiber stack written with plain std::atomic, compiled through duet_instrument --\n");
  std::printf("   push loads the head, then stores it: on fibers, every atomic is a step of the schedule\n\n");
  const duet::ParallelConfig pc{.executor = duet::fibers()};
  const duet::CheckResult found = duet::check_parallel(stack_spec<true>(), pc, {.time = 30});
  expect_bug(summary, "std::atomic stack on fibers", found, "on fibers");
  if (found.replay_token.empty()) return;
  // The token runs the shrunk program with the same interleaving again, step for step.
  const duet::CheckResult again =
      duet::check_parallel(stack_spec<true>(), pc, {.replay = found.replay_token, .verbose = -1});
  const bool same =
      !again.passed() && !interleaving(found.report).empty() && interleaving(again.report) == interleaving(found.report);
  std::printf("   replayed from its token: %s\n", same ? "the same interleaving, step for step" : "NOT THE SAME");
  summary.push_back({"its replay", same, same ? "the same interleaving, step for step" : "DIFFERENT"});
  expect_pass(summary, "the stack pushing by CAS", duet::check_parallel(stack_spec<false>(), pc), "on fibers");
}

void relaxed_publication(std::vector<Line>& summary) {
  std::printf("-- 9. a relaxed publication, found on this machine under the C++ memory model --\n");
  std::printf("   get() publishes its value with a relaxed store: another get() may see the flag, not the value\n\n");
  const duet::ParallelConfig pc{.executor = duet::fibers()};
  expect_bug(summary, "relaxed publication", duet::check_parallel(answer_spec<true>(), pc, {.time = 30}), "on fibers");
  expect_pass(summary, "release publication", duet::check_parallel(answer_spec<false>(), pc), "on fibers");
}

#endif

}  // namespace

void fiber_demos(std::vector<Line>& summary) {
#ifdef DUET_DEMO_NOT_INSTRUMENTED
  std::printf("\n-- 8, 9. plain std::atomic code on fibers: skipped: %s --\n", DUET_DEMO_NOT_INSTRUMENTED);
  summary.push_back({"std::atomic code on fibers", true, std::string("skipped: ") + DUET_DEMO_NOT_INSTRUMENTED});
#else
  lost_push(summary);
  relaxed_publication(summary);
#endif
}

}  // namespace demo
