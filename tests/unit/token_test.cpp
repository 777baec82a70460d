#include "report/token.hpp"
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/case_files.hpp"
#include "show/text.hpp"

namespace {

using duet::detail::decode_token;
using duet::detail::encode_token;
using duet::detail::ReplayRecord;

TEST(Token, RoundTrips) {
  ReplayRecord r{0xdeadbeef, 0x0123456789abcdefULL, 4242, 17, 55, 7, {0, 1, 127, 128, ~0ULL, 300}, {}};
  const std::string t = encode_token(r);
  EXPECT_EQ(t.rfind("duet1.", 0), 0u);
  for (char c : t) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') << t;
  const ReplayRecord back = decode_token(t);
  EXPECT_EQ(back.spec_id, r.spec_id);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.cases, r.cases);
  EXPECT_EQ(back.shrink_steps, r.shrink_steps);
  EXPECT_EQ(back.max_length, 55u);
  EXPECT_EQ(back.continue_odds, 7u);
  EXPECT_EQ(back.choices, r.choices);
  EXPECT_FALSE(back.case_seed);
  EXPECT_EQ(decode_token("DUET_REPLAY=" + t + "\n").choices, r.choices);  // pasted whole line
}

TEST(Token, SeedTokensRoundTrip) {
  ReplayRecord r{1, 2, 3, 0, 100, 10, {}, 99};
  EXPECT_EQ(decode_token(encode_token(r)).case_seed, 99u);
  // The allocation-free writer used by the crash handler makes the same token.
  char buf[256];
  const std::size_t n = duet::detail::write_seed_token(buf, sizeof buf, r, 99);
  EXPECT_EQ(std::string(buf, n), encode_token(r));
  EXPECT_EQ(duet::detail::write_seed_token(buf, 8, r, 99), 0u);  // too small: says so
}

TEST(Token, EveryCorruptionIsCaught) {
  const std::string t = encode_token(ReplayRecord{7, 8, 9, 10, 100, 10, {1, 2, 3, 4, 5}, {}});
  for (std::size_t i = 6; i < t.size(); ++i) {
    std::string bad = t;
    bad[i] = bad[i] == 'A' ? 'B' : 'A';
    EXPECT_THROW(decode_token(bad), std::invalid_argument) << bad;
  }
  for (std::size_t n = 0; n < t.size(); ++n) EXPECT_THROW(decode_token(t.substr(0, n)), std::invalid_argument) << n;
}

TEST(Token, ErrorsSayWhatIsWrong) {
  try {
    decode_token("duet1.a$b");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("character '$'"), std::string::npos) << e.what();
  }
}

// Tokens of parallel checks say which executor recorded them (so that one refused by a check on
// another executor can say so) and the search's trials (so that the replay's header reads the same).
TEST(Token, ExecutorAndTrialsRoundTrip) {
  ReplayRecord r{5, 6, 19, 3, 100, 10, {1, 2}, {}};
  r.executor = "fibers:pct(3)";
  r.trials = 361;
  r.overlapped = 200;
  r.cpus = 2;
  const ReplayRecord back = decode_token(encode_token(r));
  EXPECT_EQ(back.executor, "fibers:pct(3)");
  EXPECT_EQ(back.trials, 361u);
  EXPECT_EQ(back.overlapped, 200u);
  EXPECT_EQ(back.cpus, 2u);
  EXPECT_EQ(back.choices, r.choices);
  // With a case seed too, and from the crash handler's writer.
  r.case_seed = 77;
  char buf[256];
  const std::size_t n = duet::detail::write_seed_token(buf, sizeof buf, r, 77);
  EXPECT_EQ(decode_token(std::string(buf, n)).executor, "fibers:pct(3)");
  EXPECT_EQ(decode_token(encode_token(r)).case_seed, 77u);
  // A token written before executors were recorded still decodes (committed regression cases).
  EXPECT_EQ(decode_token("duet1.9MPw6gsBAQ9kCgALAQAAAQAAAAEBAQHV-QTI").executor, "");
}

// Half a UTF-8 sequence in a report is text no XML reader accepts (--gtest_output=xml).
TEST(Token, NonAsciiCharactersAreQuotedEscaped) {
  try {
    decode_token("duet1.\xc3\xa9t\xc3\xa9");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    for (char c : m) EXPECT_LT(static_cast<unsigned char>(c), 0x80u) << m;
    EXPECT_NE(m.find("character '\\xc3' at position 6"), std::string::npos) << m;
  }
}

