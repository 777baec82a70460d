// What every docs code block (tests/docs/doc_blocks.cmake) is compiled after: duet's headers,
// the examples' headers the docs describe (docs/examples), and the names the docs use for them.
#pragma once

#include <duet/async.hpp>
#include <duet/fuzz.hpp>
#include <duet/gtest.hpp>
#include <duet/history.hpp>
#include <duet/history_model.hpp>
#include <duet/models/bindings_std.hpp>
#include <duet/models/map.hpp>
#include <duet/models/priority_queue.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/relaxed_queue.hpp>
#include <duet/models/spsc_ring.hpp>
#include <duet/models/sync_traits.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/sync.hpp>
#include <duet/testing/block_device.hpp>

#include <oneapi/tbb/concurrent_queue.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <unistd.h>  // alarm, in the draft tests docs/isolation.md shows

#include "avl.hpp"                        // the AVL set (docs/api.md)
#include "callback_log.hpp"               // the callback-based log (docs/async.md)
#include "history_models.hpp"             // models of your own for the checker (docs/checker.md)
#include "increasing.hpp"                 // nondeterministic references (docs/reference.md)
#include "kv_store_spec.hpp"              // the key-value store over a block device (docs/async.md)
#include "persistent_array.hpp"           // Ed's persistent arrays (the tutorial, docs/api.md)
#include "ring_buffer.hpp"                // the tutorial's ring buffer
#include "support/crashing_subjects.hpp"  // subjects that crash, hang or exit (docs/isolation.md)

// The docs name the persistent arrays' reference and Ed's candidate by their short namespaces.
namespace ref = persistent::ref;
namespace ed = persistent::ed;
namespace my = persistent::fixed;  // "your" array, in README.md: the fixed one
using namespace std::chrono_literals;

// Names the docs use for a spec or a subject of the kind at hand, without defining it there.
// A page's own definition of the same name hides these (each page is a namespace of its own).

using RingBufferSpec = ring::CorrectRingBufferSpec;
using BufferSpec = crashing::BufferSpec;  // reserve(n) hangs past 2^31 (docs/isolation.md)
using GrowOnlySet = history_models::GrowOnlySet;

// A thread-safe FIFO queue (a mutex around a deque), and its spec: duet's queue model.
class MyQueue {
 public:
  void push(int x) {
    const std::lock_guard<std::mutex> lock(m_);
    q_.push_back(x);
  }
  std::optional<int> try_pop() {
    const std::lock_guard<std::mutex> lock(m_);
    if (q_.empty()) return std::nullopt;
    const int x = q_.front();
    q_.pop_front();
    return x;
  }

 private:
  std::mutex m_;
  std::deque<int> q_;
};
struct MyQueueOps {
  using Sut = MyQueue;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};
using QueueSpec = duet::models::Queue<MyQueueOps>;

// oneTBB's concurrent queue, bound to duet's queue model (docs/tutorial.md defines it too).
struct TbbQueue {
  using Sut = tbb::concurrent_queue<int>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x = 0;
    return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

// The racy counter of docs/parallel.md: an increment is a load then a store, so two increments
// that interleave lose one. duet's atomics make every access a switch point on fibers.
class Counter {
 public:
  int incr() {
    const int x = value_.load();
    value_.store(x + 1);
    return x + 1;
  }
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};
struct Incr {};
struct Get {};
inline std::string duet_show(const Incr&) { return "incr()"; }
inline std::string duet_show(const Get&) { return "get()"; }
struct CounterSpec {
  using Sut = Counter;
  using State = int;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Incr{})), duet::just(Cmd(Get{}))); }
  static duet::Result run(const Cmd& c, Sut& s) { return std::holds_alternative<Incr>(c) ? s.incr() : s.get(); }
  static duet::Result expected(const Cmd& c, const State& n) { return std::holds_alternative<Incr>(c) ? n + 1 : n; }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<Incr>(c)) ++n;
  }
};

// std::vector described by its signature: not safe for concurrent use (docs/parallel.md).
inline const duet::Lin<std::vector<int>> vector_lin =
    duet::Lin<std::vector<int>>("vector", "v")
        .op(
            "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::integers(0, 9))
        .op("size", [](std::vector<int>& v) { return v.size(); });
