// The choice tap: a copy of one Source's choices, spans and concurrent mark, kept up to date as
// it draws, in memory that survives the process that draws (isolation mode maps it shared
// before forking the child that runs cases). When the child crashes, hangs or exits in the
// middle of a case, the parent reads the case's choices from here and can shrink it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "duet/source.hpp"

namespace duet::detail {

struct ChoiceTap {
  const Source* source = nullptr;  // the one Source mirrored
  std::uint64_t* choices = nullptr;
  std::size_t capacity = 0;
  Source::Span* spans = nullptr;
  std::size_t span_capacity = 0;
  // What the mirrored Source holds now. Counts may pass the capacities (then only the first
  // `capacity` entries are kept, and the reader knows it).
  volatile std::uint64_t* count = nullptr;
  volatile std::uint64_t* span_count = nullptr;
  volatile std::uint64_t* concurrent_start = nullptr;
};

}  // namespace duet::detail
