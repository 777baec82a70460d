// The fiber counter (support/fiber_subjects.hpp) through the front ends that name operations:
// a duet::Lin and a duet::Api whose increments are a load then a store when Racy, shared by
// the scenario tests, the golden drafts and the programs that compile those drafts (where they
// are duet_lin() and duet_api(): a draft's token is bound to their names and operations).
#pragma once

#include <duet/api.hpp>
#include <duet/lin.hpp>

#include <memory>

#include "support/fiber_subjects.hpp"

namespace scenario_subjects {

template <bool Racy>
duet::Lin<fiber_subjects::Counter<Racy>> counter_lin() {
  using C = fiber_subjects::Counter<Racy>;
  return duet::Lin<C>("counter", "c")
      .op("incr", [](C& c) { return c.incr(); })
      .op(
          "get_plus", [](C& c, long x) { return c.get() + x; }, duet::integers<long>(0, 3));
}

// The reference is a number, the candidate a counter shared by handle.
template <bool Racy>
duet::Api counter_api() {
  using Handle = std::shared_ptr<fiber_subjects::Counter<Racy>>;
  duet::Api api("counter api");
  auto counter = api.abstract<long, Handle>("c");
  api.op(
      "make", duet::args(), counter, [] { return 0L; }, [] { return std::make_shared<fiber_subjects::Counter<Racy>>(); });
  api.op(
      "incr", duet::args(counter), duet::value<long>(), [](long& n) { return ++n; },
      [](const Handle& c) { return static_cast<long>(c->incr()); });
  api.op(
      "get_plus", duet::args(counter, duet::integers<long>(0, 3)), duet::value<long>(),
      [](const long& n, long x) { return n + x; }, [](const Handle& c, long x) { return c->get() + x; });
  return api;
}

}  // namespace scenario_subjects
