// The one writer of every file duet writes (write_file_aside: a draft, a regression case, a
// timeline page, a certificate): a side file renamed or exchanged into place, so that a reader
// sees the old file or the new one whole, and anything there but a regular file refused (named
// by file_kind, which the messages about case files use too).
#include "report/report.hpp"

#include <cerrno>
#include <cstdio>  // renameat2, RENAME_EXCHANGE
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>  // AT_FDCWD
#include <sys/stat.h>
#include <unistd.h>

namespace duet::detail {

namespace {

// Puts the file at `part` where `path` is, which a reader sees whole before and after. Where
// there is a file at `path`, the two are exchanged and the old one (now at `part`) removed: a
// rename over it made ext4 write the new file out to the disk first (auto_da_alloc, so that a
// file replaced just before a crash is not left empty): two thirds of the draft's cost, a
// tenth of a short failing check's. duet's files need no such care: the next run writes them again.
void replace_file(const std::filesystem::path& part, const std::filesystem::path& path, std::error_code& ec) {
#ifdef RENAME_EXCHANGE
  if (::renameat2(AT_FDCWD, part.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    std::error_code ignored;  // the file is in place; a stale copy at `part` at worst
    std::filesystem::remove(part, ignored);
    return;
  }
#endif
  std::filesystem::rename(part, path, ec);  // no file there yet, or no exchange on this system
}

// Where a write to `path` lands: the file a symbolic link leads to, there or not yet (the link
// stays a link, as when a file is opened through it). A loop is left to stat to name.
std::filesystem::path write_target(const std::filesystem::path& path) {
  std::filesystem::path target = path;
  std::error_code ec;
  for (int links = 0; links < 40 && std::filesystem::is_symlink(target, ec); ++links) {
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec) return path;
    target = target.parent_path() / next;  // an absolute `next` replaces the whole
  }
  return std::filesystem::is_symlink(target, ec) ? path : target;
}

// Refuses `target` unless it is missing or a regular file: a FIFO with no reader would block the
// write forever, a device would swallow it, and a rename would replace either without a word.
void require_regular_or_missing(const std::string& path, const std::filesystem::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return;
  const std::string what = target == path ? "it is " : "it leads to " + target.string() + ", ";
  throw std::runtime_error("cannot write " + path + ": " + what + file_kind(st.st_mode) + ", not a regular file");
}

// Writes `contents` to a new file at `part` (any old one there is removed first: O_EXCL then
// neither follows a link nor opens a FIFO); throws naming `path`, the file it stands in for.
void write_new_file(const std::string& path, const std::filesystem::path& part, std::string_view contents) {
  ::unlink(part.c_str());  // left by a process of the same id that ended mid-write
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  int error = 0;
  for (std::size_t done = 0; done < contents.size() && error == 0;) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n >= 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) error = errno;
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0) return;
  ::unlink(part.c_str());
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace

std::string file_kind(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a file";
}

void write_file_aside(const std::string& path, std::string_view contents) {
  const std::filesystem::path target = write_target(path);
  require_regular_or_missing(path, target);
  // Aside, next to the target (a rename does not cross file systems), with this process's id:
  // two processes writing the same file each rename a whole one into place.
  const std::filesystem::path part = std::filesystem::path(target).concat(".part" + std::to_string(::getpid()));
  write_new_file(path, part, contents);
  std::error_code ec;
  replace_file(part, target, ec);
  if (!ec) return;
  ::unlink(part.c_str());
  throw std::runtime_error("cannot write " + path + ": " + ec.message());
}

}  // namespace duet::detail
