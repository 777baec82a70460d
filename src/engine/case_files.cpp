#include "engine/case_files.hpp"

#include <algorithm>
#include <cctype>
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

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool starts_with_duet(std::string_view text) {
  constexpr std::string_view kDuet = "duet";
  if (text.size() < kDuet.size()) return false;
  for (std::size_t i = 0; i < kDuet.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != kDuet[i]) return false;
  return true;
}

}  // namespace

std::optional<std::string> token_text(std::string_view bytes) {
  constexpr std::string_view kByteOrderMark = "\xef\xbb\xbf";
  if (bytes.substr(0, kByteOrderMark.size()) == kByteOrderMark) bytes.remove_prefix(kByteOrderMark.size());
  std::string_view text = trimmed(bytes);
  if (text.substr(0, 6) == "duet1.") return std::string(text);  // a damaged token is the decoder's to name
  const bool printable =
      std::all_of(text.begin(), text.end(), [](char c) { return (c >= 0x20 && c < 0x7f) || is_space(c); });
  if (!printable) return std::nullopt;
  // The report's whole line, pasted: "  replay:     DUET_REPLAY=duet1...".
  if (constexpr std::string_view kLabel = "replay:"; text.substr(0, kLabel.size()) == kLabel)
    text = trimmed(text.substr(kLabel.size()));
  // Text that starts like a token ("Duet1.", "duet1 ", "DUET_REPLAY=") is one, damaged or not:
  // run as a fuzzer's bytes it would test some other case, and could pass.
  if (starts_with_duet(text)) return std::string(text);
  return std::nullopt;
}

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
  if (std::optional<std::string> token = token_text(f.bytes)) {
    f.is_token = true;
    f.token = std::move(*token);
    f.bytes.clear();
  }
  return f;
}

namespace {

// The mode of what is at `path`, through symbolic links, by stat() alone (opening a FIFO would
// wait for a writer); nullopt when nothing is there. A broken link is an error naming `named`.
std::optional<mode_t> mode_at(const fs::path& path, const std::string& named) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return st.st_mode;
  const int error = errno;
  if (error == ENOENT && ::lstat(path.c_str(), &st) != 0) return std::nullopt;
  if (error == ENOENT) throw std::invalid_argument(named + " is a broken symbolic link");
  throw std::invalid_argument("cannot read " + named + ": " + std::strerror(error));
}

// True when `folder` is a directory, false when nothing is there: a file, a FIFO or a broken
// link where a directory of cases belongs is an error naming it, never a silent "no cases".
bool is_case_folder(const fs::path& folder, const std::string& named) {
  const std::optional<mode_t> mode = mode_at(folder, named);
  if (!mode) return false;
  if (!S_ISDIR(*mode))
    throw std::invalid_argument(named + " is " + file_kind(*mode) + ", not a directory of regression cases");
  return true;
}

// The case files right in the directory `folder`, sorted. Its subdirectories (in a check's own
// directory, the executors') and saves in progress (".part") are left out; anything else that
// is no regular file (a FIFO, a device, a broken link) is an error naming it.
std::vector<std::string> files_in(const fs::path& folder) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string path = entry.path().string();
    if (entry.path().filename().string().find(".part") != std::string::npos) continue;
    const std::optional<mode_t> mode = mode_at(entry.path(), path);
    if (!mode || S_ISDIR(*mode)) continue;  // removed since listed; a directory
    if (!S_ISREG(*mode))
      throw std::invalid_argument(path + " is " + file_kind(*mode) +
                                  ", not a regression case: a case is a regular file holding a replay token or a "
                                  "fuzzer's input");
    files.push_back(path);
  }
  if (ec) throw std::invalid_argument("cannot list " + folder.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<RegressionFile> regression_files(const std::string& dir, const std::string& name, const std::string& executor) {
  if (!is_case_folder(dir, "DUET_REGRESSIONS=" + dir)) return {};
  const fs::path check = fs::path(dir) / identifier(name);
  if (!is_case_folder(check, check.string())) return {};
  const fs::path own = check / identifier(executor);
  std::vector<RegressionFile> files;
  if (is_case_folder(own, own.string()))
    for (std::string& path : files_in(own)) files.push_back({std::move(path), false});
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
