// A user's own history checker: duet-check's command line with a model of the user's (a lock
// service), in a main of a few lines (duet::history::cli_main). Built by both consumer
// projects with -Wall -Wextra -Werror and run on the histories beside it.
#include <duet/history_model.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace {

using duet::history::Operation;
using duet::history::Outcome;

// acquire: :ok got the lock, :fail someone else held it; release: frees one's own lock.
// One lock per :key; the state maps each held lock to its holder.
struct Lock {
  using State = std::map<std::string, std::int64_t>;
  State init() const { return {}; }
  bool step(State& s, const Operation& op) const {
    const std::string lock = op.key ? op.key->to_string() : "";
    const auto it = s.find(lock);
    if (op.f == "acquire") {
      if (op.outcome == Outcome::fail) return it != s.end();
      if (it != s.end()) return op.outcome == Outcome::info;
      s[lock] = op.process;
      return true;
    }
    if (op.outcome == Outcome::fail) return true;
    if (it == s.end() || it->second != op.process) return op.outcome == Outcome::info;
    s.erase(it);
    return true;
  }
  std::vector<std::string> keys(const Operation& op) const { return {op.key ? op.key->to_string() : ""}; }
  std::string show(const State& s) const {
    std::string out = "{";
    for (const auto& [lock, holder] : s) out += " " + lock + ":" + std::to_string(holder);
    return out + " }";
  }
};

}  // namespace

int main(int argc, char** argv) {
  duet::history::Models models;
  models.add("lock", "lock service: acquire, release per :key", Lock{});
  return duet::history::cli_main(argc, argv, models);
}
