// Sequential subjects for the golden draft tests of failures found by a check after a step (an
// invariant): compiled with DUET_DRAFT_FIXED defined, the bug is fixed, and the golden draft must
// then pass (tests/golden/draft_fixed_main.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace draft_subjects {

// A stack that holds at most kCapacity values; push does not check (fixed: it drops the value).
class CappedStack {
 public:
  static constexpr std::size_t kCapacity = 2;
  void push(int x) {
#ifdef DUET_DRAFT_FIXED
    if (items_.size() == kCapacity) return;
#endif
    items_.push_back(x);
  }
  int top() const { return items_.empty() ? -1 : items_.back(); }
  std::size_t size() const { return items_.size(); }
  const std::vector<int>& items() const { return items_; }

 private:
  std::vector<int> items_;
};

}  // namespace draft_subjects
