// The copy assignment of the ready-made models' states (include/duet/detail/erased_oracle.hpp),
// compiled once.
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "duet/detail/erased_oracle.hpp"

namespace duet::detail {

void assign_state(std::deque<int>& to, const std::deque<int>& from) { to = from; }
void assign_state(std::vector<int>& to, const std::vector<int>& from) { to = from; }
void assign_state(std::set<int>& to, const std::set<int>& from) { to = from; }
void assign_state(std::map<int, int>& to, const std::map<int, int>& from) { to = from; }

}  // namespace duet::detail
