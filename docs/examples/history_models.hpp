// Models of your own for the history checker (duet/history_model.hpp): a lock service with
// leases, a FIFO queue whose dequeues may time out, an unordered queue (a bag) whose timed-out
// dequeues may have taken any element (a nondeterministic model), and a grow-only set.
//
//   duet::history::Models models;
//   models.add("lock", "lock service: acquire, release (key: the lock)", history_models::Lock{});
//   duet::history::CheckOptions options;
//   options.model = "lock";
//   options.models = &models;
//   auto report = duet::history::check_history(history, options);
#pragma once

#include <algorithm>
#include <map>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <duet/history_model.hpp>

namespace history_models {

using duet::history::Operation;
using duet::history::Outcome;
using duet::history::Value;

// Who an operation acts for: its :value (a client id) when it has one, else its process.
inline std::int64_t client_of(const Operation& op) { return op.input.is_integer() ? op.input.number : op.process; }

/// A lock service (a lease without expiry): `acquire` completes :ok when the caller got the
/// lock and :fail when someone else held it; `release` frees a lock the caller holds. Locks
/// are named by :key; each lock is independent (keys) and its operations touch only that
/// lock's entry of the state (footprint).
struct Lock {
  using State = std::map<std::string, std::int64_t>;  // the locks held, and by whom
  State init() const { return {}; }  // every lock free (it takes no --init)
  static std::string name(const Operation& op) {
    if (!op.key) return "";
    return op.key->kind == Value::Kind::string ? op.key->text : op.key->to_string();
  }
  bool step(State& s, const Operation& op) const {
    const std::int64_t me = client_of(op);
    const auto it = s.find(name(op));
    const std::optional<std::int64_t> holder = it == s.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
    if (op.f == "acquire") {
      if (op.outcome == Outcome::fail) return holder.has_value();  // held by someone: no effect
      if (holder) return op.outcome == Outcome::info;             // a timed-out acquire did not get it
      s[name(op)] = me;                                           // :ok, or :info that took effect
      return true;
    }
    // release
    if (op.outcome == Outcome::fail) return true;
    if (holder != me) return op.outcome == Outcome::info;  // :ok releasing a lock one does not hold
    s.erase(it);
    return true;
  }
  void validate(const Operation& op) const {
    if (op.f != "acquire" && op.f != "release")
      throw std::invalid_argument("the lock model has acquire and release, not '" + op.f + "'");
  }
  std::vector<std::string> keys(const Operation& op) const { return {name(op)}; }
  std::string footprint(const Operation& op) const { return "lock " + name(op); }
  bool read_only(const Operation& op) const { return op.outcome == Outcome::fail; }
  std::string show(const State& s) const {
    if (s.empty()) return "every lock free";
    std::string out;
    for (const auto& [lock, holder] : s) out += (out.empty() ? "" : ", ") + lock + " held by " + std::to_string(holder);
    return out;
  }
  std::string describe_initial(const std::optional<Value>&) const { return "every lock starts free"; }
};

/// A FIFO queue: `enqueue x`; `dequeue` -> x, or nil when empty. A dequeue that timed out
/// (:info) may have taken the front element, whatever it was.
struct FifoQueue {
  using State = std::vector<std::int64_t>;  // front first
  State init() const { return {}; }
  bool step(State& s, const Operation& op) const {
    if (op.outcome == Outcome::fail) return true;  // did not happen
    if (op.f == "enqueue") {
      s.push_back(op.input.number);
      return true;
    }
    if (op.outcome == Outcome::info) {  // took effect with a result nobody saw
      if (!s.empty()) s.erase(s.begin());
      return true;
    }
    if (op.output.is_nil()) return s.empty();
    if (s.empty() || s.front() != op.output.number) return false;
    s.erase(s.begin());
    return true;
  }
  void validate(const Operation& op) const {
    if (op.f == "enqueue" && !op.input.is_integer()) throw std::invalid_argument("enqueue takes an integer");
    if (op.f == "dequeue" && op.outcome == Outcome::ok && !op.output.is_nil() && !op.output.is_integer())
      throw std::invalid_argument("dequeue returns an integer or nil");
    if (op.f != "enqueue" && op.f != "dequeue") throw std::invalid_argument("the queue has enqueue and dequeue, not '" + op.f + "'");
  }
};

/// An unordered queue (a bag): `put x`; `take` -> some element, or nil when empty. A take that
/// timed out may have removed any element: the model is nondeterministic, and the checker
/// follows every state it may have left.
struct Bag {
  using State = std::vector<std::int64_t>;  // sorted
  State init() const { return {}; }
  void step(const State& s, const Operation& op, std::vector<State>& next) const {
    if (op.outcome == Outcome::fail) {
      next.push_back(s);
      return;
    }
    if (op.f == "put") {
      State t = s;
      t.insert(std::upper_bound(t.begin(), t.end(), op.input.number), op.input.number);
      next.push_back(std::move(t));
      return;
    }
    if (op.outcome == Outcome::info) {  // took one, nobody knows which
      if (s.empty()) next.push_back(s);
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0 && s[i] == s[i - 1]) continue;
        State t = s;
        t.erase(t.begin() + static_cast<std::ptrdiff_t>(i));
        next.push_back(std::move(t));
      }
      return;
    }
    if (op.output.is_nil()) {
      if (s.empty()) next.push_back(s);
      return;
    }
    const auto it = std::lower_bound(s.begin(), s.end(), op.output.number);
    if (it == s.end() || *it != op.output.number) return;  // not in the bag: impossible
    State t = s;
    t.erase(t.begin() + (it - s.begin()));
    next.push_back(std::move(t));
  }
};

/// A grow-only set: `add x`; `read` -> every element (a vector, any order).
struct GrowOnlySet {
  using State = std::vector<std::int64_t>;  // sorted
  State init() const { return {}; }
  bool step(State& s, const Operation& op) const {
    if (op.f == "add") {
      if (op.outcome == Outcome::fail) return true;
      const auto it = std::lower_bound(s.begin(), s.end(), op.input.number);
      if (it == s.end() || *it != op.input.number) s.insert(it, op.input.number);
      return true;
    }
    if (op.outcome != Outcome::ok || op.result_unknown) return true;  // a read with no result
    State seen;
    for (const Value& v : op.output.items) seen.push_back(v.number);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    return seen == s;
  }
  bool read_only(const Operation& op) const { return op.f == "read" || op.outcome == Outcome::fail; }
  void validate(const Operation& op) const {
    if (op.f == "add" && !op.input.is_integer()) throw std::invalid_argument("add takes an integer");
    if (op.f == "read" && op.outcome == Outcome::ok && op.output.kind != Value::Kind::vector)
      throw std::invalid_argument("read returns a vector of elements");
    if (op.f != "add" && op.f != "read") throw std::invalid_argument("the grow-only set has add and read, not '" + op.f + "'");
  }
};

/// All four, under the names the docs use.
inline duet::history::Models all() {
  duet::history::Models models;
  models.add("lock", "lock service: acquire (:fail when held), release; per :key", Lock{});
  models.add("fifo", "FIFO queue: enqueue x, dequeue -> x or nil; a timed-out dequeue may have taken the front", FifoQueue{});
  models.add("bag", "unordered queue: put x, take -> any element or nil; a timed-out take may have taken any", Bag{});
  models.add("gset", "grow-only set: add x, read -> all elements", GrowOnlySet{});
  return models;
}

}  // namespace history_models
