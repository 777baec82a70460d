#include "engine/messages.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace duet::detail {

bool write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    // MSG_NOSIGNAL on a socket; a pipe is written with write() (send() refuses it).
    ssize_t w = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) w = ::write(fd, bytes, size);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    bytes += w;
    size -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* bytes, std::size_t size, std::int64_t deadline_ns) {
  while (size > 0) {
    if (deadline_ns != 0) {
      const std::int64_t left_ms = (deadline_ns - steady_now_ns()) / 1000000;
      if (left_ms <= 0) return false;
      pollfd pf{fd, POLLIN, 0};
      const int ready = ::poll(&pf, 1, static_cast<int>(std::min<std::int64_t>(left_ms, 1000)));
      if (ready < 0 && errno != EINTR) return false;
      if (ready <= 0) continue;
    }
    const ssize_t r = ::read(fd, bytes, size);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    bytes += r;
    size -= static_cast<std::size_t>(r);
  }
  return true;
}

bool send_message(int fd, const std::string& body) {
  const std::uint64_t n = body.size();
  return write_all(fd, reinterpret_cast<const char*>(&n), sizeof n) && write_all(fd, body.data(), body.size());
}

std::optional<std::string> read_message(int fd, std::int64_t deadline_ns) {
  std::uint64_t n = 0;
  if (!read_all(fd, reinterpret_cast<char*>(&n), sizeof n, deadline_ns) || n > kMaxMessage) return std::nullopt;
  std::string body(static_cast<std::size_t>(n), '\0');
  if (!read_all(fd, body.data(), body.size(), deadline_ns)) return std::nullopt;
  return body;
}

}  // namespace duet::detail
