// A write-back cache of small records over a write-back block device, whose flusher task writes
// on a fiber of its own (duet::spawn): crashes injected there land on a spawned fiber, not on
// the root of the duet::run.
//
// put() changes a record in memory and marks it dirty; flush() hands the dirty records to a
// flusher task, waits for it, then flushes the device. The spec's put() is put() then flush(),
// so a put that returned is durable and a crash loses at most the put it interrupted.
//
// Bug::flush_returns_early: flush() flushes the device without waiting for the flusher, so it
// can return while a write is still in flight; that write lands in the device's cache after
// the flush, and a later crash may lose it although its put() had returned.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include <duet/api.hpp>
#include <duet/async.hpp>
#include <duet/duet.hpp>
#include <duet/testing/block_device.hpp>

namespace wbc {

enum class Bug { none, flush_returns_early };

inline constexpr std::uint64_t kSlots = 4;
inline constexpr std::size_t kSector = 8;

template <Bug bug>
class Cache {
 public:
  explicit Cache(duet::BlockDevice& disk) : disk_(disk) {}

  /// Reads every record from the device (after a crash: what persisted).
  duet::task<void> mount() {
    std::array<std::byte, kSector> block{};
    for (std::uint64_t s = 0; s < kSlots; ++s) {
      co_await disk_.read(s, block);
      values_[s] = static_cast<int>(block[0]);
      dirty_[s] = false;
    }
  }

  void put(std::uint64_t slot, int value) {
    values_[slot] = value;
    dirty_[slot] = true;
  }
  int get(std::uint64_t slot) const { return values_[slot]; }

  duet::task<void> flush() {
    std::vector<std::pair<std::uint64_t, int>> batch;
    for (std::uint64_t s = 0; s < kSlots; ++s)
      if (std::exchange(dirty_[s], false)) batch.emplace_back(s, values_[s]);
    auto flusher = duet::spawn(write_all(std::move(batch)));
    if constexpr (bug == Bug::none) co_await flusher;
    co_await disk_.flush();
  }

 private:
  duet::task<void> write_all(std::vector<std::pair<std::uint64_t, int>> batch) {
    for (const auto& [slot, value] : batch) {
      std::array<std::byte, kSector> block{};
      block[0] = static_cast<std::byte>(value);
      co_await disk_.write(slot, block);
    }
  }

  duet::BlockDevice& disk_;
  std::array<int, kSlots> values_{};
  std::array<bool, kSlots> dirty_{};
};

struct Put {
  std::uint64_t slot;
  int value;
};
struct Get {
  std::uint64_t slot;
};
inline std::string duet_show(const Put& c) { return "put(" + std::to_string(c.slot) + ", " + std::to_string(c.value) + ")"; }
inline std::string duet_show(const Get& c) { return "get(" + std::to_string(c.slot) + ")"; }

inline std::uint64_t recoveries = 0;  // tests count the crashes they made

template <Bug bug>
struct Harness {
  duet::BlockDevice disk{{.sector_size = kSector, .sectors = kSlots, .write_back = true}};
  std::unique_ptr<Cache<bug>> cache = std::make_unique<Cache<bug>>(disk);
};

template <Bug bug>
struct Spec {
  using Sut = Harness<bug>;
  using State = std::array<int, kSlots>;
  using Cmd = std::variant<Put, Get>;
  static constexpr const char* sut_name = "cache";
  static constexpr std::uint64_t crash_one_in = 10;

  static std::unique_ptr<Sut> init_sut() { return std::make_unique<Sut>(); }
  static duet::Gen<Cmd> command(const State&) {
    const auto slot = duet::integers<std::uint64_t>(0, kSlots - 1);
    return duet::frequency<Cmd>({
        {3, duet::construct<Put>(slot, duet::integers<int>(1, 9)).map([](Put p) -> Cmd { return p; })},
        {2, duet::construct<Get>(slot).map([](Get g) -> Cmd { return g; })},
    });
  }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (const auto* p = std::get_if<Put>(&c)) {
      s.cache->put(p->slot, p->value);
      duet::run(s.cache->flush());
      return duet::Result();
    }
    return duet::Result(s.cache->get(std::get<Get>(c).slot));
  }
  static duet::Result expected(const Cmd& c, const State& m) {
    if (std::holds_alternative<Put>(c)) return duet::Result();
    return duet::Result(m[std::get<Get>(c).slot]);
  }
  static void next(const Cmd& c, State& m) {
    if (const auto* p = std::get_if<Put>(&c)) m[p->slot] = p->value;
  }
  static void recover(Sut& s) {
    ++recoveries;
    s.cache = std::make_unique<Cache<bug>>(s.disk);
    duet::run(s.cache->mount());
  }
};

/// The same cache as a duet::Api: a handle shared by the worlds a crash leaves (the device
/// survives crashes, the cache does not), the reference an array of the records.
template <Bug bug>
class Handle {
 public:
  Cache<bug>& cache() const { return *h_->cache; }
  void remount() {
    ++recoveries;
    h_->cache = std::make_unique<Cache<bug>>(h_->disk);
    duet::run(h_->cache->mount());
  }

 private:
  std::shared_ptr<Harness<bug>> h_ = std::make_shared<Harness<bug>>();
};

template <Bug bug>
duet::Api api() {
  using Ref = std::array<int, kSlots>;
  using H = Handle<bug>;
  duet::Api api("cache");
  auto cache = api.abstract<Ref, H>("cache");
  api.recover(cache, [](H& h) { h.remount(); });
  const auto slot = duet::integers<std::uint64_t>(0, kSlots - 1);
  api.op(
      "open", duet::args(), cache, [] { return Ref{}; }, [] { return H(); });
  api.op(
      "put", duet::args(cache, slot, duet::integers<int>(1, 9)), duet::unit(),
      [](Ref& r, std::uint64_t s, int v) { r[s] = v; },
      [](H& h, std::uint64_t s, int v) {
        h.cache().put(s, v);
        duet::run(h.cache().flush());
      });
  api.op(
      "get", duet::args(cache, slot), duet::value<int>(), [](Ref& r, std::uint64_t s) { return r[s]; },
      [](H& h, std::uint64_t s) { return h.cache().get(s); });
  return api;
}

}  // namespace wbc
