// Messages between this process and one it forked (isolation's child, a clean child's worker, a
// walk's worker): a length, then the bytes, over a pipe or a socket. Every read has a bound
// (kMaxMessage) and may have a deadline: the other side is the candidate's process, which may
// have scribbled on the descriptor or stopped half-way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "execute/hang_clock.hpp"  // steady_now_ns

namespace duet::detail {

/// A message longer than this is not one the other side wrote: the reader treats it as the end
/// of the conversation.
constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 32;

/// Writes all `size` bytes (a closed other end is false, never SIGPIPE).
bool write_all(int fd, const char* bytes, std::size_t size);
/// Reads exactly `size` bytes; false at the end of the input, on an error, or once
/// `deadline_ns` (steady_now_ns's clock, execute/hang_clock.hpp; 0: none) has passed.
bool read_all(int fd, char* bytes, std::size_t size, std::int64_t deadline_ns = 0);

bool send_message(int fd, const std::string& body);
/// The next message, or nothing: the other side closed, wrote more than kMaxMessage, or did
/// not finish before the deadline.
std::optional<std::string> read_message(int fd, std::int64_t deadline_ns = 0);

}  // namespace duet::detail
