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
  std::uint32_t epoch = 0;                  // the fiber's own clock entry at the access
  std::uint32_t step = 0;                   // trace position (events before it)
  std::uint8_t bytes = 0;                   // which bytes of the word
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
  void forget(const void* address, std::size_t size) {
    visit(address, size, [](Word& w) {
      w.write = {};
      w.reads = {};
    });
  }
  /// Calls f(Word&) for each word of [address, address + size) that holds accesses.
  template <class F>
  void visit(const void* address, std::size_t size, F&& f);

 private:
  std::size_t slot(std::uintptr_t key) const;
  void grow();
  std::vector<Word> words_ = std::vector<Word>(256);
  std::uint64_t generation_ = 1;
  std::size_t used_ = 0;
};

template <class F>
void ShadowMemory::visit(const void* address, std::size_t size, F&& f) {
  if (used_ == 0 || size == 0) return;
  const auto first = reinterpret_cast<std::uintptr_t>(address) >> 3;
  const auto last = (reinterpret_cast<std::uintptr_t>(address) + size - 1) >> 3;
  if (last - first + 1 > used_) {  // a large range: visit the words that exist instead
    for (Word& w : words_)
      if (w.generation == generation_ && w.key >= first && w.key <= last) f(w);
    return;
  }
  for (std::uintptr_t key = first; key <= last; ++key)
    for (std::size_t i = slot(key);; i = (i + 1) & (words_.size() - 1)) {
      Word& w = words_[i];
      if (w.generation != generation_) break;
      if (w.key == key) {
        f(w);
        break;
      }
    }
}

}  // namespace duet::detail::fiber
