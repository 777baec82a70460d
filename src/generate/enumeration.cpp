#include "generate/enumeration.hpp"

#include <algorithm>
#include <cstdio>

namespace duet::detail {

ProgramEnumeration::ProgramEnumeration(std::size_t values, std::uint32_t shards, std::uint32_t shard, bool symmetric)
    : shards_(std::max<std::uint32_t>(shards, 1)), shard_(shard) {
  path_.values = std::max<std::size_t>(values, 1);
  path_.symmetric = symmetric;
}

bool ProgramEnumeration::next(Source& src) {
  if (done_) return false;
  src.enumerate(path_);
  return true;
}

// The next path: the last draw with an answer left to try takes it, and every draw after it
// starts again from 0 (the path ends there, and draws past a path's end answer 0).
bool ProgramEnumeration::drawn(const Source& src, const std::string& key) {
  ++paths_;
  const std::vector<std::uint64_t>& bounds = path_.bounds;
  const std::vector<std::uint64_t>& choices = src.choices();
  std::size_t i = std::min(bounds.size(), choices.size());
  while (i > 0 && choices[i - 1] >= bounds[i - 1]) --i;
  if (i == 0) {
    done_ = true;
  } else {
    path_.choices.assign(choices.begin(), choices.begin() + static_cast<std::ptrdiff_t>(i));
    ++path_.choices.back();
  }
  if (key.empty() || !seen_.insert(key).second) return false;
  met_ = seen_.size();
  for (const char c : key) fingerprint_ = (fingerprint_ ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  fingerprint_ = (fingerprint_ ^ 0xffu) * 1099511628211ull;  // the end of a program: no byte of its text
  if ((seen_.size() - 1) % shards_ != shard_) return false;
  ++here_;
  return true;
}

void ProgramEnumeration::stand_for(bool done, std::uint64_t programs, std::uint64_t fingerprint) {
  done_ = done;
  met_ = programs;
  fingerprint_ = fingerprint;
}

WalkProgress EveryProgramWalk::progress() const {
  WalkProgress p;
  p.ran = ran;
  p.exhausted = exhausted;
  p.total = total;
  p.searches_every_run = searches_every_run;
  p.shards = shards;
  p.shard = shard;
  if (walk) {
    p.position = walk->programs();
    p.done = walk->done();
    p.fingerprint = walk->fingerprint();
  }
  return p;
}

void EveryProgramWalk::adopt(const WalkProgress& ran_elsewhere) {
  ran = ran_elsewhere.ran;
  exhausted = ran_elsewhere.exhausted;
  total = ran_elsewhere.total;
  counted = true;
  searches_every_run = ran_elsewhere.searches_every_run;
  shards = ran_elsewhere.shards;
  shard = ran_elsewhere.shard;
  walk.emplace(values, shards, shard, symmetric_values);
  walk->stand_for(ran_elsewhere.done, ran_elsewhere.position, ran_elsewhere.fingerprint);
}

ProgramEnumeration& EveryProgramWalk::start(std::uint32_t shard_count, std::uint32_t shard_index) {
  if (!walk) {
    shards = std::max<std::uint32_t>(shard_count, 1);
    shard = shard_index;
    walk.emplace(values, shards, shard, symmetric_values);
  }
  return *walk;
}

std::string EveryProgramWalk::coverage() const {
  if (!walk) return {};
  const ProgramEnumeration& w = *walk;
  std::string text = w.done() ? "every program of the scope passed: " : "part of the scope passed: ";
  text += std::to_string(ran) + (ran == 1 ? " program of " : " programs of ") + scope +
          (symmetric_values ? " (like branches that only swap counted once; values in the order of their first use)"
                            : " (like branches that only swap counted once)");
  if (w.done() && w.programs() != ran)
    text += ", of the scope's " + std::to_string(w.programs()) + " (the rest in other shards)";
  if (ran > 0 && exhausted == ran) text += ", each searched to its end";
  else if (exhausted > 0) text += ", " + std::to_string(exhausted) + " searched to their end";
  return text;
}

std::uint64_t EveryProgramWalk::planned() const {
  if (total == 0) return 0;
  return total / shards + (shard < total % shards ? 1 : 0);  // the programs numbered shard modulo shards
}

std::string EveryProgramWalk::unfinished() const {
  if (!walk) return {};
  if (walk->done() && searches_every_run && exhausted < ran)
    return "the search of every run stopped before its end in " + std::to_string(ran - exhausted) + " of the " +
           std::to_string(ran) + " programs of the scope (its budget of runs per program)";
  if (walk->done()) return {};
  const std::string of =
      total == 0    ? " (the scope too large to count beforehand)"
      : shards == 1 ? " of the scope's " + std::to_string(total)
                    : " of the shard's " + std::to_string(planned()) + " (the scope's " + std::to_string(total) + ")";
  return "the walk over every program of the scope stopped at its budget, after " + std::to_string(ran) + " programs" + of;
}

std::string EveryProgramWalk::certificate() const {
  if (!walk) return {};
  const ProgramEnumeration& w = *walk;
  char fingerprint[24];
  std::snprintf(fingerprint, sizeof fingerprint, "%016llx", static_cast<unsigned long long>(w.fingerprint()));
  // The scope's programs are known once the walk is done (each shard meets every one); before,
  // only when counted.
  const std::uint64_t scope_programs = w.done() ? w.programs() : total;
  return "scope: " + scope + (symmetric_values ? ", values alike up to renaming" : "") +
         "\nvalues: " + std::to_string(values) +
         "\nscope programs: " + (scope_programs ? std::to_string(scope_programs) : "unknown") +
         "\nscope fingerprint: " + (w.done() ? fingerprint : "unknown") + "\nshards: " + std::to_string(shards) +
         "\nshard: " + std::to_string(shard) + "\nwalk: " + (w.done() ? "done" : "stopped") +
         "\nlast program: " + std::to_string(w.programs()) + "\nprograms: " + std::to_string(ran) +
         "\nsearched to their end: " + std::to_string(exhausted) +
         "\nsearch: " + (searches_every_run ? "every run" : "sampled runs") + "\n";
}

std::string canonical_program(const std::vector<std::string>& prefix, std::vector<std::vector<std::string>> branches,
                              const std::vector<std::size_t>& branch_role, const std::vector<std::string>& suffix) {
  // Branches sorted within each role (branches without roles are all of one role).
  std::vector<std::size_t> order(branches.size());
  for (std::size_t b = 0; b < order.size(); ++b) order[b] = b;
  auto role = [&](std::size_t b) { return b < branch_role.size() ? branch_role[b] : 0; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return role(a) != role(b) ? role(a) < role(b) : branches[a] < branches[b];
  });
  std::string key;
  // Separators no call's text holds: a part's marker, then each call ended by its own.
  auto add = [&key](const std::vector<std::string>& calls, char part) {
    key += '\x1e';
    key += part;
    for (const std::string& c : calls) key += c + '\x1f';
  };
  add(prefix, 'p');
  for (std::size_t b : order) add(branches[b], 'b');
  add(suffix, 's');
  return key;
}

}  // namespace duet::detail
