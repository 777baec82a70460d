// Models of recorded histories: each compiles a partition's operations into a compact oracle
// for the one search core (include/duet/detail/search.hpp), and says how its histories split
// into independent parts (P-compositionality).
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "check/interner.hpp"
#include "history/quote.hpp"
#include "duet/history.hpp"
#include "duet/history_model.hpp"

#include "duet/detail/history_search.hpp"  // after duet/history.hpp, whose types it uses

namespace duet::history::detail {

/// Every operation in one part (models that do not partition, and --no-partition).
std::vector<std::vector<std::size_t>> single_part(const History& h);

/// duet's own models.
std::vector<const Model*> all_models();
/// The model named `name`: the caller's (`extra`, may be null) first, then duet's; nullptr if
/// there is none.
const Model* find_model(std::string_view name, const Models* extra = nullptr);

/// How an operation ended, for the models: ok, failed (no effect), completed with a result
/// nobody saw, or pending (may take effect at any time after its invocation, or never).
enum class Mode : std::uint8_t { ok, fail, unknown_result, pending };

// ---- the cas-register's compiled operations (models_register_kv.cpp, register_decision.cpp) ----
/// nil's value id: values are interned as dense ids.
constexpr std::uint32_t kNil = 0;

struct RegisterOp {
  enum Kind : std::uint8_t { read, write, cas } kind;
  Mode mode;
  std::uint32_t a = kNil, b = kNil;  // read: the value read; write: the value; cas: expected, new
};

/// One step of the register: false when the operation's observed result is not allowed in
/// state `s` (a value id).
inline bool register_apply(const RegisterOp& op, std::uint32_t& s) {
  switch (op.kind) {
    case RegisterOp::read:
      if (op.mode != Mode::ok) return true;
      return s == op.a;
    case RegisterOp::write:
      if (op.mode != Mode::fail) s = op.a;  // a failed write did not happen
      return true;
    case RegisterOp::cas:
      switch (op.mode) {
        case Mode::ok:
          if (s != op.a) return false;
          s = op.b;
          return true;
        case Mode::fail: return s != op.a;  // completed without effect: the compare failed
        default:
          if (s == op.a) s = op.b;  // took effect here (or never: then it is not placed)
          return true;
      }
  }
  return false;
}

// ---- the queue's compiled operations (models_queue_set_counter.cpp, queue_decision.cpp) ----
struct QueueOp {
  bool enqueue;
  Mode mode;
  std::uint32_t value;  // interned; 0: nil (dequeue found the queue empty)
};

/// One step of the FIFO queue (`s` front first): false when the operation's observed result is
/// not allowed there.
inline bool queue_apply(const QueueOp& op, std::vector<std::uint32_t>& s) {
  if (op.mode == Mode::fail) return true;
  if (op.enqueue) {
    s.push_back(op.value);
    return true;
  }
  if (op.mode != Mode::ok) {  // took effect with an unknown result
    if (!s.empty()) s.erase(s.begin());
    return true;
  }
  if (op.value == 0) return s.empty();
  if (s.empty() || s.front() != op.value) return false;
  s.erase(s.begin());
  return true;
}

/// Decides a queue history, starting empty, whose values are each enqueued at most once,
/// without searching (queue_decision.cpp); nothing when it is not of that kind or the
/// construction does not go through.
std::optional<duet::detail::SearchResult> decide_unique_queue(const std::vector<QueueOp>& ops,
                                                              const std::vector<duet::detail::TimedOp>& timed);

// ---- the set's compiled operations (models_queue_set_counter.cpp, set_decision.cpp) ----
struct SetOp {
  enum Kind : std::uint8_t { add, remove, contains, read } kind;
  Mode mode;
  std::uint32_t value = 0;
  bool answer = false;
  std::vector<std::uint32_t> elements;  // read: sorted
};

/// Decides a set history of adds and reads (no removes, no contains) whose elements are each
/// added at most once (Jepsen's set workload), from the sorted initial elements `start`,
/// without searching (set_decision.cpp); nothing when it is not of that kind.
std::optional<duet::detail::SearchResult> decide_grow_only_set(const std::vector<SetOp>& ops,
                                                               const std::vector<duet::detail::TimedOp>& timed,
                                                               const std::vector<std::uint32_t>& start);

/// Does `order` (indices into `timed`) respect the history as the search's orders do: real time
/// (nothing placed after an operation returned before that operation began), each process's
/// completed operations in the order they were invoked, every completed operation exactly once
/// (pending ones at most once)? For decisions that build an order without the search.
bool order_fits_history(const std::vector<std::size_t>& order, const std::vector<duet::detail::TimedOp>& timed);

/// Decides a register history whose values are each written at most once (as recorders that
/// write unique values make them) without searching; nothing when the history is not of that
/// kind or the construction does not go through (the search then decides). See
/// register_decision.cpp.
std::optional<duet::detail::SearchResult> decide_unique_register(const std::vector<RegisterOp>& ops,
                                                                 const std::vector<duet::detail::TimedOp>& timed,
                                                                 std::uint32_t start);

// ---- the kv store's compiled operations (models_register_kv.cpp, kv_decision.cpp) ----
struct KvOp {
  enum Kind : std::uint8_t { get, put, append } kind;
  Mode mode;
  std::uint32_t key;    // dense index within the part
  std::uint32_t value;  // interned: get's result, put's or append's argument
};

/// One key of a kv store translated onto the unique-value register (kv_decision.cpp): the
/// register's operations (one per kv operation), its initial value's id, and per value id the
/// operation that needs it (the get that reads it, or the append built on it; kNobody: none).
struct KvRegister {
  static constexpr std::uint32_t kNobody = std::numeric_limits<std::uint32_t>::max();
  std::vector<RegisterOp> ops;
  std::uint32_t start = 0;
  std::vector<std::uint32_t> needed_by;
};

/// The translation of one key's operations (values interned in `values`, the key starting as
/// `start_value`), or nothing when a value could come from two operations, or from none and yet
/// is a prefix the reads need.
std::optional<KvRegister> kv_as_register(const std::vector<KvOp>& ops, const Interner& values, std::uint32_t start_value);

/// A violation the register's decision found on the translation, as a kv witness: each append
/// in it with the get that needs what it made (alone it would be linearizable), sorted.
void complete_kv_witness(const KvRegister& reg, std::vector<std::size_t>& witness);

}  // namespace duet::history::detail
