// A seqlock guarding a pair of values: writers (serialised by a mutex) make the sequence
// counter odd, write both fields, and make it even again; readers take no lock, and retry
// while the counter is odd or changed under them. A reader that did not read the counter again
// after the fields would return torn pairs (one field from one write, one from another): duet's
// own tests check such a seqlock, with a Read policy of their own, and find it. It checks as a
// PairRegister (models/duet/models/pair_register.hpp).
//
//   duet::models::SeqLock<int> s;                              // std types: production
//   duet::models::SeqLock<int, duet::models::FiberSync> f;     // duet types: fiber runs
//   s.write(1, 2);  auto [a, b] = s.read();
//
//   duet::check_parallel<duet::models::SeqLockSpec<>>(...);           // passes
//
// The fields are Sync::atomics, not plain variables: a reader reads them while a writer may be
// writing them, which with plain variables is a data race (undefined behaviour in C++, and a
// data-race report with FiberSync's duet::var) even when the counter makes the reader discard
// what it read. The usual production seqlock uses relaxed field accesses plus fences; here every
// access is seq_cst (see spin_lock.hpp), which needs no fences. T must be trivially copyable.
// Sync: see sync_traits.hpp.
#pragma once

#include <mutex>
#include <utility>

#include <duet/models/pair_register.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

/// How a seqlock reader knows the fields it read belong to one write (BasicSeqLock's Read
/// policy): it reads the sequence counter again, and the pair stands only if no write began
/// since `before` was read.
struct SeqLockRecheck {
  template <class Counter>
  static bool unchanged(const Counter& seq, unsigned before) {
    return seq.load() == before;
  }
};

template <class T, SyncTraits Sync = StdSync, class Read = SeqLockRecheck>
class BasicSeqLock {
 public:
  void write(T first, T second) {
    std::lock_guard g(writers_);
    const unsigned seq = seq_.load();
    seq_.store(seq + 1);  // odd: a write is in progress
    first_.store(first);
    second_.store(second);
    seq_.store(seq + 2);  // even again: the pair is consistent
  }

  std::pair<T, T> read() const {
    for (;;) {
      const unsigned before = seq_.load();
      if (before % 2 != 0) {  // a writer is between its two fields
        Sync::yield();
        continue;
      }
      const T first = first_.load();
      const T second = second_.load();
      if (Read::unchanged(seq_, before)) return {first, second};  // no write began meanwhile
    }
  }

 private:
  typename Sync::mutex writers_;
  typename Sync::template atomic<unsigned> seq_{0};
  typename Sync::template atomic<T> first_{};
  typename Sync::template atomic<T> second_{};
};

template <class T, SyncTraits Sync = StdSync>
using SeqLock = BasicSeqLock<T, Sync, SeqLockRecheck>;

/// Binds a seqlock of ints to the PairRegister model.
template <class S>
struct SeqLockBinding {
  using Sut = S;
  static void write(Sut& s, int a, int b) { s.write(a, b); }
  static std::pair<int, int> read(Sut& s) { return s.read(); }
};

/// write(a, b) and read() on a SeqLock<int>: linearizable.
template <SyncTraits Sync = FiberSync>
using SeqLockSpec = PairRegister<SeqLockBinding<SeqLock<int, Sync>>>;

}  // namespace duet::models
