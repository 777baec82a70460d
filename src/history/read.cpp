// Reading a history from a file or standard input (read_history, read_history_stdin): all of
// its bytes, bounded in size and in time, then parse_history. Apart from the parsers because
// it is the only part that does I/O: a FIFO, a pipe or a device must not hang the checker.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "duet/history.hpp"
#include "history/parse_common.hpp"

namespace duet::history {
namespace {

using detail::fail;

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// Reads all of `fd`, at most limits.max_bytes of it (beyond: ParseError). Past the deadline:
// TimeBudgetExceeded. A regular file is read in chunks with the clock checked between them;
// anything else (a FIFO, a pipe, a terminal, a device) is polled with the time left first, and
// has a deadline of its own (limits.non_regular_seconds), so that a FIFO with no writer ends.
std::string read_all(int fd, const std::string& source, std::chrono::steady_clock::time_point deadline,
                     const ReadLimits& limits) {
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  auto too_large = [&] {
    fail(source, 0,
         "the input is larger than " + mib(limits.max_bytes) +
             ", the limit for one history (raise it with --max-input MIB, or ReadLimits::max_bytes)");
  };
  if (regular && static_cast<std::uint64_t>(st.st_size) > limits.max_bytes) too_large();
  // A non-regular input's own deadline, when it comes before the caller's.
  bool input_deadline = false;
  if (!regular) {
    const auto own = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(std::min(limits.non_regular_seconds, 1e9)));  // (1e9 s: no overflow)
    if (own < deadline) {
      deadline = own;
      input_deadline = true;
    }
  }
  std::string text;
  if (regular && st.st_size > 0) text.reserve(static_cast<std::size_t>(st.st_size));
  std::vector<char> buffer(std::size_t{1} << 20);
  auto failed = [&](int err) { fail(source, 0, std::string("cannot read file: ") + std::strerror(err)); };
  for (;;) {
    int wait_ms = -1;  // no deadline: wait as long as it takes, as a blocking read would
    if (deadline != kNoDeadline) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline && input_deadline) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", limits.non_regular_seconds);
        throw TimeBudgetExceeded(std::string("reading took longer than ") + seconds +
                                 " s, the limit for an input that is not a regular file (a FIFO, a pipe, a device); " +
                                 std::to_string(text.size()) + " bytes read (change it with --input-timeout SECONDS)");
      }
      if (now >= deadline)
        throw TimeBudgetExceeded("the time budget ran out while reading the file (" + std::to_string(text.size()) +
                                 " bytes read)");
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
      wait_ms = static_cast<int>(std::min<decltype(left)>(left, INT_MAX));
    }
    if (!regular) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, wait_ms);
      if (ready < 0 && errno != EINTR) failed(errno);
      if (ready <= 0) continue;  // interrupted, or out of time (said at the top of the loop)
    }
    // One byte past the limit is enough to know the input is too large.
    const std::size_t room = limits.max_bytes - std::min(limits.max_bytes, text.size()) + 1;
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), room));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      failed(errno);
    }
    if (n == 0) break;
    if (static_cast<std::size_t>(n) >= room) too_large();
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace

History read_history(const std::string& path, Format format, std::chrono::steady_clock::time_point deadline,
                     const ReadLimits& limits) {
  // Non-blocking: opening a FIFO would otherwise wait for a writer, with no deadline.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, 0, std::string("cannot read file: ") + std::strerror(errno));
  std::string text;
  try {
    text = read_all(fd, path, deadline, limits);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  History h = parse_history(text, format, path, deadline);
  h.source = path;
  return h;
}

History read_history_stdin(Format format, std::chrono::steady_clock::time_point deadline, const ReadLimits& limits) {
  // Standard input keeps its flags (they are shared with the caller's shell): it is polled
  // before each read instead.
  const std::string source = "<stdin>";
  return parse_history(read_all(STDIN_FILENO, source, deadline, limits), format, source, deadline);
}

}  // namespace duet::history
