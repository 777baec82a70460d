// Boost.Lockfree's spsc_queue as a signature-only description (push, pop), the candidate its
// own oracle: correct with one producer and one consumer, as its documentation says
// (tests/parallel/roles_test.cpp), unsafe with two producers (tests/negative/roles_test.cpp).
#pragma once

#include <optional>

#include <boost/lockfree/spsc_queue.hpp>

#include <duet/lin.hpp>

namespace boost_spsc {

using Queue = boost::lockfree::spsc_queue<int, boost::lockfree::capacity<4>>;

inline duet::Lin<Queue> lin() {
  return duet::Lin<Queue>("boost::lockfree::spsc_queue", "q")
      .op(
          "push", [](Queue& q, int x) { return q.push(x); }, duet::integers(0, 9))
      .op("pop", [](Queue& q) {
        int x = 0;
        return q.pop(x) ? std::optional<int>(x) : std::nullopt;
      });
}

}  // namespace boost_spsc
