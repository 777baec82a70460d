// A small key-value store over a block device, with async I/O (duet::task): the subject of
// docs/async.md, after the seed study's file system over a mock block device.
//
// Layout: sector 0 is the directory (a header byte and up to 5 entries: key, first data sector,
// length); values live in data sectors 1 and up. Every update is copy-on-write: the new value
// goes to sectors no entry uses, and the directory sector, written last, is the commit point
// (a single sector write is atomic), flushed before and after on a write-back device. So a crash
// leaves the store as it was before the interrupted operation or after it, never in between.
//
// Two planted bugs, each a mistake storage code really makes:
//  - Bug::stale_directory: remove() only updates the directory in memory and leaves the
//    block to be written back by the next update, after that update's data. A crash between
//    the two brings the removed key back, although remove() had returned.
//  - Bug::directory_before_data: a set() of a value larger than one sector writes the
//    directory before the data. A crash between them leaves the key pointing at sectors that do
//    not hold its value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/async.hpp"
#include "duet/testing/block_device.hpp"

namespace kv {

enum class Bug { none, stale_directory, directory_before_data };

struct Entry {
  std::string key;
  std::uint8_t start = 0;    // first data sector
  std::uint16_t length = 0;  // bytes
};

/// Thrown when the store has no room left (every directory slot or data sector is used).
struct Full : std::runtime_error {
  Full() : std::runtime_error("kv: store full") {}
};

template <Bug bug = Bug::none>
class Store {
 public:
  static constexpr std::size_t kSlots = 5;
  static constexpr std::size_t kMaxKey = 6;
  static constexpr std::size_t kEntryBytes = 11;  // used, key length, key[6], start, length[2]

  explicit Store(duet::BlockDevice& disk) : disk_(disk), block_(disk.sector_size()) {
    if (disk.sector_size() < 1 + kSlots * kEntryBytes) throw std::invalid_argument("kv: sectors too small for the directory");
  }

  /// Writes an empty directory.
  duet::task<void> format() {
    entries_.clear();
    co_await write_directory();
  }

  /// Reads the directory from the device (after a crash: what persisted).
  duet::task<void> mount() {
    co_await disk_.read(0, block_);
    entries_ = decode(block_);
    dirty_ = false;
  }

  duet::task<std::optional<std::string>> get(std::string key) {
    const Entry* e = find(key);
    if (!e) co_return std::nullopt;
    const std::size_t sector = disk_.sector_size();
    std::vector<std::byte> data((e->length + sector - 1) / sector * sector);
    co_await disk_.read(e->start, data);
    co_return std::string(reinterpret_cast<const char*>(data.data()), e->length);
  }

  duet::task<bool> exists(std::string key) { co_return find(key) != nullptr; }

  duet::task<std::vector<std::string>> list() {
    std::vector<std::string> keys;
    for (const Entry& e : entries_) keys.push_back(e.key);
    std::sort(keys.begin(), keys.end());
    co_return keys;
  }

  duet::task<void> set(std::string key, std::string value) {
    if (key.empty() || key.size() > kMaxKey) throw std::invalid_argument("kv: keys are 1 to 6 bytes");
    if (value.size() > 0xffff) throw std::invalid_argument("kv: value too long");
    const std::size_t sector = disk_.sector_size();
    const std::size_t sectors = std::max<std::size_t>(1, (value.size() + sector - 1) / sector);
    const std::uint8_t start = allocate(sectors);
    std::vector<std::byte> data(sectors * sector);
    std::transform(value.begin(), value.end(), data.begin(), [](char c) { return static_cast<std::byte>(c); });

    std::vector<Entry> next = entries_;
    auto it = std::find_if(next.begin(), next.end(), [&](const Entry& e) { return e.key == key; });
    if (it == next.end()) {
      if (next.size() == kSlots) throw Full();
      next.push_back({key, 0, 0});
      it = next.end() - 1;
    }
    it->start = start;
    it->length = static_cast<std::uint16_t>(value.size());

    if (bug == Bug::directory_before_data && sectors > 1) {
      entries_ = std::move(next);
      co_await write_directory();
      co_await disk_.write(start, data);
      co_await disk_.flush();
      co_return;
    }
    co_await disk_.write(start, data);
    co_await disk_.flush();  // the data is durable before the directory names it
    entries_ = std::move(next);
    co_await write_directory();
  }

