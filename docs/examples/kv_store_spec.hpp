// The state-machine spec of kv::Store (kv_store.hpp) against a std::map, with crash injection:
// every duet::fault_point of the block device may crash the store; recover() mounts a new store
// on what persisted, and the model goes on with the interrupted command taken effect or not.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <duet/async.hpp>
#include <duet/duet.hpp>
#include <duet/testing/block_device.hpp>

#include "kv_store.hpp"

namespace kv {

struct Get { std::string key; };
struct Set { std::string key, value; };
struct Remove { std::string key; };
struct Exists { std::string key; };
struct List {};
inline std::string duet_show(const Get& c) { return "get(" + duet::show(c.key) + ")"; }
inline std::string duet_show(const Set& c) { return "set(" + duet::show(c.key) + ", " + duet::show(c.value) + ")"; }
inline std::string duet_show(const Remove& c) { return "remove(" + duet::show(c.key) + ")"; }
inline std::string duet_show(const Exists& c) { return "exists(" + duet::show(c.key) + ")"; }
inline std::string duet_show(const List&) { return "list()"; }

/// The keys the scenarios use: few, so that operations meet on the same keys.
inline duet::Gen<std::string> keys() { return duet::element_of<std::string>({"a", "b", "c", "d", "e", "f"}); }

/// Values up to a little over two sectors, lengths spread evenly: multi-sector writes are where
/// a crash can split an update. A length and a first letter: "cdefg..." (two choices, so that
/// shrinking is quick and values of different lengths or letters differ).
inline duet::Gen<std::string> values() {
  return [](duet::Source& src) {
    const std::size_t n = duet::integers<std::size_t>(0, 150)(src);
    const int first = duet::integers<int>(0, 25)(src);
    std::string v(n, ' ');
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>('a' + (first + i) % 26);
    return v;
  };
}

/// Recoveries so far (tests count the crashes they made).
inline std::uint64_t recoveries = 0;

/// The store and the device it lives on: the device survives crashes, the store does not.
template <Bug bug>
struct Harness {
  explicit Harness(bool write_back) : disk({.sector_size = 64, .sectors = 64, .write_back = write_back}) {
    store = std::make_unique<Store<bug>>(disk);
    duet::run(store->format());
  }
  duet::BlockDevice disk;
  std::unique_ptr<Store<bug>> store;
};

template <Bug bug, bool write_back = false>
struct Spec {
  using Sut = Harness<bug>;
  using State = std::map<std::string, std::string>;
  using Cmd = std::variant<Get, Set, Remove, Exists, List>;
  static constexpr const char* sut_name = "kv";

  static std::unique_ptr<Sut> init_sut() { return std::make_unique<Sut>(write_back); }
  static std::string setup_cpp() { return "duet::BlockDevice disk; kv::Store kv(disk); duet::run(kv.format());"; }

  static duet::Gen<Cmd> command(const State&) {
    const auto key = keys();
    const auto value = values();
    return duet::frequency<Cmd>({
        {3, duet::construct<Get>(key).map([](Get g) -> Cmd { return g; })},
        {4, duet::construct<Set>(key, value).map([](Set s) -> Cmd { return s; })},
        {2, duet::construct<Remove>(key).map([](Remove r) -> Cmd { return r; })},
        {1, duet::construct<Exists>(key).map([](Exists e) -> Cmd { return e; })},
        {1, duet::just<Cmd>(List{})},
    });
  }

  // Every operation runs as a duet::run of the store's task: its schedule, and where it may
  // crash, come from the case's choice stream.
  static duet::Result run(const Cmd& c, Sut& s) {
    auto& st = *s.store;
    return std::visit(
        [&](const auto& cmd) -> duet::Result {
          using C = std::decay_t<decltype(cmd)>;
          if constexpr (std::is_same_v<C, Get>) return duet::Result(duet::run(st.get(cmd.key)));
          else if constexpr (std::is_same_v<C, Set>) return duet::capture([&] { duet::run(st.set(cmd.key, cmd.value)); });
          else if constexpr (std::is_same_v<C, Remove>) return duet::Result(duet::run(st.remove(cmd.key)));
          else if constexpr (std::is_same_v<C, Exists>) return duet::Result(duet::run(st.exists(cmd.key)));
          else return duet::Result(duet::run(st.list()));
        },
        c);
  }

  static duet::Result expected(const Cmd& c, const State& m) {
    return std::visit(
        [&](const auto& cmd) -> duet::Result {
          using C = std::decay_t<decltype(cmd)>;
          if constexpr (std::is_same_v<C, Get>) {
            auto it = m.find(cmd.key);
            return duet::Result(it == m.end() ? std::nullopt : std::optional<std::string>(it->second));
          } else if constexpr (std::is_same_v<C, Set>) {
            if (!m.contains(cmd.key) && m.size() == Store<bug>::kSlots) return duet::Result::exception("kv::Full", "kv: store full");
            return duet::Result();
          } else if constexpr (std::is_same_v<C, Remove>) {
            return duet::Result(m.contains(cmd.key));
          } else if constexpr (std::is_same_v<C, Exists>) {
            return duet::Result(m.contains(cmd.key));
          } else {
            std::vector<std::string> keys;
            for (const auto& [k, v] : m) keys.push_back(k);
            return duet::Result(keys);
          }
        },
        c);
  }

  static void next(const Cmd& c, State& m) {
    if (auto* s = std::get_if<Set>(&c)) {
      if (m.contains(s->key) || m.size() < Store<bug>::kSlots) m[s->key] = s->value;
    } else if (auto* r = std::get_if<Remove>(&c)) {
      m.erase(r->key);
    }
  }

  // After a crash: a new store mounted on what the device kept.
  static void recover(Sut& s) {
    ++recoveries;
    s.store = std::make_unique<Store<bug>>(s.disk);
    duet::run(s.store->mount());
  }
};

}  // namespace kv