// A token pasted with whitespace around it (an editor's, a shell's) is the same token.
TEST(Token, WhitespaceAroundATokenIsIgnored) {
  const std::string t = encode_token(ReplayRecord{7, 8, 9, 10, 100, 10, {1, 2, 3}, {}});
  EXPECT_EQ(decode_token(" \t" + t + " \r\n").choices, (std::vector<std::uint64_t>{1, 2, 3}));
}

// The memory model a fiber check's tag names; no suffix (every token written before the model
// was recorded) means the C++ model, the default.
TEST(Token, ExecutorTagsNameTheirMemoryModel) {
  using duet::detail::tagged_memory_model;
  EXPECT_EQ(tagged_memory_model("fibers:random"), "cpp");
  EXPECT_EQ(tagged_memory_model("fibers:pct(3),memory_model=sc"), "sc");
  // A check that ran each trial in a process of its own says so after the model.
  EXPECT_EQ(tagged_memory_model("fibers:random,memory_model=sc,trial_processes"), "sc");
  EXPECT_EQ(tagged_memory_model("fibers:random,trial_processes"), "cpp");
  EXPECT_EQ(tagged_memory_model("threads"), "");
  EXPECT_EQ(tagged_memory_model(""), "");
  ReplayRecord r{5, 6, 19, 3, 100, 10, {1, 2}, {}};
  r.executor = "fibers:random,memory_model=sc";
  EXPECT_EQ(decode_token(encode_token(r)).executor, "fibers:random,memory_model=sc");
}

// ---- Case files: read with a cap and a deadline, never blocking ----------------------------

