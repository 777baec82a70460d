// main() for GoogleTest binaries that use duet: GoogleTest's flags, then duet's --duet_*.
#include <cstdio>
#include <stdexcept>

#include "duet/gtest.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  try {
    duet::parse_flags(&argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "duet: %s\n", e.what());
    return 2;
  }
  return RUN_ALL_TESTS();
}
