// Small specs that the engine's own tests share.
#pragma once

#include <duet/gtest.hpp>

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace duet_test {

// A growable array whose at() has an off-by-one bounds check: the last element is reported
// out of range.
struct BadBoundsArray {
  std::vector<int> v;
  void push_back(int x) { v.push_back(x); }
  int at(std::size_t i) const {
    if (i + 1 >= v.size()) throw std::out_of_range("BadBoundsArray::at");
    return v[i];
  }
};
struct PushBack {
  int x;
};
struct At {
  std::size_t i;
};
inline std::string duet_show(const PushBack& c) { return "push_back(" + duet::show(c.x) + ")"; }
inline std::string duet_show(const At& c) { return "at(" + std::to_string(c.i) + ")"; }

struct BadBoundsSpec {
  using Sut = BadBoundsArray;
  using State = std::vector<int>;
  using Cmd = std::variant<PushBack, At>;
  static constexpr const char* sut_name = "a";
  static duet::Gen<Cmd> command(const State& s) {
    if (s.empty()) return duet::construct<PushBack>(duet::range(0, 9)).map([](PushBack p) { return Cmd(p); });
    return duet::one_of(duet::construct<PushBack>(duet::range(0, 9)).map([](PushBack p) { return Cmd(p); }),
                        duet::integers<std::size_t>(0, s.size() - 1).map([](std::size_t i) { return Cmd(At{i}); }));
  }
  static duet::Result run(const Cmd& c, Sut& a) {
    if (auto* p = std::get_if<PushBack>(&c)) {
      a.push_back(p->x);
      return {};
    }
    return a.at(std::get<At>(c).i);  // the engine captures the exception
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<PushBack>(c)) return {};
    return s.at(std::get<At>(c).i);
  }
  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<PushBack>(&c)) s.push_back(p->x);
  }
};

}  // namespace duet_test
