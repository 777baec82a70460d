// Certificates of walks over every program (src/certify/): read back exactly as written, refused
// when damaged or of a later format; merged into "complete" only when every shard of one scope is
// there once and ended its part; a counterexample in any shard fails the merge.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "certify/certificate.hpp"
#include "certify/merge.hpp"

namespace {

using duet::detail::Certificate;
using duet::detail::certificate_path;
using duet::detail::merge_certificates;
using duet::detail::merged_status;
using duet::detail::MergedCheck;
using duet::detail::parse_certificate;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Shard `shard` of `shards` of a walk of 27 programs (a share of the programs and trials each).
std::string shard_text(int shard, int shards, const std::string& verdict = "passed", std::uint64_t programs = 0) {
  const std::uint64_t share = programs ? programs : 27 / shards + (static_cast<unsigned>(shard) < 27u % shards ? 1 : 0);
  std::string t =
      "duet certificate 2\ncheck: Counter\nduet: 0.1.0\nspec: 0x1234abcd\nexecution: fibers:exhaustive(unbounded)\n"
      "scope: 2 branches × up to 2 calls\nvalues: 2\nscope programs: 27\nscope fingerprint: 00aa00bb00cc00dd\n"
      "shards: " +
      std::to_string(shards) + "\nshard: " + std::to_string(shard) + "\nwalk: done\nprograms: " + std::to_string(share) +
      "\nsearched to their end: " + std::to_string(share) + "\nsearch: every run\ntrials: " + std::to_string(share * 10) +
      "\nverdict: " + verdict + "\n";
  if (verdict == "failed") t += "why: duet: Counter: the counter lost an increment\nreplay: duet1.AAAA\n";
  if (verdict == "inconclusive") t += "why: duet: Counter: inconclusive: the walk stopped at its budget\n";
  return t;
}

Certificate shard(int i, int n, const std::string& verdict = "passed") {
  Certificate c = parse_certificate(shard_text(i, n, verdict));
  c.path = "c" + std::to_string(i) + ".cert";
  return c;
}

std::vector<Certificate> all_shards(int n) {
  std::vector<Certificate> v;
  for (int i = 0; i < n; ++i) v.push_back(shard(i, n));
  return v;
}

std::string expect_refused(const std::string& text) {
  try {
    (void)parse_certificate(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(Certificate, ReadsBackEveryField) {
  const Certificate c = parse_certificate(shard_text(1, 4));
  EXPECT_EQ(c.check, "Counter");
  EXPECT_EQ(c.duet, "0.1.0");
  EXPECT_EQ(c.spec, "0x1234abcd");
  EXPECT_EQ(c.execution, "fibers:exhaustive(unbounded)");
  EXPECT_EQ(c.scope, "2 branches × up to 2 calls");
  EXPECT_EQ(c.values, 2u);
  EXPECT_EQ(c.scope_programs, 27u);
  EXPECT_EQ(c.fingerprint, "00aa00bb00cc00dd");
  EXPECT_EQ(c.shards, 4u);
  EXPECT_EQ(c.shard, 1u);
  EXPECT_TRUE(c.walk_done);
  EXPECT_EQ(c.programs, 7u);
  EXPECT_EQ(c.searched, 7u);
  EXPECT_TRUE(c.every_run);
  EXPECT_EQ(c.trials, 70u);
  EXPECT_EQ(c.verdict, "passed");
  const Certificate f = parse_certificate(shard_text(0, 1, "failed"));
  EXPECT_EQ(f.why, "duet: Counter: the counter lost an increment");
  EXPECT_EQ(f.replay, "duet1.AAAA");
}

TEST(Certificate, DamagedOrForeignTextIsRefusedSayingWhy) {
  EXPECT_TRUE(has(expect_refused("hello\n"), "not a duet certificate"));
  EXPECT_TRUE(has(expect_refused("duet certificate 3\ncheck: x\n"), "a later format"));
  // Format 1's searches did not order the calls' real time: its passes are not trusted.
  EXPECT_TRUE(has(expect_refused("duet certificate 1\ncheck: x\n"), "run its walk again"));
  std::string t = shard_text(0, 1);
  EXPECT_TRUE(has(expect_refused(t.substr(0, t.find("trials:"))), "no line `trials: …`"));
  EXPECT_TRUE(has(expect_refused(t + "shard: 0\n"), "repeats `shard`"));
  EXPECT_TRUE(has(expect_refused(t + "no colon here\n"), "is not `key: value`"));
  std::string bad = t;
  bad.replace(bad.find("programs: 27"), 12, "programs: 2x");
  EXPECT_TRUE(has(expect_refused(bad), "`scope programs: 2x` is not a number"));
  EXPECT_TRUE(has(expect_refused(shard_text(4, 4)), "shard 4 of 4 shards"));
  EXPECT_TRUE(has(expect_refused(shard_text(0, 1, "maybe")), "none of passed, failed, inconclusive"));
  const std::string failed = shard_text(0, 1, "failed");
  EXPECT_TRUE(has(expect_refused(failed.substr(0, failed.find("why:"))), "no line `why: …`"));
}

TEST(Certificate, APathEndingInASlashIsADirectoryOfOneFilePerShard) {
  EXPECT_EQ(certificate_path("out/", "Treiber stack", 2, 4), "out/Treiber_stack.shard-2-of-4.cert");
  EXPECT_EQ(certificate_path("out/one.cert", "Treiber stack", 2, 4), "out/one.cert");
  EXPECT_EQ(certificate_path("", "x", 0, 1), "");
}

TEST(MergeCertificates, EveryShardOnceIsComplete) {
  const std::vector<MergedCheck> m = merge_certificates(all_shards(4));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].verdict, MergedCheck::Verdict::complete) << m[0].detail;
  EXPECT_EQ(m[0].line(),
            "Counter\tcomplete\tevery program of the scope passed over 4 shards: 27 programs of 2 branches × up to 2 "
            "calls (the first 2 values of each argument), each searched to its end; 270 trials "
            "(fibers:exhaustive(unbounded), duet 0.1.0)");
  EXPECT_EQ(merged_status(m), 0);
}

TEST(MergeCertificates, AMissingOrRepeatedShardIsIncomplete) {
  std::vector<Certificate> v = all_shards(4);
  v.erase(v.begin() + 2);
  std::vector<MergedCheck> m = merge_certificates(v);
  EXPECT_EQ(m[0].verdict, MergedCheck::Verdict::incomplete);
  EXPECT_EQ(m[0].detail, "1 of the 4 shards have no certificate here (shard 2)");
  EXPECT_EQ(merged_status(m), 2);
  v.push_back(shard(1, 4));
  m = merge_certificates(v);
  EXPECT_EQ(m[0].detail, "shard 1 of 4 is given twice (c1.cert, c1.cert)");
}

TEST(MergeCertificates, ShardsOfAnotherScopeOrOtherProgramsDoNotMerge) {
  std::vector<Certificate> v = all_shards(2);
  v[1].scope = "2 branches × up to 3 calls";
  EXPECT_TRUE(has(merge_certificates(v)[0].detail, "not of one walk: c0.cert has scope `2 branches × up to 2 calls`"));
  v = all_shards(2);
  v[1].fingerprint = "ffffffffffffffff";
  EXPECT_TRUE(has(merge_certificates(v)[0].detail, "the shards walked different programs"));
  v = all_shards(2);
  v[1].shards = 3;
  EXPECT_EQ(merge_certificates(v)[0].verdict, MergedCheck::Verdict::incomplete);
  v = all_shards(2);
  v[1].programs -= 1;
  EXPECT_EQ(merge_certificates(v)[0].detail, "the shards ran 26 programs of the scope's 27");
}

TEST(MergeCertificates, ACounterexampleInAnyShardFailsTheMergeWithItsToken) {
  std::vector<Certificate> v = all_shards(3);
  v.pop_back();  // even with a shard missing: the counterexample decides
  v.push_back(shard(2, 3, "failed"));
  const std::vector<MergedCheck> m = merge_certificates(v);
  EXPECT_EQ(m[0].verdict, MergedCheck::Verdict::failed);
  EXPECT_EQ(m[0].detail,
            "shard 2 of 3 (c2.cert) found a counterexample: duet: Counter: the counter lost an increment; replay: "
            "DUET_REPLAY=duet1.AAAA");
  EXPECT_EQ(merged_status(m), 1);
}

// Two shards found counterexamples: the merge names the one whose program comes first in the
// walk's order, the one the walk unsharded stops at; a shard that does not say where comes last.
TEST(MergeCertificates, TheCounterexampleFirstInTheWalksOrderIsTheMergesWhateverTheShards) {
  std::vector<Certificate> v = all_shards(3);
  for (const auto& [i, last] : {std::pair{0, 19}, std::pair{1, 7}, std::pair{2, 0}}) {
    v[i] = shard(i, 3, "failed");
    v[i].last_program = static_cast<std::uint64_t>(last);
    v[i].replay = "duet1.SHARD" + std::to_string(i);
  }
  const std::vector<MergedCheck> m = merge_certificates(v);
  EXPECT_EQ(m[0].verdict, MergedCheck::Verdict::failed);
  EXPECT_TRUE(has(m[0].detail, "shard 1 of 3 (c1.cert) found a counterexample")) << m[0].detail;
  EXPECT_TRUE(has(m[0].detail, "DUET_REPLAY=duet1.SHARD1")) << m[0].detail;
  EXPECT_EQ(parse_certificate(shard_text(0, 1) + "last program: 12\n").last_program, 12u);
  EXPECT_EQ(parse_certificate(shard_text(0, 1)).last_program, 0u);  // before the line existed
}

TEST(MergeCertificates, AShardThatDidNotEndItsPartOrSampledRunsIsNotComplete) {
  std::vector<Certificate> v = all_shards(2);
  v[0] = shard(0, 2, "inconclusive");
  v[0].walk_done = false;
  EXPECT_EQ(merge_certificates(v)[0].detail,
            "shard 0 of 2 (c0.cert) did not end its part of the walk: duet: Counter: inconclusive: the walk stopped at "
            "its budget");
  v = all_shards(2);
  v[1].every_run = false;
  v[1].searched = 0;
  const MergedCheck m = merge_certificates(v)[0];
  EXPECT_EQ(m.verdict, MergedCheck::Verdict::passed);
  EXPECT_TRUE(has(m.detail, "their runs sampled (not every run searched)")) << m.detail;
}

TEST(MergeCertificates, ChecksAreMergedApartInTheOrderGiven) {
  std::vector<Certificate> v = all_shards(1);
  Certificate other = shard(0, 1, "failed");
  other.check = "Another";
  v.insert(v.begin(), other);
  const std::vector<MergedCheck> m = merge_certificates(v);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].check, "Another");
  EXPECT_EQ(m[0].verdict, MergedCheck::Verdict::failed);
  EXPECT_EQ(m[1].verdict, MergedCheck::Verdict::complete);
  EXPECT_EQ(merged_status(m), 1);
}

}  // namespace
