// Whether a parallel check can run as written: its ParallelConfig (branches, roles, executor,
// progress), a scenario's program under it, and the operations its roles and progress name;
// with the helpers they count and name by (branch_count, op_name).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "duet/parallel.hpp"
#include "execute/named_executor.hpp"

namespace duet::detail {

std::string given_program_error(const ParallelConfig& pc, const GivenProgram& given) {
  const std::vector<std::size_t>& branches = given.shape.branches;
  if (pc.every_program)
    return "every_program walks the programs a check generates, and a scenario is one program of its own (leave "
           "every_program out)";
  if (branches.size() < 2 || branches.size() > 8)
    return "the scenario has " + std::to_string(branches.size()) + " branches (2 to 8)";
  if (pc.roles.empty()) return {};
  if (branches.size() != branch_count(pc))
    return "the scenario has " + std::to_string(branches.size()) + " branches, and the roles' counts add up to " +
           std::to_string(branch_count(pc));
  std::vector<const Role*> role_of;
  for (const Role& r : pc.roles) role_of.insert(role_of.end(), r.count, &r);
  for (std::size_t b = 0, at = given.shape.prefix; b < branches.size(); at += branches[b], ++b)
    for (std::size_t k = 0; k < branches[b]; ++k)
      if (!op_allowed(&role_of[b]->ops, op_name(given.calls[at + k])))
        return "branch " + std::to_string(b + 1) + " of the scenario calls " + given.calls[at + k] + ", which its role " +
               role_of[b]->name + " does not allow";
  return {};
}

std::string op_name(std::string_view call) {
  const std::size_t paren = call.find('(');
  if (paren == std::string_view::npos) {
    const std::size_t first = call.find_first_not_of(' ');
    if (first == std::string_view::npos) return {};
    const std::size_t end = call.find(' ', first);
    return std::string(call.substr(first, end == std::string_view::npos ? std::string_view::npos : end - first));
  }
  std::size_t start = paren;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '~'; };
  while (start > 0 && word(call[start - 1])) --start;
  return std::string(call.substr(start, paren - start));
}

std::size_t branch_count(const ParallelConfig& pc) {
  if (pc.roles.empty()) return pc.branches;
  std::size_t n = 0;
  for (const Role& r : pc.roles) n += r.count;
  return n;
}

std::string op_names_error(const ParallelConfig& pc, const std::vector<std::string>& known) {
  auto unknown = [&](const std::string& who, const std::string& op) {
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return who + " names the operation `" + op +
           "`, which the spec does not have (its operations: " + (list.empty() ? "none drawn" : list) + ")";
  };
  auto is_known = [&](const std::string& op) { return std::find(known.begin(), known.end(), op) != known.end(); };
  for (const Role& r : pc.roles)
    for (const std::string& op : r.ops)
      if (!is_known(op)) return unknown("role " + r.name, op);
  for (const Progress::Override& o : pc.progress.ops)
    if (!is_known(o.op)) return unknown("progress", o.op);
  return {};
}

// Why the roles cannot shape a program, or empty.
std::string check_roles(const ParallelConfig& pc) {
  const ParallelConfig defaults;
  std::vector<std::string> names;
  for (const Role& r : pc.roles) {
    if (r.name.empty()) return "a role has no name";
    if (std::find(names.begin(), names.end(), r.name) != names.end()) return "two roles are named " + r.name;
    names.push_back(r.name);
    if (r.count == 0) return "role " + r.name + " has count 0 (at least 1 branch)";
    if (r.ops.empty()) return "role " + r.name + " names no operation";
  }
  const std::size_t n = branch_count(pc);
  if (n < 2 || n > 8) return "the roles' counts add up to " + std::to_string(n) + " branches (2 to 8)";
  if (pc.branches != defaults.branches && pc.branches != n)
    return "branches is " + std::to_string(pc.branches) + " but the roles' counts add up to " + std::to_string(n) +
           " (leave branches out, or make them agree)";
  return {};
}

std::string check_parallel_config(const ParallelConfig& pc) {
  if (std::string why = named_executor_error(pc); !why.empty()) return why;
  if (pc.executor && (pc.thread_hooks.start || pc.thread_hooks.stop))
    return "thread_hooks are for the thread pool a check makes, and this check has an executor of its own: give "
           "them to duet::make_thread_pool(pin, hooks), or on fibers to FiberOptions::on_fiber_start / on_fiber_stop";
  if (!pc.roles.empty()) {
    if (std::string why = check_roles(pc); !why.empty()) return why;
  } else if (pc.branches < 2 || pc.branches > 8) {
    return "branches must be 2 to 8 (got " + std::to_string(pc.branches) + ")";
  }
  if (pc.branch_length == 0) return "branch_length must be at least 1";
  if (pc.every_program && pc.every_program->values == 0) return "every_program's values must be at least 1";
  if (pc.trials == 0) return "trials must be at least 1";
  if (pc.progress.stated())
    return pc.executor ? pc.executor->trial_driver().progress_unsupported(pc.progress)
                       : TrialDriver().progress_unsupported(pc.progress);
  return {};
}

CheckResult parallel_config_error(const std::string& name, const std::string& why) {
  return nothing_tested(name, "bad ParallelConfig: " + why);
}

}  // namespace duet::detail
