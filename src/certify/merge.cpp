#include "certify/merge.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace duet::detail {
namespace {

using Group = std::vector<const Certificate*>;

std::string shard_name(const Certificate& c) {
  return "shard " + std::to_string(c.shard) + " of " + std::to_string(c.shards) + " (" + c.path + ")";
}

// Why the certificates of one check cannot be of one walk: another duet, spec, executor, scope,
// value count or shard count, or (among walks that ended) other programs; or empty.
std::string mismatch(const Group& g) {
  const Certificate& first = *g.front();
  const std::pair<const char*, std::string Certificate::*> texts[] = {{"duet", &Certificate::duet},
                                                                      {"spec", &Certificate::spec},
                                                                      {"execution", &Certificate::execution},
                                                                      {"scope", &Certificate::scope}};
  for (const Certificate* c : g) {
    for (const auto& [name, field] : texts)
      if (c->*field != first.*field)
        return "the certificates are not of one walk: " + first.path + " has " + name + " `" + first.*field + "`, " +
               c->path + " `" + c->*field + "`";
    if (c->values != first.values || c->shards != first.shards)
      return "the certificates are not of one walk: " + first.path + " has " + std::to_string(first.values) +
             " values and " + std::to_string(first.shards) + " shards, " + c->path + " " + std::to_string(c->values) +
             " and " + std::to_string(c->shards);
  }
  const Certificate* done = nullptr;
  for (const Certificate* c : g) {
    if (!c->walk_done) continue;
    if (done != nullptr && (c->fingerprint != done->fingerprint || c->scope_programs != done->scope_programs))
      return "the shards walked different programs (" + done->path + " and " + c->path +
             " differ in the scope's fingerprint): the spec, its generators or its settings changed between them";
    done = c;
  }
  return {};
}

// Which shards are missing or given twice, or empty.
std::string shard_gaps(const Group& g) {
  const std::uint64_t shards = g.front()->shards;
  std::map<std::uint64_t, const Certificate*> by_index;
  for (const Certificate* c : g)
    if (const auto [it, fresh] = by_index.emplace(c->shard, c); !fresh)
      return "shard " + std::to_string(c->shard) + " of " + std::to_string(shards) + " is given twice (" + it->second->path +
             ", " + c->path + ")";
  std::string missing;
  std::uint64_t count = 0;
  for (std::uint64_t i = 0; i < shards; ++i)
    if (!by_index.contains(i)) {
      if (++count <= 8) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
  if (count == 0) return {};
  return std::to_string(count) + " of the " + std::to_string(shards) + " shards have no certificate here (" +
         (count == 1 ? "shard " : "shards ") + missing + (count > 8 ? ", …" : "") + ")";
}

// Of the shards that found a counterexample, the one whose failing program comes first in the
// walk's order: the counterexample the walk unsharded stops at, whatever the number of shards.
const Certificate* first_failure(const Group& g) {
  const Certificate* first = nullptr;
  auto place = [](const Certificate* c) { return c->last_program == 0 ? ~std::uint64_t{0} : c->last_program; };
  for (const Certificate* c : g)
    if (c->verdict == "failed" && (first == nullptr || place(c) < place(first))) first = c;
  return first;
}

MergedCheck merge_group(const Group& g) {
  MergedCheck m;
  m.check = g.front()->check;
  if (const Certificate* c = first_failure(g)) {
    m.verdict = MergedCheck::Verdict::failed;
    m.detail = shard_name(*c) + " found a counterexample: " + c->why +
               (c->replay.empty() ? "" : "; replay: DUET_REPLAY=" + c->replay);
    return m;
  }
  std::string why = mismatch(g);
  if (why.empty()) why = shard_gaps(g);
  for (const Certificate* c : g)
    if (why.empty() && (c->verdict != "passed" || !c->walk_done))
      why = shard_name(*c) + " did not end its part of the walk: " + (c->why.empty() ? "its walk stopped" : c->why);
  std::uint64_t programs = 0, searched = 0, trials = 0;
  bool every_run = true;
  for (const Certificate* c : g) {
    programs += c->programs;
    searched += c->searched;
    trials += c->trials;
    every_run = every_run && c->every_run;
  }
  const Certificate& first = *g.front();
  if (why.empty() && programs != first.scope_programs)
    why = "the shards ran " + std::to_string(programs) + " programs of the scope's " + std::to_string(first.scope_programs);
  if (!why.empty()) {
    m.detail = why;
    return m;
  }
  const bool complete = every_run && searched == programs;
  m.verdict = complete ? MergedCheck::Verdict::complete : MergedCheck::Verdict::passed;
  m.detail = "every program of the scope passed over " + std::to_string(first.shards) +
             (first.shards == 1 ? " shard: " : " shards: ") + std::to_string(programs) + " programs of " + first.scope +
             " (the first " + std::to_string(first.values) + " values of each argument), " +
             (complete ? "each searched to its end" : "their runs sampled (not every run searched)") + "; " +
             std::to_string(trials) + " trials (" + first.execution + ", duet " + first.duet + ")";
  return m;
}

}  // namespace

std::string MergedCheck::line() const {
  static constexpr const char* kWords[] = {"complete", "passed", "failed", "incomplete"};
  return check + "\t" + kWords[static_cast<int>(verdict)] + "\t" + detail;
}

std::vector<MergedCheck> merge_certificates(const std::vector<Certificate>& certificates) {
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const Certificate& c : certificates) {
    Group& g = groups[c.check];
    if (g.empty()) order.push_back(c.check);
    g.push_back(&c);
  }
  std::vector<MergedCheck> merged;
  merged.reserve(order.size());
  for (const std::string& check : order) merged.push_back(merge_group(groups[check]));
  return merged;
}

int merged_status(const std::vector<MergedCheck>& merged) {
  const auto any = [&merged](MergedCheck::Verdict v) {
    return std::any_of(merged.begin(), merged.end(), [v](const MergedCheck& m) { return m.verdict == v; });
  };
  if (any(MergedCheck::Verdict::incomplete)) return 2;
  return any(MergedCheck::Verdict::failed) ? 1 : 0;
}

}  // namespace duet::detail
