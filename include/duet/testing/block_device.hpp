// A mock block device for async storage code under duet::run: sector-sized reads and writes
// over an in-memory byte array, a switch point between sectors (so other tasks interleave with
// a multi-sector write), a duet::fault_point before each sector written or flushed (so a crash
// can land between any two; reads change nothing that persists, so they are not crash points), and optional write-back caching, where a crash loses any subset of the sectors
// written since the last flush (drawn from the choice stream).
//
//   duet::BlockDevice disk({.sector_size = 64, .sectors = 32, .write_back = true});
//   std::array<std::byte, 64> block{};
//   co_await disk.write(3, block);      // may crash before it, in a crash-injecting check
//   co_await disk.flush();
//   co_await disk.read(3, block);
//
// The device outlives the candidate built on it: after a crash, the spec's recover builds a
// new candidate over the same device, which holds what persisted.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/async.hpp"
#include "duet/faults.hpp"
#include "duet/source.hpp"
#include "duet/sync.hpp"

namespace duet {

struct BlockDeviceOptions {
  std::size_t sector_size = 512;
  std::uint64_t sectors = 64;
  /// Writes wait in a cache until flush(); a crash keeps any subset of them.
  bool write_back = false;
};

class BlockDevice : public crash_listener {
 public:
  using Options = BlockDeviceOptions;
  struct Stats {
    std::uint64_t sectors_read = 0, sectors_written = 0, flushes = 0;
    std::uint64_t crashes = 0, sectors_lost = 0;  // unflushed sectors a crash dropped
  };

  explicit BlockDevice(Options options = {}) : o_(options), bytes_(options.sector_size * options.sectors) {
    if (o_.sector_size == 0 || o_.sectors == 0) throw std::invalid_argument("duet::BlockDevice: empty geometry");
  }

  std::size_t sector_size() const noexcept { return o_.sector_size; }
  std::uint64_t sectors() const noexcept { return o_.sectors; }

  /// Reads whole sectors from `sector` into `out` (a multiple of the sector size).
  task<void> read(std::uint64_t sector, std::span<std::byte> out) {
    const std::uint64_t n = count(sector, out.size(), "read");
    for (std::uint64_t i = 0; i < n; ++i) {
      duet::switch_point();  // no fault point: a crash during a read leaves what one before it would
      const std::byte* from = current(sector + i);
      std::copy(from, from + o_.sector_size, out.data() + i * o_.sector_size);
      ++stats_.sectors_read;
    }
    co_return;
  }

  /// Writes whole sectors from `data` (a multiple of the sector size), one at a time: a crash
  /// may leave the first ones written and the rest not.
  task<void> write(std::uint64_t sector, std::span<const std::byte> data) {
    const std::uint64_t n = count(sector, data.size(), "write");
    for (std::uint64_t i = 0; i < n; ++i) {
      duet::switch_point();
      fault_point("disk.write", "sector", sector + i);
      const std::byte* from = data.data() + i * o_.sector_size;
      if (o_.write_back) cache_[sector + i].assign(from, from + o_.sector_size);
      else std::copy(from, from + o_.sector_size, bytes_.data() + (sector + i) * o_.sector_size);
      ++stats_.sectors_written;
    }
    co_return;
  }

  /// Makes every write before it durable (with write-back caching; otherwise a switch point).
  task<void> flush() {
    duet::switch_point();
    fault_point("disk.flush");
    ++stats_.flushes;
    while (!cache_.empty()) {
      auto it = cache_.begin();
      std::copy(it->second.begin(), it->second.end(), bytes_.data() + it->first * o_.sector_size);
      cache_.erase(it);
      if (!cache_.empty()) {
        duet::switch_point();
        fault_point("disk.flush", "sector", cache_.begin()->first);
      }
    }
    co_return;
  }

  /// What is on the medium (not what a read returns while writes wait in the cache).
  std::span<const std::byte> durable() const noexcept { return bytes_; }
  std::size_t unflushed_sectors() const noexcept { return cache_.size(); }
  const Stats& stats() const noexcept { return stats_; }

  /// A crash: each unflushed sector persists or is lost, drawn from `src` (draw 0, what the
  /// shrinker moves toward, loses it).
  void on_crash(Source& src) override {
    ++stats_.crashes;
    for (auto& [s, data] : cache_) {
      if (src.draw(1) == 1) std::copy(data.begin(), data.end(), bytes_.data() + s * o_.sector_size);
      else ++stats_.sectors_lost;
    }
    cache_.clear();
  }

 private:
  std::uint64_t count(std::uint64_t sector, std::size_t bytes, const char* op) const {
    if (bytes % o_.sector_size != 0)
      throw std::invalid_argument(std::string("duet::BlockDevice::") + op + ": " + std::to_string(bytes) +
                                  " bytes is not a whole number of " + std::to_string(o_.sector_size) + "-byte sectors");
    const std::uint64_t n = bytes / o_.sector_size;
    if (sector > o_.sectors || n > o_.sectors - sector)
      throw std::out_of_range(std::string("duet::BlockDevice::") + op + ": sectors " + std::to_string(sector) + " to " +
                              std::to_string(sector + n) + " past the end (" + std::to_string(o_.sectors) + " sectors)");
    return n;
  }
  const std::byte* current(std::uint64_t s) const {
    if (auto it = cache_.find(s); it != cache_.end()) return it->second.data();
    return bytes_.data() + s * o_.sector_size;
  }

  Options o_;
  std::vector<std::byte> bytes_;
  std::map<std::uint64_t, std::vector<std::byte>> cache_;  // write-back: sector -> data
  Stats stats_;
};

}  // namespace duet
