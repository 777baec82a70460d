// What the sources of duet's own models share (models_register_kv.cpp, models_multi_register.cpp,
// models_queue_set_counter.cpp): the helpers every model's compiling uses, and one maker per
// model, so that the registry (all_models, models.cpp) lists them all in one place while each
// family keeps its oracle and its parsing of operations to itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "duet/hash.hpp"
#include "check/model.hpp"

namespace duet::history::detail {

// The memo's hash of a state made of interned ids (per key, per register, queue or set contents).
inline std::uint64_t hash_ids(std::uint64_t seed, std::span<const std::uint32_t> ids) {
  for (std::uint32_t v : ids) seed = duet::detail::hash_combine(seed, v);
  return seed;
}

// How an operation ended, as the compiled operations record it.
inline Mode mode_of(const Operation& op) {
  if (op.outcome == Outcome::info) return Mode::pending;
  if (op.result_unknown) return Mode::unknown_result;
  return op.outcome == Outcome::fail ? Mode::fail : Mode::ok;
}

// ---- the models, one maker each (all_models names them) ----
/// A register with read, write and cas, named `name`, starting at `start` (nullopt: nil) unless
/// --init says otherwise (models_register_kv.cpp).
std::unique_ptr<const Model> make_cas_register(std::string_view name, std::optional<std::int64_t> start,
                                               std::string_view summary);
/// Porcupine's key-value store (models_register_kv.cpp).
std::unique_ptr<const Model> make_kv();
/// Knossos' multi-register (models_multi_register.cpp).
std::unique_ptr<const Model> make_multi_register();
/// The FIFO queue, the set and the counter (models_queue_set_counter.cpp).
std::unique_ptr<const Model> make_queue();
std::unique_ptr<const Model> make_set();
std::unique_ptr<const Model> make_counter();

}  // namespace duet::history::detail
