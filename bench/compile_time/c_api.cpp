// Case (c): a duet::Api reference-vs-candidate test, README's persistent array (abstract type,
// three operations), as in docs/examples/persistent_array.hpp.
// The front end's own header and the GoogleTest glue, as the docs recommend; a tree from
// before the glue had its own header compiles the umbrella instead (the "before" column).
#if __has_include(<duet/gtest_glue.hpp>)
#include <duet/api.hpp>
#include <duet/gtest_glue.hpp>
#else
#include <duet/gtest.hpp>
#endif

#include <cstdint>
#include <memory>
#include <vector>

namespace ref {
using Array = std::vector<std::int64_t>;
inline Array make(int n, std::int64_t x) { return Array(static_cast<std::size_t>(n), x); }
inline std::int64_t get(const Array& a, int i) { return a.at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  Array b = a;
  b.at(static_cast<std::size_t>(i)) = x;
  return b;
}
}  // namespace ref

namespace my {
using Array = std::shared_ptr<const std::vector<std::int64_t>>;
inline Array make(int n, std::int64_t x) {
  return std::make_shared<const std::vector<std::int64_t>>(static_cast<std::size_t>(n), x);
}
inline std::int64_t get(const Array& a, int i) { return a->at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  auto b = std::make_shared<std::vector<std::int64_t>>(*a);
  b->at(static_cast<std::size_t>(i)) = x;
  return b;
}
}  // namespace my

TEST(PersistentArray, AgreesWithCopyingReference) {
  auto nonempty = [](const ref::Array& a) { return !a.empty(); };
  auto index_into = [](const ref::Array& a) { return duet::integers(0, static_cast<int>(a.size()) - 1); };
  duet::Api api("PersistentArray");
  auto array = api.abstract<ref::Array, my::Array>("a");
  api.op("make", duet::args(duet::integers(0, 15), duet::sequential()), array, ref::make, my::make);
  api.op("set", duet::args(array.where(nonempty), index_into, duet::sequential()), array, ref::set, my::set);
  api.op("get", duet::args(array.where(nonempty), index_into), duet::value<std::int64_t>(), ref::get, my::get);
  EXPECT_TRUE(api.check());
}
