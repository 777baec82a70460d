// Certificates of walks over every program of a scope (ParallelConfig::every_program): each
// shard of a walk (DUET_SHARDS, DUET_SHARD_INDEX) writes what it ran and how it ended to the file
// DUET_CERTIFICATE names, and duet-merge-certificates joins the shards' files into one verdict
// ("complete over 4 shards"), refusing shards of another scope, a shard given twice or missing.
//
// A certificate is text, a "key: value" line each:
//
//   duet certificate 2
//   check: TreiberStack
//   duet: 0.1.0
//   spec: 0x5d1c0f3a
//   execution: fibers:exhaustive(unbounded)
//   scope: 2 branches × up to 2 calls after a prefix of up to 1 call
//   values: 2
//   scope programs: 363
//   scope fingerprint: 8f0c2e6d4a1b9c37
//   shards: 4
//   shard: 1
//   walk: done
//   last program: 363
//   programs: 91
//   searched to their end: 91
//   search: every run
//   trials: 17012
//   verdict: passed
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace duet {
struct CheckResult;
}

namespace duet::detail {

struct RunContext;

/// One shard's certificate, as read back.
struct Certificate {
  std::string path;  // where it was read from
  std::string check, duet, spec, execution, scope, fingerprint;
  std::uint64_t values = 0, scope_programs = 0;  // scope_programs 0: unknown (the walk stopped first)
  std::uint64_t shards = 0, shard = 0, programs = 0, searched = 0, trials = 0;
  /// The walk's number (from 1, in walk order, which every shard shares) of the last program it
  /// met: a failed shard's failing program. 0: not said (a certificate of duet before it).
  std::uint64_t last_program = 0;
  bool walk_done = false, every_run = false;
  std::string verdict;  // passed, failed or inconclusive
  std::string why;      // failed, inconclusive: the verdict's line
  std::string replay;   // failed: its replay token
};

/// The certificate of a check that walked (context.walk_certificate), ended as `r`.
std::string certificate_text(const RunContext& context, const CheckResult& r);

/// Reads a certificate's text; throws std::invalid_argument saying what is wrong with it (not a
/// certificate, a later format, a line missing or malformed).
Certificate parse_certificate(std::string_view text);

/// Where DUET_CERTIFICATE asks a check's certificate to go: the path itself, or in a directory (an
/// existing one, or a path ending in '/'), <check>.shard-<i>-of-<n>.cert; empty when unset.
std::string certificate_path(const std::string& setting, const std::string& check, std::uint64_t shard,
                             std::uint64_t shards);

/// After a check that walked every program: writes its certificate where DUET_CERTIFICATE says,
/// and says so in `r` (its report, and a line on stdout for a pass). A certificate that cannot
/// be written makes the check an error: it was asked for evidence it cannot leave.
void leave_certificate(const RunContext& context, CheckResult& r);

}  // namespace duet::detail
