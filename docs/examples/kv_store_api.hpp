// kv::Store (kv_store.hpp) described as a duet::Api, with crash injection: the same subject as
// kv_store_spec.hpp, in the reference-vs-candidate front end. Each store is a handle (`db0`)
// whose reference value is a std::map; Api::recover remounts a crashed store from its device,
// and the reference goes on in every world the interrupted call may have left.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <duet/api.hpp>
#include <duet/async.hpp>
#include <duet/testing/block_device.hpp>

#include "kv_store.hpp"
#include "kv_store_spec.hpp"

namespace kv {

/// A store and the device it lives on, shared by the handle's copies (one world's candidate is
/// the same store as another's): the device survives crashes, the store does not.
template <Bug bug>
class Handle {
 public:
  explicit Handle(bool write_back) : h_(std::make_shared<Parts>(write_back)) {
    h_->store = std::make_unique<Store<bug>>(h_->disk);
    duet::run(h_->store->format());
  }
  Store<bug>& store() const { return *h_->store; }
  /// After a crash: a new store mounted on what the device kept.
  void remount() {
    ++remounts;
    h_->store = std::make_unique<Store<bug>>(h_->disk);
    duet::run(h_->store->mount());
  }
  static inline std::uint64_t remounts = 0;  // tests count the crashes they made

 private:
  struct Parts {
    explicit Parts(bool write_back) : disk({.sector_size = 64, .sectors = 64, .write_back = write_back}) {}
    duet::BlockDevice disk;
    std::unique_ptr<Store<bug>> store;
  };
  std::shared_ptr<Parts> h_;
};

/// The API: open, set, get, remove, exists, list; the reference is a std::map with room for
/// kSlots keys, like the store's directory. `crashes`: declare recover (crash injection on).
template <Bug bug, bool write_back = false>
duet::Api api(bool crashes = true) {
  using Map = std::map<std::string, std::string>;
  using H = Handle<bug>;
  duet::Api api("kv");
  auto db = api.abstract<Map, H>("db");
  if (crashes) api.recover(db, [](H& h) { h.remount(); });
  const auto key = keys();  // kv_store_spec.hpp
  const auto value = values();
  api.op("open", duet::args(), db, [] { return Map{}; }, [] { return H(write_back); });
  api.op(
      "set", duet::args(db, key, value), duet::may_throw(duet::unit()),
      [](Map& m, const std::string& k, const std::string& v) {
        if (!m.contains(k) && m.size() == Store<bug>::kSlots) throw Full();
        m[k] = v;
      },
      [](H& h, const std::string& k, const std::string& v) { duet::run(h.store().set(k, v)); });
  api.op(
      "get", duet::args(db, key), duet::value<std::optional<std::string>>(),
      [](Map& m, const std::string& k) {
        auto it = m.find(k);
        return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      [](H& h, const std::string& k) { return duet::run(h.store().get(k)); });
  api.op(
      "remove", duet::args(db, key), duet::value<bool>(), [](Map& m, const std::string& k) { return m.erase(k) > 0; },
      [](H& h, const std::string& k) { return duet::run(h.store().remove(k)); });
  api.op(
      "exists", duet::args(db, key), duet::value<bool>(), [](Map& m, const std::string& k) { return m.contains(k); },
      [](H& h, const std::string& k) { return duet::run(h.store().exists(k)); });
  api.op(
      "list", duet::args(db), duet::value<std::vector<std::string>>(),
      [](Map& m) {
        std::vector<std::string> keys;
        for (const auto& [k, v] : m) keys.push_back(k);
        return keys;
      },
      [](H& h) { return duet::run(h.store().list()); });
  return api;
}

}  // namespace kv
