#include "report/token.hpp"

#include <string_view>

#include "show/text.hpp"

namespace duet::detail {
namespace {

constexpr std::string_view kPrefix = "duet1.";
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::uint32_t checksum(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

[[noreturn]] void invalid(const std::string& why) { throw std::invalid_argument("invalid replay token: " + why); }

// Streams bytes into base64url while keeping the checksum: no allocation, so the crash
// handler can use it.
class TokenWriter {
 public:
  TokenWriter(char* out, std::size_t cap) : out_(out), cap_(cap) {
    for (char c : kPrefix) put_char(c);
  }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      byte(static_cast<unsigned char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    byte(static_cast<unsigned char>(v));
  }
  void text(std::string_view t) {
    varint(t.size());
    for (char c : t) byte(static_cast<unsigned char>(c));
  }
  std::size_t finish() {
    const std::uint32_t sum = sum_;
    for (int i = 0; i < 4; ++i) byte(static_cast<unsigned char>((sum >> (8 * i)) & 0xff));
    if (bits_ > 0) put_char(kAlphabet[(acc_ << (6 - bits_)) & 63]);
    return overflow_ ? 0 : len_;
  }

 private:
  void byte(unsigned char b) {
    sum_ = (sum_ ^ b) * 16777619u;
    acc_ = (acc_ << 8) | b;
    bits_ += 8;
    while (bits_ >= 6) {
      bits_ -= 6;
      put_char(kAlphabet[(acc_ >> bits_) & 63]);
    }
  }
  void put_char(char c) {
    if (len_ < cap_) out_[len_++] = c;
    else overflow_ = true;
  }
  char* out_;
  std::size_t cap_, len_ = 0;
  std::uint32_t sum_ = 2166136261u, acc_ = 0;
  int bits_ = 0;
  bool overflow_ = false;
};

void write_fields(TokenWriter& w, const ReplayRecord& r, const std::optional<std::uint64_t>& case_seed) {
  w.varint(r.spec_id);
  w.varint(r.seed);
  w.varint(r.cases);
  w.varint(r.shrink_steps);
  w.varint(r.max_length);
  w.varint(r.continue_odds);
  // The kind of case: bit 0, a case seed follows; bit 1, the executor and the search's trials
  // follow (parallel checks; tokens without it still decode).
  w.varint((case_seed ? 1 : 0) | (r.executor.empty() ? 0 : 2));
  if (case_seed) w.varint(*case_seed);
  if (r.executor.empty()) return;
  w.text(r.executor);
  w.varint(r.trials);
  w.varint(r.overlapped);
  w.varint(r.cpus);
}

}  // namespace

std::string encode_token(const ReplayRecord& r) {
  // At most 10 bytes a field, 4 of checksum, 4 characters per 3 bytes.
  std::string out((r.choices.size() + 8) * 14 + 16 + kPrefix.size(), '\0');
  TokenWriter w(out.data(), out.size());
  write_fields(w, r, r.case_seed);
  w.varint(r.choices.size());
  for (std::uint64_t c : r.choices) w.varint(c);
  out.resize(w.finish());
  return out;
}

std::size_t write_seed_token(char* out, std::size_t cap, const ReplayRecord& header, std::uint64_t case_seed) {
  TokenWriter w(out, cap);
  write_fields(w, header, case_seed);
  w.varint(0);
  return w.finish();
}

std::string tagged_memory_model(std::string_view executor) {
  if (executor.substr(0, 7) != "fibers:") return {};
  const std::size_t at = executor.find(kMemoryModelTag);
  if (at == std::string_view::npos) return "cpp";
  const std::string_view model = executor.substr(at + kMemoryModelTag.size());
  return std::string(model.substr(0, model.find(',')));  // up to the next tag
}

ReplayRecord decode_token(const std::string& raw) {
  std::string_view token = raw;
  auto space = [](char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; };
  while (!token.empty() && space(token.back())) token.remove_suffix(1);
  while (!token.empty() && space(token.front())) token.remove_prefix(1);
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
    // Quoted escaped: half a UTF-8 sequence in a report is text no XML reader accepts.
    if (v < 0)
      invalid("character '" + excerpt(token.substr(i, 1)) + "' at position " + std::to_string(i + kPrefix.size()) +
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
  for (int i = 0; i < 4; ++i)
    stored |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[body.size() + i])) << (8 * i);
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
  r.max_length = get();
  r.continue_odds = get();
  if (r.continue_odds == 0) invalid("bad generation settings");
  const std::uint64_t kind = get();
  if (kind > 3) invalid("unknown kind of case");
  if (kind & 1) r.case_seed = get();
  if (kind & 2) {
    const std::uint64_t length = get();
    if (length == 0 || length > 64 || length > body.size() - pos) invalid("bad executor");
    r.executor.assign(body.substr(pos, length));
    pos += length;
    r.trials = get();
    r.overlapped = get();
    r.cpus = get();
  }
  const std::uint64_t n = get();
  if (n > body.size()) invalid("claims more choices than it holds");
  r.choices.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) r.choices.push_back(get());
  if (pos != body.size()) invalid("has trailing data");
  return r;
}

}  // namespace duet::detail
