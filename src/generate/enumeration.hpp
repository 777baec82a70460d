// Every program of a scope, one at a time: a depth-first walk of the tree of choices a
// generator draws, where each draw is a node with one child per answer the enumeration tries
// (Source::draw's `distinct`, Source::draw_value's values). The same program reached along two
// paths (a weighted choice, a rejected draw, branches that only swap) is run once: programs are
// known by their text, with the branches of one role in a canonical order.
//
//   ProgramEnumeration every(2);
//   while (every.next(src)) {            // src draws the next path's choices
//     draw the program from src; src.program_drawn();
//     if (every.drawn(src, key)) run it;  // false: a program run before
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"

namespace duet::detail {

class ProgramEnumeration {
 public:
  /// `values`: answers tried of each value draw; `shards`, `shard`: this enumeration runs the
  /// programs whose number (in the walk's order, from 0) is `shard` modulo `shards`.
  /// `symmetric`: data values alike up to renaming (EveryProgram::symmetric_values).
  explicit ProgramEnumeration(std::size_t values, std::uint32_t shards = 1, std::uint32_t shard = 0, bool symmetric = false);

  /// Sets `src` to draw the next path's choices (Source::enumerate); false when every path has
  /// been walked.
  bool next(Source& src);
  /// After the path's program is drawn (or its drawing stopped): records where the walk goes
  /// next, from the bounds its draws recorded and `src`'s choices. `key` is the program's text
  /// in canonical form, empty when the path gave no program to run. True when the program is
  /// one to run here: not run before, and of this shard.
  bool drawn(const Source& src, const std::string& key);

  /// Every path walked.
  bool done() const { return done_; }
  /// Distinct programs met so far (every shard's), of which this shard's.
  std::uint64_t programs() const { return met_; }
  std::uint64_t programs_here() const { return here_; }
  /// Paths walked so far (a program reached along several paths counts each).
  std::uint64_t paths() const { return paths_; }
  std::size_t values() const { return path_.values; }
  /// A hash of every distinct program met so far, in the walk's order (FNV-1a over their
  /// canonical texts): the same in every shard of one scope, and the same on every machine, so
  /// that certificates tell whether they cover one scope.
  std::uint64_t fingerprint() const { return fingerprint_; }
  /// Stands for a walk that ran elsewhere (shares of it in other processes): it ended so, having
  /// met `programs` programs, and walks nothing more here.
  void stand_for(bool done, std::uint64_t programs, std::uint64_t fingerprint);

 private:
  EnumerationPath path_;
  std::unordered_set<std::string> seen_;
  std::uint32_t shards_, shard_;
  std::uint64_t paths_ = 0, here_ = 0, met_ = 0;
  std::uint64_t fingerprint_ = 14695981039346656037ull;  // FNV-1a's offset basis
  bool done_ = false;
};

/// A check's walk over every program of its scope (ParallelConfig::every_program): the
/// enumeration, made at the first case with the settings' shards, and what ran of it.
struct EveryProgramWalk {
  std::size_t values = 2;
  bool symmetric_values = false;  // EveryProgram::symmetric_values
  std::string scope;              // "2 branches × up to 2 calls after a prefix of up to 1 call"
  std::optional<ProgramEnumeration> walk;
  std::uint64_t ran = 0, exhausted = 0;  // programs whose trials ran; of which every way was run (an exhaustive search)
  bool searches_every_run = false;       // the executor searches every run of a program (exhaustive)
  bool counted = false;                  // the scope was counted (or that was tried) before the first program ran
  std::uint64_t total = 0;               // the scope's programs, every shard's, when counted; 0: not known
  std::uint32_t shards = 1, shard = 0;   // the settings', from the first case
  /// The programs this shard will run, when known (for the progress line), else 0.
  std::uint64_t planned() const;
  ProgramEnumeration& start(std::uint32_t shards, std::uint32_t shard);
  /// For the pass line: "every program of the scope passed: 363 programs of 2 branches × up to
  /// 2 calls after a prefix of up to 1 call (like branches that only swap counted once), each
  /// searched to its end".
  std::string coverage() const;
  /// What a certificate records of the walk (certify/certificate.hpp): "key: value" lines.
  std::string certificate() const;
  /// Where the walk is; and this walk made to stand for one that ran elsewhere (a walk split
  /// over processes, Config::jobs).
  WalkProgress progress() const;
  void adopt(const WalkProgress& ran_elsewhere);
  /// Why a pass would claim more than ran: the walk did not end (its budget ended it first), or
  /// an exhaustive search of some program stopped before its end; or empty (also when no case
  /// walked here).
  std::string unfinished() const;
};

/// A program's text in canonical form: `prefix`, the branches (those of one role, as
/// `branch_role` gives them, in sorted order: a program whose like branches only swap is the
/// same program) and `suffix`, each call on a line.
std::string canonical_program(const std::vector<std::string>& prefix, std::vector<std::vector<std::string>> branches,
                              const std::vector<std::size_t>& branch_role, const std::vector<std::string>& suffix);

}  // namespace duet::detail