  duet::task<bool> remove(std::string key) {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
    if (it == entries_.end()) co_return false;
    entries_.erase(it);
    if (bug == Bug::stale_directory) {
      dirty_ = true;  // written back with the next update
      co_return true;
    }
    co_await write_directory();
    co_return true;
  }

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  const Entry* find(const std::string& key) const {
    for (const Entry& e : entries_)
      if (e.key == key) return &e;
    return nullptr;
  }

  // First run of free data sectors, free meaning used by no entry (the key's own old value
  // included: copy-on-write keeps it intact until the directory stops naming it).
  std::uint8_t allocate(std::size_t sectors) const {
    const std::size_t sector = disk_.sector_size();
    const std::size_t total = std::min<std::uint64_t>(disk_.sectors(), 256);
    std::vector<bool> used(total, false);
    used[0] = true;
    for (const Entry& e : entries_) {
      const std::size_t n = std::max<std::size_t>(1, (e.length + sector - 1) / sector);
      for (std::size_t i = 0; i < n && e.start + i < total; ++i) used[e.start + i] = true;
    }
    std::size_t run = 0;
    for (std::size_t s = 1; s < total; ++s) {
      run = used[s] ? 0 : run + 1;
      if (run == sectors) return static_cast<std::uint8_t>(s + 1 - sectors);
    }
    throw Full();
  }

  // With Bug::stale_directory, a removal waiting in entries_ reaches the device only here, after
  // the data of the update that calls this.
  duet::task<void> write_directory() {
    encode(entries_, block_);
    co_await disk_.write(0, block_);
    co_await disk_.flush();
    dirty_ = false;
  }

  static void encode(const std::vector<Entry>& entries, std::vector<std::byte>& block) {
    std::fill(block.begin(), block.end(), std::byte{0});
    block[0] = std::byte{0xd1};  // magic
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::byte* p = block.data() + 1 + i * kEntryBytes;
      const Entry& e = entries[i];
      p[0] = std::byte{1};
      p[1] = static_cast<std::byte>(e.key.size());
      for (std::size_t k = 0; k < e.key.size(); ++k) p[2 + k] = static_cast<std::byte>(e.key[k]);
      p[8] = static_cast<std::byte>(e.start);
      p[9] = static_cast<std::byte>(e.length & 0xff);
      p[10] = static_cast<std::byte>(e.length >> 8);
    }
  }

  static std::vector<Entry> decode(const std::vector<std::byte>& block) {
    std::vector<Entry> entries;
    if (block[0] != std::byte{0xd1}) throw std::runtime_error("kv: no directory on the device (not formatted)");
    for (std::size_t i = 0; i < kSlots; ++i) {
      const std::byte* p = block.data() + 1 + i * kEntryBytes;
      if (p[0] != std::byte{1}) continue;
      Entry e;
      const auto len = std::min<std::size_t>(static_cast<std::size_t>(p[1]), kMaxKey);
      for (std::size_t k = 0; k < len; ++k) e.key += static_cast<char>(p[2 + k]);
      e.start = static_cast<std::uint8_t>(p[8]);
      e.length = static_cast<std::uint16_t>(static_cast<unsigned>(p[9]) | static_cast<unsigned>(p[10]) << 8);
      entries.push_back(std::move(e));
    }
    return entries;
  }

  duet::BlockDevice& disk_;
  std::vector<std::byte> block_;  // the directory sector's buffer
  std::vector<Entry> entries_;    // the directory, in memory
  bool dirty_ = false;            // Bug::stale_directory: entries_ ahead of the device
};

}  // namespace kv
