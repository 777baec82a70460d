// Recording a stress run for the history checker: N clients on duet's thread pool hammer a
// key-value store with Porcupine-style operations (get, put, append of unique values), and a
// duet::history::Recorder keeps every call's invoke and response time. The history then goes
// to check_history (or to a file, with write_duet_history, for duet-check).
//
//   KvStress run{.clients = 40, .ops_per_client = 100, .keys = 10, .seed = 7};
//   duet::history::History h = record_kv_stress<LockedKv>(run);
//   auto report = duet::history::check_history(h);   // model "kv"
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include <duet/executor.hpp>
#include <duet/history.hpp>

/// A correct store: every operation under one lock.
class LockedKv {
 public:
  std::string get(const std::string& k) {
    std::lock_guard lock(mutex_);
    return map_[k];
  }
  void put(const std::string& k, const std::string& v) {
    std::lock_guard lock(mutex_);
    map_[k] = v;
  }
  void append(const std::string& k, const std::string& v) {
    std::lock_guard lock(mutex_);
    map_[k] += v;
  }

 protected:
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> map_;
};

/// A broken store: append reads and writes back under two separate locks, so two appends
/// that overlap can lose one of them.
class RacyAppendKv : public LockedKv {
 public:
  void append(const std::string& k, const std::string& v) {
    std::string old;
    {
      std::lock_guard lock(mutex_);
      old = map_[k];
    }
    std::this_thread::yield();  // widen the window between the read and the write-back
    std::lock_guard lock(mutex_);
    map_[k] = old + v;
  }
};

struct KvStress {
  std::size_t clients = 10;
  std::size_t ops_per_client = 40;
  std::size_t keys = 10;
  std::uint64_t seed = 1;
  /// A random delay up to this before and after each call takes effect, as a network round
  /// trip would add: operations then overlap as in Jepsen's and Porcupine's recordings.
  std::chrono::microseconds max_delay{0};
};

/// Runs the clients at once on duet's thread pool and returns what they did.
template <class Store>
duet::history::History record_kv_stress(const KvStress& run) {
  using duet::history::Value;
  Store store;
  duet::history::Recorder recorder(run.clients, "kv");
  std::vector<std::function<void()>> clients;
  for (std::size_t c = 0; c < run.clients; ++c) {
    clients.push_back([&, c] {
      std::uint64_t rng = run.seed * 0x9e3779b97f4a7c15ULL + c + 1;
      auto next = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
      };
      auto delay = [&] {
        if (run.max_delay.count() > 0)
          std::this_thread::sleep_for(std::chrono::microseconds(next() % static_cast<std::uint64_t>(run.max_delay.count() + 1)));
      };
      for (std::size_t i = 0; i < run.ops_per_client; ++i) {
        const std::string key = std::to_string(next() % run.keys);
        const std::string value = "x " + std::to_string(c) + " " + std::to_string(i) + " y";
        switch (next() % 3) {
          case 0: {
            const auto op = recorder.invoke(c, "get", Value::string(key), Value::nil());
            delay();
            const std::string got = store.get(key);
            delay();
            recorder.complete(c, op, Value::string(got));
            break;
          }
          case 1: {
            const auto op = recorder.invoke(c, "put", Value::string(key), Value::string(value));
            delay();
            store.put(key, value);
            delay();
            recorder.complete(c, op, Value::nil());
            break;
          }
          default: {
            const auto op = recorder.invoke(c, "append", Value::string(key), Value::string(value));
            delay();
            store.append(key, value);
            delay();
            recorder.complete(c, op, Value::nil());
          }
        }
      }
    });
  }
  duet::make_thread_pool()->run(clients);
  return recorder.history("kv stress: " + std::to_string(run.clients) + " clients x " + std::to_string(run.ops_per_client) +
                          " operations, " + std::to_string(run.keys) + " keys, seed " + std::to_string(run.seed));
}
