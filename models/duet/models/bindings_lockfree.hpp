// Bindings of Boost.Lockfree's containers to duet's models: boost::lockfree::queue as a queue,
// boost::lockfree::stack as a stack (CMake: duet::models_lockfree, which links Boost's
// headers; on some targets Boost.Lockfree's 16-byte atomics also need libatomic).
//
//   duet::check_parallel<duet::models::Stack<duet::models::LockfreeStack>>();
#pragma once

#include <memory>
#include <optional>

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>

namespace duet::models {

/// Queue: boost::lockfree::queue (push, pop), 64 nodes preallocated.
struct LockfreeQueue {
  using Sut = boost::lockfree::queue<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

/// Stack: boost::lockfree::stack (push, pop), 64 nodes preallocated.
struct LockfreeStack {
  using Sut = boost::lockfree::stack<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& s, int x) { s.push(x); }
  static std::optional<int> pop(Sut& s) {
    int x;
    return s.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

}  // namespace duet::models
