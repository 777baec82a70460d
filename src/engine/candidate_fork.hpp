// A child that the candidate makes with fork() while a check runs is a copy of the whole test
// process. If it returns into duet's code, it runs the rest of the check and of the test program
// a second time (its output repeating the parent's), and forks again wherever the candidate
// does: a candidate that forks on a call is a fork bomb. duet ends such a child where control
// comes back from the candidate. duet's own forks (isolation's child) are not the candidate's.
#pragma once

#include "duet/detail/candidates_child.hpp"

namespace duet::detail {

/// The exit status of a candidate's child that duet ended.
inline constexpr int kCandidateChildReturned = 5;

/// A check runs in this process while one lives (each check's Monitor holds one): a fork() then
/// is the candidate's, unless duet makes it.
class CheckRunning {
 public:
  CheckRunning();
  ~CheckRunning();
  CheckRunning(const CheckRunning&) = delete;
  CheckRunning& operator=(const CheckRunning&) = delete;
};

/// duet forks a child of its own (isolation's) on this thread while one lives.
class OwnFork {
 public:
  OwnFork();
  ~OwnFork();
  OwnFork(const OwnFork&) = delete;
  OwnFork& operator=(const OwnFork&) = delete;
};

}  // namespace duet::detail
