#include "duet/source.hpp"

namespace duet {

// Bytes mode (fuzzers): a draw takes as many bytes as its bound needs, big-endian, reduced
// modulo the range. The bias this leaves is harmless for a fuzzer, and the mapping keeps
// "fewer, smaller bytes" meaning "simpler case", as the fuzzer's own reduction expects.
std::uint64_t Source::from_bytes_draw(std::uint64_t max) {
  if (max == 0) return 0;
  int nbytes = 0;
  for (std::uint64_t m = max; m != 0; m >>= 8) ++nbytes;
  if (byte_pos_ + static_cast<std::size_t>(nbytes) > bytes_.size()) throw Overrun{};
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v = (v << 8) | bytes_[byte_pos_++];
  return max == ~std::uint64_t{0} ? v : v % (max + 1);
}

}  // namespace duet
