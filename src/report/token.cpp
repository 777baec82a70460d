#include "duet/detail/token.hpp"

#include <string_view>

namespace duet::detail {
namespace {

constexpr std::string_view kPrefix = "duet1.";
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

std::uint32_t checksum(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

[[noreturn]] void invalid(const std::string& why) {
  throw std::invalid_argument("invalid replay token: " + why);
}

}  // namespace

std::string encode_token(const ReplayRecord& r) {
  std::string bytes;
  put_varint(bytes, r.spec_id);
  put_varint(bytes, r.seed);
  put_varint(bytes, r.cases);
  put_varint(bytes, r.shrink_steps);
  put_varint(bytes, r.case_seed ? 1 : 0);
  if (r.case_seed) put_varint(bytes, *r.case_seed);
  put_varint(bytes, r.choices.size());
  for (std::uint64_t c : r.choices) put_varint(bytes, c);
  const std::uint32_t sum = checksum(bytes);
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((sum >> (8 * i)) & 0xff);

  std::string out(kPrefix);
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

ReplayRecord decode_token(const std::string& raw) {
  std::string_view token = raw;
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.remove_suffix(1);
  if (token.substr(0, 12) == "DUET_REPLAY=") token.remove_prefix(12);
  if (token.substr(0, kPrefix.size()) != kPrefix)
    invalid("it should start with \"duet1.\" (copy the whole DUET_REPLAY=... line from the report)");
  token.remove_prefix(kPrefix.size());

  std::string bytes;
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    int v = -1;
    for (int k = 0; k < 64; ++k)
      if (kAlphabet[k] == c) v = k;
    if (v < 0) invalid("character '" + std::string(1, c) + "' at position " + std::to_string(i + kPrefix.size()) +
                       " is not part of a token");
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bytes.size() < 5) invalid("too short (truncated?)");
  const std::string_view body(bytes.data(), bytes.size() - 4);
  std::uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[body.size() + i])) << (8 * i);
  if (stored != checksum(body)) invalid("checksum mismatch (the token was truncated or altered)");

  std::size_t pos = 0;
  auto get = [&]() -> std::uint64_t {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= body.size()) invalid("ends in the middle of a field");
      const auto b = static_cast<unsigned char>(body[pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    invalid("a field is longer than 64 bits");
  };
  ReplayRecord r;
  const std::uint64_t id = get();
  if (id > 0xffffffffu) invalid("bad spec id");
  r.spec_id = static_cast<std::uint32_t>(id);
  r.seed = get();
  r.cases = get();
  r.shrink_steps = get();
  const std::uint64_t kind = get();
  if (kind > 1) invalid("unknown kind of case");
  if (kind == 1) r.case_seed = get();
  const std::uint64_t n = get();
  if (n > body.size()) invalid("claims more choices than it holds");
  r.choices.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) r.choices.push_back(get());
  if (pos != body.size()) invalid("has trailing data");
  return r;
}

}  // namespace duet::detail
