// A map model over few keys (so that calls collide): insert(k, v) -> bool (inserted, like
// std::map::insert), find(k) -> optional, and, when the binding has them, erase(k) -> bool,
// count(k) -> size_t and size() -> size_t. Keys and values: the binding's keys() and values()
// when it has them (binding.hpp), else default_keys() and 0..9.
//
//   struct HashMap {
//     using Sut = tbb::concurrent_hash_map<int, int>;
//     static bool insert(Sut& m, int k, int v) { return m.insert({k, v}); }
//     static std::optional<int> find(Sut& m, int k) { ... }
//     static bool erase(Sut& m, int k) { return m.erase(k); }
//   };
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct Insert {
  int key, value;
};
struct Find {
  int key;
};
struct Erase {
  int key;
};
struct Count {
  int key;
};
inline std::string duet_show(const Insert& c) { return "insert(" + duet::show(c.key) + ", " + duet::show(c.value) + ")"; }
inline std::string duet_show(const Find& c) { return "find(" + duet::show(c.key) + ")"; }
inline std::string duet_show(const Erase& c) { return "erase(" + duet::show(c.key) + ")"; }
inline std::string duet_show(const Count& c) { return "count(" + duet::show(c.key) + ")"; }
struct MapSize {};
inline std::string duet_show(const MapSize&) { return "size()"; }

template <class Binding>
struct Map {
  using Sut = typename Binding::Sut;
  static constexpr bool has_erase = requires(Sut & m) { Binding::erase(m, 0); };
  static constexpr bool has_count = requires(Sut & m) { Binding::count(m, 0); };
  static constexpr bool has_size = requires(Sut & m) { Binding::size(m); };
  using State = std::map<int, int>;
  using Cmd = std::variant<Insert, Find, Erase, Count, MapSize>;
  static constexpr const char* sut_name = "m";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " m;"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"bool insert(int k, int v) { return static_cast<bool>(B::insert(s, k, v)); }",
                   "std::optional<int> find(int k) { return B::find(s, k); }",
                   has_erase ? "bool erase(int k) { return static_cast<bool>(B::erase(s, k)); }" : nullptr,
                   has_count ? "std::size_t count(int k) { return static_cast<std::size_t>(B::count(s, k)); }" : nullptr,
                   has_size ? "std::size_t size() { return static_cast<std::size_t>(B::size(s)); }" : nullptr});
  }
  /// The keys: the binding's keys() (binding.hpp), or default_keys(); the values: its
  /// values(), or 0..9.
  static Gen<int> keys() { return models::detail::keys_of<Binding>(); }
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() {
    return "keys " + models::detail::describe_ints(keys()) + " and values " + models::detail::describe_ints(values());
  }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = [] {
      auto key = keys();
      std::vector<std::pair<unsigned, Gen<Cmd>>> ops{
          {2, construct<Insert>(key, values()).map([](Insert i) { return Cmd(i); })},
          {2, construct<Find>(key).map([](Find f) { return Cmd(f); })}};
      if (has_erase) ops.push_back({1, construct<Erase>(key).map([](Erase e) { return Cmd(e); })});
      if (has_count) ops.push_back({1, construct<Count>(key).map([](Count c) { return Cmd(c); })});
      if (has_size) ops.push_back({1, just(Cmd(MapSize{}))});
      return frequency<Cmd>(std::move(ops));
    }();
    return gen;
  }
  static Result run(const Cmd& c, Sut& m) {
    if (auto* i = std::get_if<Insert>(&c)) return static_cast<bool>(Binding::insert(m, i->key, i->value));
    if (auto* f = std::get_if<Find>(&c)) return std::optional<int>(Binding::find(m, f->key));
    if constexpr (has_erase)
      if (auto* e = std::get_if<Erase>(&c)) return static_cast<bool>(Binding::erase(m, e->key));
    if constexpr (has_count)
      if (auto* n = std::get_if<Count>(&c)) return static_cast<std::size_t>(Binding::count(m, n->key));
    if constexpr (has_size)
      if (std::holds_alternative<MapSize>(c)) return static_cast<std::size_t>(Binding::size(m));
    return {};
  }
  static Result expected(const Cmd& c, const State& s) {
    if (auto* i = std::get_if<Insert>(&c)) return !s.count(i->key);
    if (auto* f = std::get_if<Find>(&c)) {
      auto it = s.find(f->key);
      return it == s.end() ? std::optional<int>() : std::optional<int>(it->second);
    }
    if (auto* e = std::get_if<Erase>(&c)) return s.count(e->key) > 0;
    if (std::holds_alternative<MapSize>(c)) return s.size();
    return static_cast<std::size_t>(s.count(std::get<Count>(c).key));
  }
  static void next(const Cmd& c, State& s) {
    if (auto* i = std::get_if<Insert>(&c)) s.emplace(i->key, i->value);
    else if (auto* e = std::get_if<Erase>(&c)) s.erase(e->key);
  }
};

}  // namespace duet::models
