// Isolation's child side: what the child process forked by Isolation (parent.hpp) runs. It
// registers one state, the memory shared with the parent with the choice tap and the observer
// that write there, and serves the parent's requests until the parent is done. The engine's
// handler, running a case in the child, tells it where cases begin and end through the static
// calls below, which are only made in that child.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/search_counts.hpp"

namespace duet::detail {

struct SharedBlock;

class IsolatedChild {
 public:
  /// One request's answer.
  using Handler = std::function<std::string(const std::string& request)>;
  /// What the child starts with, right after the fork.
  struct Start {
    SharedBlock& block;
    int socket;    // its end of the socket to the parent
    int output;    // where its stderr goes (a memory file the parent reads), or -1
    pid_t parent;  // the parent's process id
  };

  /// Registers the child's state, runs `in_child` once (to restart what fork does not copy,
  /// such as a thread pool), then answers each request on the socket with `handler` until the
  /// parent closes it; then the process ends (_exit: no exit handler of the test binary runs).
  [[noreturn]] static void serve(const Start& start, const Handler& handler, const std::function<void()>& in_child);

  // ---- Called by the handler, in the child only ----
  /// A case starts on `src`: the tap mirrors its record and the hang clock starts.
  static void begin_case(Source& src);
  static void end_case(Source& src);
  /// The search's counters, as the parent sees them (after each case).
  static void count_search(const SearchCounts& counts);
  /// A shrink in the child: one more candidate tried; a case kept.
  static void shrink_tried(const std::vector<std::uint64_t>& candidate);
  static void shrink_kept(const std::vector<std::uint64_t>& choices, const std::vector<Source::Span>& spans,
                          std::size_t mark);
  /// Records a traced case's steps in shared memory as it runs.
  static CaseObserver* observer();

  struct State;  // the one registered state (child.cpp)
};

}  // namespace duet::detail
