#include "engine/case_files.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.hpp"
#include "report/token.hpp"
#include "show/text.hpp"

namespace duet::detail {

namespace fs = std::filesystem;

namespace {

// Closes a descriptor whatever way reading ends.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Everything `fd` holds, up to `cap` bytes, within `seconds`: opened non-blocking, a pipe with
// no writer reads as empty, and one whose writer never ends (or /dev/zero) ends in an error.
std::string read_bounded(int fd, const std::string& path, mode_t mode, std::size_t cap, double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    if (Clock::now() >= deadline)
      throw std::invalid_argument(path + " (" + file_kind(mode) + ") did not end within " + printf_string("%g", seconds) +
                                  " s: a case file must be a file, or a pipe that ends");
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      data.append(buffer, static_cast<std::size_t>(n));
      if (data.size() > cap)
        throw std::invalid_argument(path + " (" + file_kind(mode) + ") holds more than " + std::to_string(cap >> 20) +
                                    " MiB: no case file is that large");
      continue;
    }
    if (n == 0) return data;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw std::invalid_argument("cannot read " + path + ": " + std::strerror(errno));
    pollfd p{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 1, 1000)));
  }
}

}  // namespace

CaseFile read_case_file(const std::string& path, std::size_t cap, double seconds) {
  // Non-blocking: opening a FIFO for reading would otherwise wait for a writer, forever.
  const Descriptor d{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (d.fd < 0) throw std::invalid_argument("cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(d.fd, &st) != 0) throw std::invalid_argument("cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw std::invalid_argument(path + " is a directory, not a case file");
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > cap)
    throw std::invalid_argument(path + " is " + std::to_string(st.st_size) + " bytes, more than " +
                                std::to_string(cap >> 20) + " MiB: no case file is that large");
  CaseFile f;
  f.path = path;
  f.bytes = read_bounded(d.fd, path, st.st_mode, cap, seconds);
  if (f.bytes.empty())
    throw std::invalid_argument(
        path + " is empty" + (S_ISREG(st.st_mode) ? "" : std::string(" (") + file_kind(st.st_mode) + " with no writer?)") +
        ": a case file holds a replay token or a fuzzer's input");
  if (f.bytes.rfind("duet1.", 0) == 0) {
    f.is_token = true;
    f.token = f.bytes;
    while (!f.token.empty() &&
           (f.token.back() == '\n' || f.token.back() == '\r' || f.token.back() == ' ' || f.token.back() == '\t'))
      f.token.pop_back();
    f.bytes.clear();
  }
  return f;
}

namespace {

// The regular files right in `folder` (not its subdirectories), sorted; none if it does not exist.
std::vector<std::string> files_in(const fs::path& folder) {
  std::error_code ec;
  std::vector<std::string> files;
  if (!fs::is_directory(folder, ec)) return files;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.is_regular_file(ec) && entry.path().filename().string().find(".part") == std::string::npos)
      files.push_back(entry.path().string());
  if (ec) throw std::invalid_argument("cannot list " + folder.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<RegressionFile> regression_files(const std::string& dir, const std::string& name, const std::string& executor) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::invalid_argument("DUET_REGRESSIONS=" + dir + " is not a directory");
  const fs::path check = fs::path(dir) / identifier(name);
  std::vector<RegressionFile> files;
  for (std::string& path : files_in(check / identifier(executor))) files.push_back({std::move(path), false});
  for (std::string& path : files_in(check)) files.push_back({std::move(path), true});
  return files;
}

std::string save_regression(const std::string& dir, const std::string& name, const std::string& executor,
                            const std::string& token) {
  const ReplayRecord rec = decode_token(token);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the choices (or the case seed)
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  };
  mix(rec.spec_id);
  if (rec.case_seed) mix(*rec.case_seed);
  for (std::uint64_t c : rec.choices) mix(c);
  char file[40];
  std::snprintf(file, sizeof file, "%016llx.token", static_cast<unsigned long long>(h));
  const fs::path folder = fs::path(dir) / identifier(name) / identifier(executor);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create " + folder.string() + ": " + ec.message());
  const fs::path path = folder / file;
  if (fs::is_regular_file(path, ec)) return path.string();  // saved before
  write_file_aside(path.string(), token + "\n");
  return path.string();
}

}  // namespace duet::detail
