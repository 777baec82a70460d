// A library written against a future-based interface: a read-through cache in front of a slow
// backend, coalescing concurrent misses of the same key into one fetch. The backend is a
// template parameter whose fetch() returns an awaitable future, and whose promise type the
// cache uses to hand one fetch's value to every waiter; in production that would be the
// application's own future library, under test it is duet::future / duet::promise
// (docs/async.md, "Plugging existing code in").
//
// The planted bug (Stale::kept): invalidate() during a fetch does not stop that fetch from
// caching the value it read before the update, so the cache serves a stale value until the
// next invalidation. The correct cache counts invalidations per key and keeps a fetched value
// only if none happened while it was in flight.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <duet/async.hpp>

namespace fcache {

enum class Stale { dropped, kept };

/// Backend: `Future fetch(std::string key)` (awaitable, gives std::string), and a
/// `template <class T> using promise = ...` whose get_future() gives an awaitable future.
template <class Backend, Stale stale = Stale::dropped>
class Cache {
 public:
  explicit Cache(Backend& backend) : backend_(backend) {}

  duet::task<std::string> get(std::string key) {
    if (auto it = values_.find(key); it != values_.end()) co_return it->second;
    const unsigned generation = generation_[key];
    const auto flight = std::make_pair(key, generation);
    if (auto it = waiting_.find(flight); it != waiting_.end()) {  // a fetch since the last change: wait for it
      typename Backend::template promise<std::string> p;
      auto f = p.get_future();
      it->second.push_back(std::move(p));
      co_return co_await f;
    }
    waiting_[flight];  // this call fetches; later misses of this generation wait for it
    std::string value = co_await backend_.fetch(key);
    if (stale == Stale::kept || generation_[key] == generation) values_[key] = value;
    auto waiters = std::move(waiting_[flight]);
    waiting_.erase(flight);
    for (auto& p : waiters) p.set_value(value);
    co_return value;
  }

  /// The backend's value of `key` changed: forget the cached one.
  void invalidate(const std::string& key) {
    values_.erase(key);
    ++generation_[key];
  }

 private:
  Backend& backend_;
  std::map<std::string, std::string> values_;
  std::map<std::string, unsigned> generation_;
  // Fetches in flight, by key and by the generation they started in, with their waiters.
  std::map<std::pair<std::string, unsigned>, std::vector<typename Backend::template promise<std::string>>> waiting_;
};

}  // namespace fcache
