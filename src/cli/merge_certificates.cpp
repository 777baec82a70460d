// duet-merge-certificates: the shards' certificates of walks over every program (DUET_CERTIFICATE)
// joined into one verdict per check.
//
//   duet-merge-certificates [--quiet] FILE|DIR...
//
// A directory stands for the *.cert files in it. One line per check,
// CHECK<TAB>complete|passed|failed|incomplete<TAB>what was proved or why not, then a summary.
// Exit status: 0 when every check is complete (or passed on sampled runs), 1 when some failed,
// 2 when some is incomplete, a file is unreadable or not a certificate, or none was given.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "certify/certificate.hpp"
#include "certify/merge.hpp"
#include "duet/version.hpp"
#include "engine/case_files.hpp"

namespace {

using namespace duet::detail;

constexpr const char* kUsage =
    "usage: duet-merge-certificates [--quiet] FILE|DIR...\n"
    "Joins the certificates that the shards of walks over every program wrote (DUET_CERTIFICATE)\n"
    "into one verdict per check; a directory stands for the *.cert files in it.\n"
    "\n"
    "  --quiet     only the verdict lines and the summary\n"
    "  --version   print duet's version and exit\n"
    "\n"
    "Prints CHECK<TAB>complete|passed|failed|incomplete<TAB>details per check. Exit status: 0 every\n"
    "check complete (or passed on sampled runs), 1 some failed, 2 some incomplete, a file unreadable,\n"
    "or no certificate given.\n";

constexpr std::size_t kCertificateCap = std::size_t{1} << 20;  // a certificate is a few hundred bytes
constexpr double kReadSeconds = 10;

// The files an argument stands for: itself, or a directory's *.cert files, sorted.
std::vector<std::string> files_of(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(arg, ec)) return {arg};
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(arg, ec))
    if (e.path().extension() == ".cert") files.push_back(e.path().string());
  if (ec) throw std::invalid_argument("cannot read the directory " + arg + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

struct Read {
  std::vector<Certificate> certificates;
  int unreadable = 0;
};

Read read_all(const std::vector<std::string>& args) {
  Read read;
  for (const std::string& arg : args) {
    std::vector<std::string> files;
    try {
      files = files_of(arg);
    } catch (const std::exception& e) {
      std::printf("%s\tunreadable\t%s\n", arg.c_str(), e.what());
      ++read.unreadable;
      continue;
    }
    for (const std::string& f : files) {
      try {
        const CaseFile file = read_case_file(f, kCertificateCap, kReadSeconds);
        Certificate c = parse_certificate(file.is_token ? file.token : file.bytes);
        c.path = f;
        read.certificates.push_back(std::move(c));
      } catch (const std::exception& e) {
        std::printf("%s\tunreadable\t%s\n", f.c_str(), e.what());
        ++read.unreadable;
      }
    }
  }
  return read;
}

}  // namespace

int main(int argc, char** argv) {
  bool quiet = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quiet") quiet = true;
    else if (a == "--version") return std::printf("duet-merge-certificates %s\n", duet::version_string) < 0;
    else if (a == "--help" || a == "-h") return std::fputs(kUsage, stdout) < 0;
    else if (a.starts_with("--"))
      return std::fprintf(stderr, "duet-merge-certificates: unknown option %s\n%s", a.c_str(), kUsage), 2;
    else args.push_back(a);
  }
  if (args.empty()) return std::fputs(kUsage, stderr), 2;
  const Read read = read_all(args);
  const std::vector<MergedCheck> merged = merge_certificates(read.certificates);
  int counts[4] = {};
  for (const MergedCheck& m : merged) {
    std::printf("%s\n", m.line().c_str());
    ++counts[static_cast<int>(m.verdict)];
  }
  if (!quiet && read.certificates.empty()) std::printf("no certificate found in the files given\n");
  std::printf("summary: %zu checks from %zu certificates: %d complete, %d passed, %d failed, %d incomplete%s\n",
              merged.size(), read.certificates.size(), counts[0], counts[1], counts[2], counts[3],
              read.unreadable ? (", " + std::to_string(read.unreadable) + " files unreadable").c_str() : "");
  if (read.unreadable > 0 || read.certificates.empty()) return 2;
  return merged_status(merged);
}
