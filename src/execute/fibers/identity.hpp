// Stable identities within a run: the objects the subject synchronises on (atomic#3, mutex#1)
// and the pointer values its atomics hold (p2) are numbered by first use in the run, and a number
// is forgotten when the memory it names is freed. A node allocated where an earlier one was freed
// is then a new object with a new number, whether or not malloc reused the address; so equal
// runs print equal traces, and a replay is compared with its first run step for step, whatever
// the allocator did in between.
// Private to src/execute/fibers/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber {

/// Address -> run-local object number; open addressing, reset per run by a generation stamp
/// (no clearing, no allocation once grown).
class ObjectTable {
 public:
  std::uint32_t* find(const void* key);
  std::uint32_t& insert(const void* key);  // existing or new entry (new: kNoObject)
  /// Forgets every object whose address lies in [address, address + size).
  void forget(const void* address, std::size_t size);
  void reset() {
    ++generation_;
    used_ = 0;
  }

 private:
  struct Entry {
    const void* key = nullptr;
    std::uint64_t generation = 0;
    std::uint32_t value = kNoObject;
  };
  void grow();
  void erase_at(std::size_t i);
  std::vector<Entry> entries_ = std::vector<Entry>(64);
  std::uint64_t generation_ = 1;
  std::size_t used_ = 0;
};

/// Pointer values as a trace shows them: numbered by first appearance in the run (tag bits
/// included: a tagged pointer with another count is another value), forgotten when the memory
/// they point into is freed.
class PointerNames {
 public:
  /// The name of the pointer value `bits` (1, 2, ...): what the trace records for it.
  std::uint64_t name(std::uint64_t bits);
  /// Forgets the values pointing into [address, address + size).
  void forget(const void* address, std::size_t size);
  void reset() {
    names_.clear();
    next_ = 1;
  }

 private:
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> names_;  // (address, bits) -> name
  std::uint64_t next_ = 1;
};

/// The address part of a pointer value (the low 48 bits; tagged pointers keep a count above).
inline constexpr std::uint64_t kPointerAddressBits = 0xFFFF'FFFF'FFFF;

}  // namespace duet::detail::fiber
