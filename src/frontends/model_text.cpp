// What the ready-made models print (include/duet/detail/model_text.hpp), compiled once.
#include "duet/detail/model_text.hpp"
#include "duet/gen.hpp"

#include <set>
#include <string>

namespace duet::detail {

std::string describe_ints(const Gen<int>& gen) {
  std::set<int> seen;
  try {
    Source src = Source::from_seed(0xd0a1);
    for (int i = 0; i < 512; ++i) seen.insert(gen(src));
  } catch (const Discard&) {
  } catch (...) {
    return "(its generator threw)";
  }
  if (seen.empty()) return "(none drawn)";
  const long long lo = *seen.begin(), hi = *seen.rbegin();
  if (seen.size() > 2 && hi - lo + 1 == static_cast<long long>(seen.size()))
    return std::to_string(lo) + ".." + std::to_string(hi);
  if (seen.size() <= 8) {
    std::string out;
    for (int v : seen) out += (out.empty() ? "" : ", ") + std::to_string(v);
    return out;
  }
  return std::to_string(seen.size()) + " values from " + std::to_string(lo) + " to " + std::to_string(hi);
}

std::string draft_subject_text(const std::string& binding, bool made_by_binding, std::string_view name,
                               std::initializer_list<const char*> members) {
  const std::string made = made_by_binding ? binding + "::make()" : "std::make_unique<" + binding + "::Sut>()";
  const std::string var(name);
  std::string out = "struct Bound {  // the subject, called through " + binding + " as duet called it\n";
  out += "  using B = " + binding + ";\n  B::Sut& s;\n";
  for (const char* member : members)
    if (member != nullptr) out += "  " + std::string(member) + "\n";
  out += "};\nauto " + var + "_made = " + made + ";  // #include <memory>\nBound " + var + "{*" + var + "_made};";
  return out;
}

}  // namespace duet::detail
