// The worlds a sequential check's model may be in after injected crashes: a crash interrupts a
// command, which may or may not have taken effect, so every world goes on twice; a later result
// keeps the worlds that explain it. State machines (their model states) and duet::Api (its
// reference values) use this one type, with one limit and one wording. Internal.
//
//   PossibleWorlds<State> worlds(initial);
//   worlds.fork([&](State& s) { Spec::next(cmd, s); });     // after a crash in `cmd`
//   worlds.keep_if([&](const State& s) { return explains(s, result); });
//   worlds.merge(std::equal_to<>{});
//   if (worlds.over_limit()) return error(worlds.limit_message("give State an operator=="));
#pragma once

#include <cstddef>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace duet::detail {

template <class World>
class PossibleWorlds {
 public:
  /// More worlds than this are not followed: the check is an error saying how equal ones merge.
  static constexpr std::size_t kLimit = 4096;

  PossibleWorlds() = default;
  explicit PossibleWorlds(World first) { worlds_.push_back(std::move(first)); }

  /// Back to one world, keeping the room the worlds had (a case loop's start).
  void restart(World first) {
    worlds_.clear();
    worlds_.push_back(std::move(first));
  }
  /// The same, with the world `make()` returns.
  template <class Make>
  void restart_made(Make&& make) {
    restart(make());
  }
  /// No world left, the room kept.
  void clear() { worlds_.clear(); }

  std::size_t size() const { return worlds_.size(); }
  bool empty() const { return worlds_.empty(); }
  World& front() { return worlds_.front(); }
  std::span<const World> all() const { return worlds_; }
  World& operator[](std::size_t i) { return worlds_[i]; }
  const World& operator[](std::size_t i) const { return worlds_[i]; }
  auto begin() { return worlds_.begin(); }
  auto end() { return worlds_.end(); }
  auto begin() const { return worlds_.begin(); }
  auto end() const { return worlds_.end(); }

  /// A crash interrupted a command: every world goes on without it and with it (`take` applies
  /// it to a copy), the world without it first. If `take` throws, the worlds are as before.
  template <class Take>
  void fork(Take&& take) {
    std::vector<World> next;
    next.reserve(worlds_.size() * 2);
    for (const World& w : worlds_) {
      World taken = w;
      take(taken);
      next.push_back(w);
      next.push_back(std::move(taken));
    }
    worlds_ = std::move(next);
  }

  /// Keeps the worlds `explains(world)` accepts (asked of every world, in order); returns how
  /// many are left (none: the worlds are as before, for the failure to list what they allowed).
  template <class Explains>
  std::size_t keep_if(Explains&& explains) {
    std::vector<bool> keep;
    keep.reserve(worlds_.size());
    for (const World& w : worlds_) keep.push_back(explains(w));
    return keep_at(keep);
  }

  /// Keeps the worlds whose entry in `keep` is true, in order; as keep_if.
  std::size_t keep_at(const std::vector<bool>& keep) {
    std::vector<World> kept;
    for (std::size_t i = 0; i < worlds_.size(); ++i)
      if (keep[i]) kept.push_back(std::move(worlds_[i]));
    const std::size_t left = kept.size();
    if (left != 0) worlds_ = std::move(kept);
    return left;
  }

  /// Merges equal worlds (`same(a, b)`), keeping the first of each in order.
  template <class Same>
  void merge(Same&& same) {
    std::vector<World> merged;
    merged.reserve(worlds_.size());
    for (World& w : worlds_) {
      bool seen = false;
      for (const World& m : merged) seen = seen || same(m, w);
      if (!seen) merged.push_back(std::move(w));
    }
    worlds_ = std::move(merged);
  }

  /// Puts `w` before the others.
  void add_first(World w) { worlds_.insert(worlds_.begin(), std::move(w)); }
  /// Adds `w` unless an equal world (`same`) is there already.
  template <class Same>
  void add(World w, Same&& same) {
    for (const World& m : worlds_)
      if (same(m, w)) return;
    worlds_.push_back(std::move(w));
  }

  bool over_limit() const { return worlds_.size() > kLimit; }
  /// The error past the limit: "more than 4096 possible worlds explain the crashes so far (give
  /// State an operator== so that equal ones merge)".
  static std::string limit_message(const std::string& how_to_merge) {
    return "more than " + std::to_string(kLimit) + " possible worlds explain the crashes so far (" + how_to_merge +
           " so that equal ones merge)";
  }
  /// How a failure after crashes ends: " (the interrupted command taken effect or not)".
  static std::string interrupted(std::size_t crashes, const std::string& what) {
    return " (the interrupted " + what + (crashes > 1 ? "s" : "") + " taken effect or not)";
  }

 private:
  std::vector<World> worlds_;
};

/// The one world of a spec that has no crash injection and no relaxed steps, with the part of
/// PossibleWorlds' interface such a spec's steps use. Not a vector of one: a test file then
/// compiles none of std::vector's growth for its model's state (about a sixth of what a
/// one-test check_sequential file compiles of duet's). Held in place, as HeldCandidate holds the
/// candidate: restart_made constructs the world from what `make` returns, with no temporary
/// state to move from and destroy (a model's move constructor and destructor compiled twice).
template <class World>
class OneWorld {
 public:
  OneWorld() = default;
  OneWorld(const OneWorld&) = delete;
  OneWorld& operator=(const OneWorld&) = delete;
  ~OneWorld() { clear(); }

  /// The world `make()` returns, in place of the one before (which goes first: if make throws,
  /// there is none).
  template <class Make>
  void restart_made(Make&& make) {
    clear();
    ::new (static_cast<void*>(storage_)) World(make());
    held_ = true;
  }
  void clear() noexcept {
    if (held_) {
      held_ = false;
      front().~World();
    }
  }
  std::size_t size() const { return held_ ? 1 : 0; }
  World& front() { return *std::launder(reinterpret_cast<World*>(storage_)); }
  std::span<const World> all() const {
    return {held_ ? std::launder(reinterpret_cast<const World*>(storage_)) : nullptr, size()};
  }
  World& operator[](std::size_t) { return front(); }

 private:
  alignas(World) unsigned char storage_[sizeof(World)];
  bool held_ = false;
};

}  // namespace duet::detail
