// Shadow memory: an open-addressing table of words, reset per run by a generation stamp (no
// clearing, no allocation once grown). See shadow.hpp.
#include "execute/fibers/shadow.hpp"

namespace duet::detail::fiber {

std::size_t ShadowMemory::slot(std::uintptr_t key) const {
  // Fibonacci hashing: neighbouring words spread over the table.
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & (words_.size() - 1);
}

ShadowMemory::Word& ShadowMemory::word(std::uintptr_t key) {
  if ((used_ + 1) * 4 > words_.size() * 3) grow();
  for (std::size_t i = slot(key);; i = (i + 1) & (words_.size() - 1)) {
    Word& w = words_[i];
    if (w.generation != generation_) {
      w = Word{};
      w.key = key;
      w.generation = generation_;
      ++used_;
      return w;
    }
    if (w.key == key) return w;
  }
}

void ShadowMemory::grow() {
  std::vector<Word> old(words_.size() * 2);
  old.swap(words_);
  used_ = 0;
  for (const Word& w : old)
    if (w.generation == generation_) word(w.key) = w;
}

}  // namespace duet::detail::fiber
