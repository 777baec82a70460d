#include "execute/fibers/identity.hpp"

#include <algorithm>
#include <cstdint>

namespace duet::detail::fiber {

namespace {
std::size_t slot_of(const void* key, std::size_t mask) {
  return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(key) >> 3) * 0x9E3779B97F4A7C15ULL >> 20) & mask;
}
}  // namespace

std::uint32_t* ObjectTable::find(const void* key) {
  const std::size_t mask = entries_.size() - 1;
  for (std::size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
    Entry& e = entries_[i];
    if (e.generation != generation_) return nullptr;
    if (e.key == key) return &e.value;
  }
}

std::uint32_t& ObjectTable::insert(const void* key) {
  if ((used_ + 1) * 2 > entries_.size()) grow();
  const std::size_t mask = entries_.size() - 1;
  for (std::size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
    Entry& e = entries_[i];
    if (e.generation != generation_) {
      e = {key, generation_, kNoObject};
      ++used_;
      return e.value;
    }
    if (e.key == key) return e.value;
  }
}

void ObjectTable::grow() {
  std::vector<Entry> old(entries_.size() * 2);
  old.swap(entries_);
  used_ = 0;
  for (const Entry& e : old)
    if (e.generation == generation_) insert(e.key) = e.value;
}

// Linear probing's deletion: the entries after the hole that probed past it move back into it,
// so that every lookup still finds its key before the first empty slot.
void ObjectTable::erase_at(std::size_t i) {
  const std::size_t mask = entries_.size() - 1;
  for (std::size_t j = (i + 1) & mask; entries_[j].generation == generation_; j = (j + 1) & mask) {
    const std::size_t home = slot_of(entries_[j].key, mask);
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);  // home in (i, j]
    if (stays) continue;
    entries_[i] = entries_[j];
    i = j;
  }
  entries_[i].generation = 0;
  --used_;
}

// Frees are frequent and their blocks small: each address of the block is looked up, unless the
// block is larger than the table, which is then scanned.
void ObjectTable::forget(const void* address, std::size_t size) {
  if (used_ == 0 || size == 0) return;
  const auto lo = reinterpret_cast<std::uintptr_t>(address);
  if (size <= entries_.size()) {
    for (std::uintptr_t a = lo; a < lo + size && used_ > 0; ++a) {
      const std::size_t mask = entries_.size() - 1;
      for (std::size_t i = slot_of(reinterpret_cast<const void*>(a), mask); entries_[i].generation == generation_;
           i = (i + 1) & mask)
        if (entries_[i].key == reinterpret_cast<const void*>(a)) {
          erase_at(i);
          break;
        }
    }
    return;
  }
  std::vector<const void*> doomed;
  for (const Entry& e : entries_)
    if (e.generation == generation_ && reinterpret_cast<std::uintptr_t>(e.key) - lo < size) doomed.push_back(e.key);
  for (const void* key : doomed) forget(key, 1);
}

std::uint64_t PointerNames::name(std::uint64_t bits) {
  const auto [it, added] = names_.try_emplace({bits & kPointerAddressBits, bits}, next_);
  if (added) ++next_;
  return it->second;
}

void PointerNames::forget(const void* address, std::size_t size) {
  if (names_.empty() || size == 0) return;
  const auto lo = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(address));
  auto it = names_.lower_bound({lo, 0});
  while (it != names_.end() && it->first.first - lo < size) it = names_.erase(it);
}

}  // namespace duet::detail::fiber
