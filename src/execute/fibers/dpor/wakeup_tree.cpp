// Wakeup trees: insertion by weak initials (wakeup_tree.hpp).
#include "execute/fibers/dpor/wakeup_tree.hpp"

namespace duet::detail::fiber::dpor {

WakeupTree::Node WakeupTree::take_first() {
  Node first = std::move(children_.front());
  children_.erase(children_.begin());
  return first;
}

WakeupTree::Inserted WakeupTree::insert(std::span<const Step> w, const NextStep& next) {
  std::vector<Step> rest(w.begin(), w.end());
  std::vector<Node>* level = &children_;
  bool root = true;
  while (!rest.empty()) {
    Node* follow = nullptr;
    for (Node& child : *level) {
      // A branch's step is its fiber's next step at that state; at the root, the state's own
      // record of it is taken (the branch may come from a run that numbered objects otherwise).
      const std::uint32_t p = child.step.fiber;
      if (weak_initial(p, rest, root ? next(p) : &child.step)) {
        follow = &child;
        break;
      }
    }
    if (follow == nullptr) break;
    if (follow->children.empty()) return Inserted::covered;
    rest = without_first_of(follow->step.fiber, rest);
    level = &follow->children;
    root = false;
  }
  if (rest.empty()) return Inserted::covered;
  // Append rest as a chain under `level`.
  Node chain{.step = rest.back(), .children = {}};
  for (std::size_t k = rest.size() - 1; k-- > 0;) chain = Node{.step = rest[k], .children = {std::move(chain)}};
  level->push_back(std::move(chain));
  return Inserted::added;
}

}  // namespace duet::detail::fiber::dpor
