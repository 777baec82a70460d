// The shards' certificates of a walk joined into one verdict per check (duet-merge-certificates):
//
//   std::vector<Certificate> shards = ...;  // parse_certificate of each file
//   for (const MergedCheck& m : merge_certificates(shards)) std::puts(m.line().c_str());
//   // TreiberStack	complete	every program of the scope passed over 4 shards: 363 programs …
#pragma once

#include <string>
#include <vector>

#include "certify/certificate.hpp"

namespace duet::detail {

struct MergedCheck {
  /// complete: every program of the scope passed, each searched to its end; passed: every
  /// program passed, some on sampled runs; failed: a shard found a counterexample; incomplete:
  /// a shard is missing, given twice, of another scope, or did not end its part.
  enum class Verdict { complete, passed, failed, incomplete };
  std::string check;
  Verdict verdict = Verdict::incomplete;
  std::string detail;  // what was proved, or why not
  /// CHECK<TAB>verdict<TAB>detail.
  std::string line() const;
};

/// One verdict per check named in `certificates`, in the order of their first certificate.
std::vector<MergedCheck> merge_certificates(const std::vector<Certificate>& certificates);

/// The exit status of duet-merge-certificates for these verdicts: 0 when each is complete or
/// passed, 1 when some failed (and none is incomplete), 2 when some is incomplete.
int merged_status(const std::vector<MergedCheck>& merged);

}  // namespace duet::detail
