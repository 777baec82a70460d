// What the tests of walks over every program share: the counter's scope, and a directory for a
// test's certificates.
#pragma once

#include <duet/gtest.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "certify/certificate.hpp"
#include "engine/case_files.hpp"

namespace walks {

// 2 branches of up to 2 calls of incr() and get(), no prefix: 7 branches (none, 2 of one call,
// 4 of two), 28 pairs up to order, less the program with no call.
inline duet::ParallelConfig counter_scope(duet::Schedule schedule = duet::exhaustive(duet::unbounded)) {
  return {.branch_length = 2, .prefix_length = 0, .executor = duet::fibers(schedule), .every_program = duet::EveryProgram{}};
}

// A fresh directory for one test's certificates, and DUET_CERTIFICATE naming it while it lives.
struct CertificateDir {
  std::string path;
  CertificateDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "duet-certificates-XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? tmpl + "/" : std::string();
    ::setenv("DUET_CERTIFICATE", path.c_str(), 1);
  }
  ~CertificateDir() {
    ::unsetenv("DUET_CERTIFICATE");
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  CertificateDir(const CertificateDir&) = delete;
  CertificateDir& operator=(const CertificateDir&) = delete;
  duet::detail::Certificate read(const std::string& file) const {
    duet::detail::Certificate c = duet::detail::parse_certificate(duet::detail::read_case_file(path + file).bytes);
    c.path = file;
    return c;
  }
};

}  // namespace walks
