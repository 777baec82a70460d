// The closest sequential witness of a parallel failure, as the report prints it when the spec
// prints its state (a spec's show_state, Lin::state, Api::state): the longest order of the calls
// the search explained, where each call ran and the state after it, the state the branches
// start from marked, then the calls the witness could not go on with.
//
//   closest sequential witness (the longest order of the calls the search explained: 1 of 2):
//               initially     state: 0  (before the branches)
//     branch 1  c.incr() : 1  state: 1
//   not explained after it: c.incr() : 1 (branch 0)
#pragma once

#include <string>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"

namespace duet::detail {

/// The witness's lines (a blank line first), or empty when the trace holds none.
std::string report_witness(const Trace& t);

}  // namespace duet::detail
