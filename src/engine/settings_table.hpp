// The one table of run settings: the flag parser, `--duet_help` and the settings section of
// docs/reference.md are all made from it (a test keeps the document in step).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>

namespace duet::detail {

struct SettingInfo {
  const char* knob;      // "seed": DUET_SEED and --duet_seed
  const char* field;     // the duet::Config field, or nullptr
  const char* value;     // what the value looks like: "N", "SECONDS", "TOKEN"
  const char* fallback;  // the default, in words
  const char* meaning;   // one or two sentences
};

std::span<const SettingInfo> settings_table();
/// The settings as a Markdown table (docs/reference.md's generated block).
std::string settings_markdown();
/// A setting's text and where it came from ("--duet_executor", "DUET_EXECUTOR"), when the flag
/// or the variable sets it; throws std::invalid_argument for a variable set empty.
std::optional<std::pair<std::string, std::string>> setting_text(const std::string& knob);

}  // namespace duet::detail
