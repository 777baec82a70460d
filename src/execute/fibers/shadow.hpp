// Shadow memory for plain accesses of compiler-instrumented code: for each 8-byte word touched
// in a run, the last write and a few reads, each with the accessing fiber's epoch and the bytes
// of the word it touched. A race is two accesses of different fibers to common bytes, one a
// write, neither happening before the other (FastTrack's epoch test against the vector clock of
// the fiber that accesses now).
//
// Bounded and lossy in one direction only: a word keeps one write and kReads reads; when a new
// read finds no free slot it replaces the oldest. Dropping an access can hide a race, never
// invent one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace duet::detail::fiber {

struct ShadowAccess {
  std::uint32_t fiber = ~std::uint32_t{0};  // none
  std::uint32_t epoch = 0;                   // the fiber's own clock entry at the access
  std::uint32_t step = 0;                    // trace position (events before it)
  std::uint8_t bytes = 0;                    // which bytes of the word
  bool write = false;
  const void* pc = nullptr;
  const void* address = nullptr;  // the access's own address (the word's bytes may differ)
  bool valid() const { return fiber != ~std::uint32_t{0}; }
};

class ShadowMemory {
 public:
  static constexpr std::size_t kReads = 4;
  struct Word {
    std::uintptr_t key = 0;  // address >> 3
    std::uint64_t generation = 0;
    ShadowAccess write;
    std::array<ShadowAccess, kReads> reads{};
  };

  /// Forgets every word (a new run): O(1).
  void reset() {
    ++generation_;
    used_ = 0;
  }
  bool empty() const { return used_ == 0; }
  /// The word holding `address`, created empty when new.
  Word& word(std::uintptr_t key);
  /// Forgets the words of [address, address + size) (freed memory, a reused stack).
  void forget(const void* address, std::size_t size);

 private:
  std::size_t slot(std::uintptr_t key) const;
  void grow();
  std::vector<Word> words_ = std::vector<Word>(256);
  std::uint64_t generation_ = 1;
  std::size_t used_ = 0;
};

}  // namespace duet::detail::fiber
