// Models of recorded histories: each compiles a partition's operations into a compact oracle
// for the one search core (include/duet/detail/search.hpp), and says how its histories split
// into independent parts (P-compositionality).
#pragma once

#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../history/quote.hpp"
#include "duet/detail/history_search.hpp"
#include "duet/history.hpp"
#include "duet/history_model.hpp"

namespace duet::history::detail {

/// Every operation in one part (models that do not partition, and --no-partition).
std::vector<std::vector<std::size_t>> single_part(const History& h);

/// duet's own models.
std::vector<const Model*> all_models();
/// The model named `name`: the caller's (`extra`, may be null) first, then duet's; nullptr if
/// there is none.
const Model* find_model(std::string_view name, const Models* extra = nullptr);

/// Interns values as dense ids (0 is reserved for "none" by the models that need it).
class Interner {
 public:
  Interner() { strings_.emplace_back(); }
  std::uint32_t id(const std::string& s) {
    auto [it, fresh] = ids_.try_emplace(s, static_cast<std::uint32_t>(strings_.size()));
    if (fresh) {
      strings_.push_back(s);
      bytes_ += 2 * s.capacity() + 96;  // the string twice (table and list), nodes, slots
    }
    return it->second;
  }
  const std::string& text(std::uint32_t id) const { return strings_[id]; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> strings_;
};

}  // namespace duet::history::detail
