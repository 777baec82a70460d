// A compare-and-set that checks, then writes, under no lock, found with four branches.
#include <duet/gtest.hpp>
#include <duet/models/register.hpp>

#include <atomic>
#include <thread>

namespace {

struct RacyCasRegister {
  using Sut = std::atomic<int>;
  static void write(Sut& r, int v) { r.store(v); }
  static int read(Sut& r) { return r.load(); }
  static bool cas(Sut& r, int expected, int v) {
    if (r.load() != expected) return false;
    std::this_thread::yield();
    r.store(v);
    return true;
  }
};

TEST(NegativeRegister, RacyCasFoundWithFourBranches) {
  const duet::CheckResult r =
      duet::expect_unsafe<duet::models::Register<RacyCasRegister>>({.branches = 4});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
