// Draft reproducer written by duet for fiber_subjects::OffByOneSpec.
// no linearizable order of the calls explains the results in this program:
//           c.incr() : 2
//           ---------+----------
// It runs the program on threads until the results duet found unexplained come back (then it
// fails); on threads that is a matter of chance, so a pass proves little: run it under
// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().
// duet's replay re-checks every order of the calls: DUET_REPLAY=duet1.(masked)
// Add the #include lines for your types.
#include <duet/result.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

TEST(fiber_subjects_OffByOneSpec, DuetRepro) {
  const std::vector<std::string> unexplained = {"2"};
  for (int trial = 0; trial < 10000; ++trial) {
    fiber_subjects::OffByOneCounter c;
    duet::Result r1;
    r1 = duet::capture([&] { return c.incr(); });
    std::atomic<int> ready{0};  // the branches start together
    std::thread t0([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
    });
    std::thread t1([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
    });
    t0.join();
    t1.join();
    const std::vector<std::string> results = {r1.show()};
    ASSERT_NE(results, unexplained) << "trial " << trial << ": no order of the calls gives these results";
  }
}
