// duet::Lin over libcuckoo's concurrent hash map (Debian's libcuckoo-dev, header-only), unmodified:
// insert, find and erase on four keys. tests/instrumented/real_libraries_test.cpp checks it on
// fibers (a small table); bench/parallel_bench.cpp measures it as the subject costly to make (a
// large one). Include it only where <libcuckoo/cuckoohash_map.hh> is found (DUET_HAVE_LIBCUCKOO).
#pragma once

#include <duet/gen.hpp>
#include <duet/lin.hpp>

#include <libcuckoo/cuckoohash_map.hh>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace cuckoo_subject {

using CuckooMap = libcuckoo::cuckoohash_map<int, int>;

/// The check named `name`, on a map made with room for `slots` entries (the default holds 2^16,
/// all written by the constructor).
inline duet::Lin<CuckooMap> cuckoo_lin(std::string name, std::size_t slots) {
  duet::Lin<CuckooMap> lin(std::move(name), "m");
  lin.init([slots] { return std::make_unique<CuckooMap>(slots); },
           "libcuckoo::cuckoohash_map<int, int> m(" + std::to_string(slots) + ");")
      .op(
          "insert", [](CuckooMap& m, int k, int v) { return m.insert(k, v); }, duet::integers(0, 3), duet::integers(0, 9))
      .op(
          "find",
          [](CuckooMap& m, int k) {
            int v = 0;
            return m.find(k, v) ? std::optional<int>(v) : std::nullopt;
          },
          duet::integers(0, 3))
      .op(
          "erase", [](CuckooMap& m, int k) { return m.erase(k); }, duet::integers(0, 3));
  return lin;
}

}  // namespace cuckoo_subject
