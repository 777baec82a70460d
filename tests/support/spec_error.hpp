// What every spec error must look like, whatever the front end or the executor: mistakes in the
// spec's own code (a generator, a precondition or init_sut that throws) are errors naming the
// function, the exception and the case's replay token, once; nothing is shrunk and no draft
// test is written; the token replays the same error.
#pragma once

#include <duet/gtest.hpp>

#include <filesystem>
#include <string>

namespace duet_test {

inline std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

template <class Check>
void expect_spec_error(const Check& check, const std::string& who, const std::string& exception) {
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  const std::string dir =
      ::testing::TempDir() + "duet_spec_error_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(dir);
  const duet::CheckResult r = check(duet::Config{.seed = 1, .output_dir = dir});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_EQ(count_of(r.report, who + " threw " + exception), 1u) << r.report;
  EXPECT_EQ(count_of(r.report, exception), 1u) << "the exception is named once:\n" << r.report;
  ASSERT_FALSE(r.replay_token.empty()) << r.report;
  EXPECT_EQ(count_of(r.report, "DUET_REPLAY=" + r.replay_token), 1u) << r.report;
  EXPECT_TRUE(r.draft_path.empty()) << r.report;
  EXPECT_FALSE(has(r.report, "draft test")) << r.report;
  EXPECT_FALSE(std::filesystem::exists(dir)) << "nothing is written for a spec error";
  EXPECT_EQ(r.shrink_tries, 0u) << r.report;
  EXPECT_FALSE(has(r.report, "shrunk")) << r.report;
  EXPECT_FALSE(has(r.report, "replays)")) << r.report;
  const duet::CheckResult again = check(duet::Config{.replay = r.replay_token, .output_dir = dir});
  EXPECT_EQ(again.status, duet::CheckResult::Status::error) << again.report;
  EXPECT_EQ(count_of(again.report, who + " threw " + exception), 1u) << again.report;
  std::filesystem::remove_all(dir);
}

}  // namespace duet_test
