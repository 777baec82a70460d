#include "certify/certificate.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>

#include "duet/check_result.hpp"
#include "duet/version.hpp"
#include "engine/run_context.hpp"
#include "engine/settings_table.hpp"
#include "report/report.hpp"

namespace duet::detail {
namespace {

// Format 2: searches order the calls' real time under every memory model. A format-1 walk
// under sequential consistency (or of seq_cst operations only) could pass a program whose
// failure needs one call to return before another begins.
constexpr std::string_view kFirstLine = "duet certificate 2";

// A line of the report with what a certificate keeps of it: no line breaks.
std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > 400 ? line.substr(0, 400) + "…" : line;
}

std::string verdict_of(const CheckResult& r) {
  switch (r.status) {
    case CheckResult::Status::passed: return "passed";
    case CheckResult::Status::failed: return "failed";
    case CheckResult::Status::error: break;
  }
  return "inconclusive";
}

std::uint64_t number(const std::map<std::string, std::string, std::less<>>& fields, std::string_view key) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw std::invalid_argument("no line `" + std::string(key) + ": …`");
  if (it->second == "unknown") return 0;
  std::uint64_t v = 0;
  const char* end = it->second.data() + it->second.size();
  const auto [at, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc() || at != end)
    throw std::invalid_argument("`" + std::string(key) + ": " + it->second + "` is not a number");
  return v;
}

std::string text(const std::map<std::string, std::string, std::less<>>& fields, std::string_view key, bool required = true) {
  const auto it = fields.find(key);
  if (it != fields.end()) return it->second;
  if (required) throw std::invalid_argument("no line `" + std::string(key) + ": …`");
  return {};
}

// The "key: value" lines after the first, each key once.
std::map<std::string, std::string, std::less<>> fields_of(std::string_view text) {
  std::map<std::string, std::string, std::less<>> fields;
  std::size_t at = text.find('\n') + 1;
  for (int line = 2; at < text.size(); ++line) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(at, end - at);
    at = end + 1;
    if (l.empty()) continue;
    const std::size_t colon = l.find(": ");
    if (colon == std::string_view::npos || colon == 0)
      throw std::invalid_argument("line " + std::to_string(line) + " is not `key: value`");
    if (!fields.emplace(std::string(l.substr(0, colon)), std::string(l.substr(colon + 2))).second)
      throw std::invalid_argument("line " + std::to_string(line) + " repeats `" + std::string(l.substr(0, colon)) + "`");
  }
  return fields;
}

}  // namespace

std::string certificate_text(const RunContext& context, const CheckResult& r) {
  char spec[16];
  std::snprintf(spec, sizeof spec, "0x%08x", static_cast<unsigned>(context.property.spec_id));
  std::string out = std::string(kFirstLine) + "\ncheck: " + context.settings.name + "\nduet: " + version_string +
                    "\nspec: " + spec + "\nexecution: " + context.property.execution->name() + "\n" +
                    context.walk_certificate + "trials: " + std::to_string(r.trials) + "\nverdict: " + verdict_of(r) + "\n";
  if (!r.passed()) out += "why: " + first_line(r.report) + "\n";
  if (r.status == CheckResult::Status::failed && !r.replay_token.empty()) out += "replay: " + r.replay_token + "\n";
  return out;
}

Certificate parse_certificate(std::string_view text) {
  if (text.substr(0, text.find('\n')) != kFirstLine) {
    if (text.starts_with("duet certificate 1\n"))
      throw std::invalid_argument(
          "a certificate of format 1, from a duet whose exhaustive search did not order the calls' real time: a pass "
          "in it may have missed a failure; run its walk again");
    if (text.starts_with("duet certificate "))
      throw std::invalid_argument("a certificate of a later format (`" + std::string(text.substr(0, text.find('\n'))) +
                                  "`): merge it with the duet that wrote it");
    throw std::invalid_argument("not a duet certificate (its first line is not `" + std::string(kFirstLine) + "`)");
  }
  const auto fields = fields_of(text);
  Certificate c;
  c.check = detail::text(fields, "check");
  c.duet = detail::text(fields, "duet");
  c.spec = detail::text(fields, "spec");
  c.execution = detail::text(fields, "execution");
  c.scope = detail::text(fields, "scope");
  c.fingerprint = detail::text(fields, "scope fingerprint");
  c.values = number(fields, "values");
  c.scope_programs = number(fields, "scope programs");
  c.shards = number(fields, "shards");
  c.shard = number(fields, "shard");
  c.programs = number(fields, "programs");
  c.searched = number(fields, "searched to their end");
  c.trials = number(fields, "trials");
  c.walk_done = detail::text(fields, "walk") == "done";
  c.every_run = detail::text(fields, "search") == "every run";
  c.verdict = detail::text(fields, "verdict");
  if (c.verdict != "passed" && c.verdict != "failed" && c.verdict != "inconclusive")
    throw std::invalid_argument("`verdict: " + c.verdict + "` is none of passed, failed, inconclusive");
  c.why = detail::text(fields, "why", c.verdict != "passed");
  c.replay = detail::text(fields, "replay", false);
  if (fields.contains("last program")) c.last_program = number(fields, "last program");
  if (c.shards == 0 || c.shard >= c.shards)
    throw std::invalid_argument("shard " + std::to_string(c.shard) + " of " + std::to_string(c.shards) + " shards");
  return c;
}

std::string certificate_path(const std::string& setting, const std::string& check, std::uint64_t shard,
                             std::uint64_t shards) {
  if (setting.empty()) return {};
  std::error_code ec;
  if (!setting.ends_with('/') && !std::filesystem::is_directory(setting, ec)) return setting;
  return (std::filesystem::path(setting) /
          (identifier(check) + ".shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".cert"))
      .string();
}

void leave_certificate(const RunContext& context, CheckResult& r) {
  // A negative test proves a structure unsafe: there is no correctness to certify.
  if (context.walk_certificate.empty() || context.property.expect_failure) return;
  std::optional<std::pair<std::string, std::string>> setting;
  try {
    setting = setting_text("certificate");
  } catch (const std::invalid_argument&) {
    return;  // set empty since the check began: resolving its settings said so, and nothing is written
  }
  if (!setting || setting->first.empty()) return;
  const Settings& s = context.settings;
  const std::string path = certificate_path(setting->first, s.name, s.shard_index, s.shards);
  try {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    write_file_aside(path, certificate_text(context, r));
  } catch (const std::exception& e) {
    r.status = CheckResult::Status::error;
    r.report = "duet: " + s.name + ": error: the certificate " + setting->second + " asks for was not written (" + e.what() +
               "); the walk's own verdict was: " + first_line(r.report.empty() ? verdict_line(r) : r.report) + "\n";
    return;
  }
  if (r.passed() && s.verbose >= 0) std::fprintf(stdout, "duet: %s: certificate: %s\n", s.name.c_str(), path.c_str());
  r.report += "  certificate: " + path + "\n";
}

}  // namespace duet::detail
