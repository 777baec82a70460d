// What the demo's sections share: a line of the closing summary per check, and how a found bug
// or a pass is printed and summarised.
#pragma once

#include <string>
#include <vector>

#include <duet/check_result.hpp>

namespace demo {

struct Line {
  std::string what;
  bool ok;
  std::string detail;
};

/// Prints the report of a check that must fail, and summarises it: found after how many
/// cases or trials (`where` the trials ran: "on threads", "on fibers"), and how far it shrank.
void expect_bug(std::vector<Line>& summary, const std::string& what, const duet::CheckResult& r,
                const char* where = "on threads");
/// Prints the report of a check that must pass only when it did not, and summarises it.
void expect_pass(std::vector<Line>& summary, const std::string& what, const duet::CheckResult& r,
                 const char* where = "on threads");

/// Demos 8 and 9: plain std::atomic code compiled through duet_instrument, on the fiber
/// scheduler (src/demo/fibers_demo.cpp); where the compiler cannot instrument, they say so.
void fiber_demos(std::vector<Line>& summary);

}  // namespace demo
