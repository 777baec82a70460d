// A hash map striped over 8 locks, each stripe a std::map with its own count. insert, erase and
// find lock the key's stripe. size() either locks every stripe at once (Size::locked:
// linearizable) or one stripe at a time, adding each one's count (Size::per_stripe, a common
// mistake: with x in a lower stripe than y, a size that counts x's stripe before `erase(x)` and
// y's after a later `insert(y)` counts both, a total the map never had; with inserts alone the
// sum always passes through a true total, so only erase shows it). Which
// stripe a key goes to: its low bits (hash % 8, as most striped tables), or bits 10 and up (a
// table whose stripes hold runs of 1024 consecutive hashes), where keys 0..3 all share stripe 0
// and only spread keys tell the two sizes apart.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include <duet/models/map.hpp>
#include <duet/models/sync_traits.hpp>

namespace striped {

enum class Size { locked, per_stripe };
enum class Stripe { low_bits, high_bits };

template <Size SizeKind, Stripe StripeKind, duet::models::SyncTraits Sync = duet::models::StdSync>
class StripedMap {
 public:
  static constexpr std::size_t kStripes = 8;

  bool insert(int key, int value) {
    Part& p = part(key);
    std::lock_guard lock(p.m);
    if (!p.items.emplace(key, value).second) return false;
    p.count.store(p.count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return true;
  }
  bool erase(int key) {
    Part& p = part(key);
    std::lock_guard lock(p.m);
    if (p.items.erase(key) == 0) return false;
    p.count.store(p.count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    return true;
  }
  std::optional<int> find(int key) {
    Part& p = part(key);
    std::lock_guard lock(p.m);
    auto it = p.items.find(key);
    return it == p.items.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::size_t size() {
    std::size_t n = 0;
    if constexpr (SizeKind == Size::locked) {
      for (Part& p : parts_) p.m.lock();
      for (Part& p : parts_) n += p.count.load(std::memory_order_relaxed);
      for (Part& p : parts_) p.m.unlock();
    } else {
      for (Part& p : parts_) {
        std::lock_guard lock(p.m);
        n += p.count.load(std::memory_order_relaxed);
      }
    }
    return n;
  }

 private:
  struct Part {
    typename Sync::mutex m;
    std::map<int, int> items;
    typename Sync::template atomic<std::size_t> count{0};
  };
  Part& part(int key) {
    const std::size_t h = std::hash<int>{}(key);
    return parts_[(StripeKind == Stripe::low_bits ? h : h >> 10) % kStripes];
  }
  std::array<Part, kStripes> parts_;
};

/// Binds a StripedMap to duet::models::Map (insert, erase, find, size), with the model's default
/// keys.
template <Size SizeKind, Stripe StripeKind, duet::models::SyncTraits Sync = duet::models::StdSync>
struct Binding {
  using Sut = StripedMap<SizeKind, StripeKind, Sync>;
  static bool insert(Sut& m, int k, int v) { return m.insert(k, v); }
  static bool erase(Sut& m, int k) { return m.erase(k); }
  static std::optional<int> find(Sut& m, int k) { return m.find(k); }
  static std::size_t size(Sut& m) { return m.size(); }
};

/// The same, with the adjacent keys 0..3 (the models' keys before they were spread).
template <Size SizeKind, Stripe StripeKind, duet::models::SyncTraits Sync = duet::models::StdSync>
struct AdjacentKeysBinding : Binding<SizeKind, StripeKind, Sync> {
  static duet::Gen<int> keys() { return duet::integers(0, 3); }
};

}  // namespace striped
