// Isolation's requests (src/engine/protocol.cpp): each kind comes back as the kind it was sent
// as, with its fields (the fields themselves: wire_test.cpp), and a request of no known kind
// throws, never crashes.
#include "engine/protocol.hpp"
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>

namespace {

using namespace duet::detail;

template <class Message>
void expect_round_trip(const Message& sent) {
  const Request back = decode_request(encode_request(sent));
  ASSERT_TRUE(std::holds_alternative<Message>(back));
  EXPECT_EQ(encode(std::get<Message>(back)), encode(sent));
}

TEST(Protocol, EachRequestComesBackAsItsKind) {
  expect_round_trip(RunRequest{0x1234567890abcdefULL, {}, std::nullopt, true, true});
  expect_round_trip(RunRequest{std::nullopt, {5, 0, 300}, std::nullopt, false, false});
  expect_round_trip(RunRequest{std::nullopt, {}, std::string("\0\x01\xff", 3), true, false});
  ShrinkRequest shrink{{9, 8, 7}, {{0, 1}, {1, 3}}, 2, 5000, std::chrono::nanoseconds(123456789), {}};
  shrink.deaths.push_back(KnownDeath{{1, 2}, {1, 2, 3}, {{0, 3}}, duet::Source::kNoMark});
  expect_round_trip(shrink);
  expect_round_trip(SearchRequest{Clock::now(), 52});
  expect_round_trip(TrialProcessesRequest{});
}

TEST(Protocol, TheFieldsComeBack) {
  const Request back = decode_request(encode_request(SearchRequest{Clock::time_point(std::chrono::seconds(7)), 52}));
  EXPECT_EQ(std::get<SearchRequest>(back).start, Clock::time_point(std::chrono::seconds(7)));
  EXPECT_EQ(std::get<SearchRequest>(back).count, 52u);
}

TEST(Protocol, RequestsOfNoKindOrCutShortThrow) {
  WireWriter unknown;
  unknown.u64(std::variant_size_v<Request>);
  EXPECT_THROW(decode_request(unknown.bytes()), std::runtime_error);
  EXPECT_THROW(decode_request(""), std::runtime_error);
  const std::string run = encode_request(RunRequest{7, {1, 2}, std::string("ab"), true, false});
  for (std::size_t n = 0; n < run.size(); ++n) EXPECT_THROW(decode_request(run.substr(0, n)), std::runtime_error) << n;
  EXPECT_THROW(decode_request(run + 'x'), std::runtime_error);
}

}  // namespace
