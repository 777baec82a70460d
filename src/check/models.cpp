// The models duet-check knows: registers with compare-and-set, key-value stores, multi-register
// transactions, queues, sets and counters. Each turns a partition's operations into a compact
// table (integers and interned ids) once, so that the search applies an operation in a few
// instructions.
// This file holds what they all share (how an operation is rejected, the single part) and the
// registry that lists them (all_models, find_model); the models themselves are by family in
// models_register_kv.cpp, models_multi_register.cpp and models_queue_set_counter.cpp, with
// what those share in models.hpp.
#include <memory>
#include <string>

#include "check/models.hpp"

namespace duet::history::detail {

void reject(const History& h, const Operation& op, const std::string& what) {
  // An operation recorded in memory (a Recorder) has no line: the source alone.
  const std::string at = op.invoke_line > 0 ? h.source + ":" + std::to_string(op.invoke_line) : h.source;
  throw std::invalid_argument(at + ": " + what + " (" + describe(op) + ")");
}

std::vector<std::vector<std::size_t>> single_part(const History& h) {
  std::vector<std::size_t> all(h.ops.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return {std::move(all)};
}

}  // namespace duet::history::detail

namespace duet::history {
std::vector<std::vector<std::size_t>> Model::partition(const History& h) const { return detail::single_part(h); }
}  // namespace duet::history

namespace duet::history::detail {

std::vector<const Model*> all_models() {
  static const std::unique_ptr<const Model> cas_register =
      make_cas_register("cas-register", std::nullopt,
                        "register with read, write, cas; starts empty (nil) unless --init or the format says otherwise");
  static const std::unique_ptr<const Model> cas_register_0 =
      make_cas_register("cas-register-0", 0, "cas-register starting at 0 (the same as --model cas-register --init 0)");
  static const std::unique_ptr<const Model> kv = make_kv();
  static const std::unique_ptr<const Model> multi_register = make_multi_register();
  static const std::unique_ptr<const Model> queue = make_queue();
  static const std::unique_ptr<const Model> set = make_set();
  static const std::unique_ptr<const Model> counter = make_counter();
  return {cas_register.get(), cas_register_0.get(), kv.get(), multi_register.get(), queue.get(), set.get(), counter.get()};
}

const Model* find_model(std::string_view name, const Models* extra) {
  if (extra != nullptr)
    if (const Model* m = extra->find(name)) return m;
  for (const Model* m : all_models())
    if (m->name() == name) return m;
  return nullptr;
}

}  // namespace duet::history::detail
