// Nondeterministic increasing-sequence generators (the Monolith paper, section 4.1).
//
//   create() -> t      a fresh generator
//   next(t)  -> int    a nonnegative number, strictly greater than every number this
//                      generator returned before
//
// Many results are right, so the reference cannot compute "the" answer. Instead the result is
// declared duet::nondet(duet::value<int>()): the reference's next receives the candidate's
// result as an extra last argument and judges it, returning duet::valid(x) (and remembering
// x) or duet::invalid("why").
//
// Candidates: a counter (0, 1, 2, ...) and random strictly increasing steps are both right.
// The bug (`modulo4`): a counter kept modulo 4, as if in a two-bit register: 0, 1, 2, 3, 0.
// duet finds it in six steps:
//   auto t0 = create();
//   next(t0);  // 0   ... 1, 2, 3
//   next(t0);  // <-- candidate finds 0: not above 3
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <duet/api.hpp>

namespace increasing {

// The reference, as in the paper: remembers the last number the candidate produced. (The
// paper starts from 0 and so rejects 0 as a first result; "nonnegative" allows it, so we
// start from -1.)
namespace ref {
struct Generator {
  int last = -1;
};
inline Generator create() { return {}; }
inline duet::Diagnostic<int> next(Generator& g, int candidate) {
  if (candidate <= g.last) return duet::invalid("not above " + std::to_string(g.last));
  g.last = candidate;
  return duet::valid(candidate);
}
}  // namespace ref

// Right: 0, 1, 2, ...
namespace counter {
struct Generator {
  int n = 0;
};
inline Generator create() { return {}; }
inline int next(Generator& g) { return g.n++; }
}  // namespace counter

// Right: steps of 1 to 1000, chosen at random (from a fixed seed, so that replays repeat).
namespace random_steps {
struct Generator {
  std::minstd_rand rng{12345};
  int last = -1;
};
inline Generator create() { return {}; }
inline int next(Generator& g) {
  g.last += 1 + static_cast<int>(g.rng() % 1000);
  return g.last;
}
}  // namespace random_steps

// THE BUG: the counter wraps around after 3.
namespace modulo4 {
struct Generator {
  unsigned n = 0;
};
inline Generator create() { return {}; }
inline int next(Generator& g) { return static_cast<int>(g.n++ % 4); }
}  // namespace modulo4

/// The paper's spec: `next` is nondeterministic (t ^?> int).
template <class Generator, class Create, class Next>
duet::Api spec(Create create, Next next) {
  duet::Api api("IncreasingSequence");
  auto t = api.abstract<ref::Generator, Generator>("t");
  api.op("create", duet::args(), t, ref::create, create);
  api.op("next", duet::args(t), duet::nondet(duet::value<int>()), ref::next, next);
  return api;
}

}  // namespace increasing