std::string case_dir() {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("duet-case-files-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_error(const std::string& path, std::size_t cap, double seconds) {
  try {
    duet::detail::read_case_file(path, cap, seconds);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(read)";
}

TEST(CaseFiles, AFifoWithNoWriterDoesNotBlock) {
  const std::string fifo = case_dir() + "/fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string m = read_error(fifo, duet::detail::kCaseFileCap, 5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_NE(m.find("is empty (a pipe with no writer?)"), std::string::npos) << m;
  ::unlink(fifo.c_str());
}

TEST(CaseFiles, ADeviceThatNeverEndsIsCapped) {
  const std::string m = read_error("/dev/zero", std::size_t{1} << 20, 5);
  EXPECT_NE(m.find("/dev/zero (a character device) holds more than 1 MiB"), std::string::npos) << m;
}

TEST(CaseFiles, APipeWhoseWriterNeverEndsHitsTheDeadline) {
  const std::string fifo = case_dir() + "/slow";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer that writes a little and then holds the pipe open.
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd < 0) return;
    (void)!::write(fd, "duet1.", 6);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the writer has it open
  const auto start = std::chrono::steady_clock::now();
  const std::string m = read_error(fifo, duet::detail::kCaseFileCap, 0.3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_NE(m.find("(a pipe) did not end within 0.3 s"), std::string::npos) << m;
  writer.join();
  ::unlink(fifo.c_str());
}

using duet::detail::token_text;

const std::string kToken = "duet1.3MKrug0BAQxkCgAIAQABAAEAAQGYCp9r";

// A byte order mark, whitespace, the DUET_REPLAY= of the report's line or the line itself: the
// file holds a token, never a fuzzer's bytes (which would run some other case, and could pass).
TEST(CaseFiles, ATokenIsFoundPastAByteOrderMarkAndWhitespace) {
  for (const std::string& text :
       {"\xef\xbb\xbf" + kToken + "\n", " " + kToken + "\n", "  " + kToken + "  \n\n", "\t" + kToken + "\r\n",
        "DUET_REPLAY=" + kToken + "\n", "  replay:     DUET_REPLAY=" + kToken + "\n"}) {
    const std::optional<std::string> token = token_text(text);
    ASSERT_TRUE(token) << text;
    EXPECT_EQ(decode_token(*token).choices, decode_token(kToken).choices) << text;
  }
  const std::string path = case_dir() + "/bom";
  std::ofstream(path, std::ios::binary) << "\xef\xbb\xbf" << kToken << "\n";
  const duet::detail::CaseFile f = duet::detail::read_case_file(path);
  EXPECT_TRUE(f.is_token);
  EXPECT_EQ(f.token, kToken);
  std::filesystem::remove(path);
}

// Printable text that starts with "duet" but is no valid token is read as a token, and decoding
// refuses it by name.
TEST(CaseFiles, TextThatStartsLikeATokenIsNeverRunAsBytes) {
  for (const std::string& text : {"Duet1.3MKrug0BAQxkCgAIAQABAAEAAQGYCp9r", "duet13MKrug0BAQxkCgAIAQABAAEAAQGYCp9r",
                                  "duet1 3MKrug0BAQxkCgAIAQABAAEAAQGYCp9r\n", "duet2.3MKrug0BAQ", "\xef\xbb\xbf DUET1.x"}) {
    const std::optional<std::string> token = token_text(text);
    ASSERT_TRUE(token) << text;
    EXPECT_THROW(decode_token(*token), std::invalid_argument) << text;
  }
}

// A fuzzer's input stays bytes: binary data, whitespace alone, text that does not start with "duet".
TEST(CaseFiles, AFuzzersInputStaysBytes) {
  for (const std::string& bytes :
       {std::string("\n\n"), std::string(1, '\0'), std::string("duet\x01\x02\x03", 7), std::string("\xef\xbb\xbf"),
        std::string("hello duet1."), std::string("\x7f duet1.x"), std::string(64, '\x07')})
    EXPECT_FALSE(token_text(bytes)) << duet::detail::excerpt(bytes);
}

// ---- Regression directories: what is not a case is an error naming it, found without opening --

std::string regression_error(const std::string& dir) {
  try {
    duet::detail::regression_files(dir, "Check", "sequential");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(listed)";
}

TEST(RegressionFiles, AFifoOrADeviceAmongTheCasesIsAnError) {
  const std::string dir = case_dir() + "/regressions";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/Check/sequential");
  std::ofstream(dir + "/Check/sequential/a.token") << kToken << "\n";
  EXPECT_EQ(duet::detail::regression_files(dir, "Check", "sequential").size(), 1u);
  const std::string fifo = dir + "/Check/sequential/b.token";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  std::string m = regression_error(dir);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));  // never opened
  EXPECT_NE(m.find(fifo + " is a pipe, not a regression case"), std::string::npos) << m;
  std::filesystem::remove(fifo);
  const std::string zero = dir + "/Check/c.token";  // the shared directory of the older layout
  std::filesystem::create_symlink("/dev/zero", zero);
  m = regression_error(dir);
  EXPECT_NE(m.find(zero + " is a character device, not a regression case"), std::string::npos) << m;
  std::filesystem::remove(zero);
  std::filesystem::create_symlink(dir + "/nowhere", zero);
  m = regression_error(dir);
  EXPECT_NE(m.find(zero + " is a broken symbolic link"), std::string::npos) << m;
  std::filesystem::remove_all(dir);
}

TEST(RegressionFiles, ACheckDirectoryThatIsNoDirectoryIsAnError) {
  const std::string dir = case_dir() + "/regressions-odd";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(duet::detail::regression_files(dir, "Check", "sequential").empty());  // none yet: no error
  std::ofstream(dir + "/Check") << "x";
  std::string m = regression_error(dir);
  EXPECT_NE(m.find(dir + "/Check is a file, not a directory of regression cases"), std::string::npos) << m;
  std::filesystem::remove(dir + "/Check");
  ASSERT_EQ(::mkfifo((dir + "/Check").c_str(), 0600), 0);
  m = regression_error(dir);
  EXPECT_NE(m.find(dir + "/Check is a pipe, not a directory of regression cases"), std::string::npos) << m;
  std::filesystem::remove(dir + "/Check");
  std::filesystem::create_directories(dir + "/Check");
  ASSERT_EQ(::mkfifo((dir + "/Check/sequential").c_str(), 0600), 0);
  m = regression_error(dir);
  EXPECT_NE(m.find(dir + "/Check/sequential is a pipe, not a directory of regression cases"), std::string::npos) << m;
  std::filesystem::remove_all(dir);
  std::ofstream(dir) << "x";
  m = regression_error(dir);
  EXPECT_NE(m.find("DUET_REGRESSIONS=" + dir + " is a file, not a directory"), std::string::npos) << m;
  std::filesystem::remove(dir);
}

TEST(CaseFiles, ALargeFileIsRefusedUnread) {
  const std::string path = case_dir() + "/large";
  std::ofstream(path, std::ios::binary) << std::string(3 << 20, 'x');
  const std::string m = read_error(path, std::size_t{1} << 20, 5);
  EXPECT_NE(m.find("is 3145728 bytes, more than 1 MiB"), std::string::npos) << m;
  std::filesystem::remove(path);
}

}  // namespace
