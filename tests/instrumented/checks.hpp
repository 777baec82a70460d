// What the instrumented tests share: a parallel check's settings on fibers, and a seeded config.
#pragma once

#include <duet/config.hpp>
#include <duet/executor.hpp>
#include <duet/parallel.hpp>

#include <cstdint>

namespace instrumented_test {

inline duet::ParallelConfig on_fibers(duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  return pc;
}

/// Seed `seed`; `count` programs when nonzero, else the check's default budget.
inline duet::Config seeded(std::uint64_t seed, std::uint64_t count = 0) {
  duet::Config c;
  c.seed = seed;
  if (count != 0) c.count = count;
  return c;
}

}  // namespace instrumented_test
