// duet's transaction model: Knossos' multi-register, whose operations are transactions of reads
// and writes over several registers, applied atomically. It compiles a part's transactions into
// an oracle for the search; the registry that lists it is models.cpp.
#include <map>
#include <memory>

#include "check/models.hpp"

namespace duet::history::detail {

namespace {

// ---------------------------------------------------------------- multi-register
// Knossos' multi-register: a transaction (:txn) is a vector of micro-operations [:r k v] and
// [:w k v] applied atomically; every register starts nil; a read of nil tells nothing.
struct MicroOp {
  bool write;
  std::uint32_t reg;
  std::uint32_t value;  // interned; 0: nil
};

struct MultiRegisterOracle {
  using State = std::vector<std::uint32_t>;
  static constexpr bool memo = true;
  std::vector<std::vector<MicroOp>> txns;
  std::vector<Mode> modes;
  std::size_t registers = 0;
  Interner values;
  std::vector<std::string> register_names;
  State start;  // by register; 0: nil

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const {
    if (modes[i] == Mode::fail) return true;
    const bool check_reads = modes[i] == Mode::ok;
    for (const MicroOp& m : txns[i]) {
      if (m.write) s[m.reg] = m.value;
      else if (check_reads && m.value != 0 && s[m.reg] != m.value) return false;
    }
    return true;
  }
  std::uint64_t hash(const State& s) const { return hash_ids(0x6d72, s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  std::size_t heap_bytes(const State& s) const { return s.size() * sizeof(std::uint32_t); }
  bool read_only(std::size_t i) const {
    if (modes[i] == Mode::fail) return true;
    for (const MicroOp& m : txns[i])
      if (m.write) return false;
    return true;
  }
  std::string show(const State& s) const {
    std::string out = "{";
    for (std::size_t r = 0; r < s.size(); ++r) {
      if (r > 0) out += ", ";
      out += register_names[r] + " " + (s[r] == 0 ? std::string("nil") : cut(values.text(s[r])));
    }
    return out + "}";
  }
};

const std::vector<Value>& txn_micro_ops(const History& h, const Operation& op) {
  if (op.f != "txn") reject(h, op, "the multi-register model has txn, not '" + cut(op.f) + "'");
  const Value& v = op.outcome == Outcome::ok && op.output.kind == Value::Kind::vector ? op.output : op.input;
  if (v.kind != Value::Kind::vector)
    reject(h, op, "a txn's value must be a vector of [:r k v] / [:w k v], not " + v.to_string(kQuoteBytes));
  for (const Value& m : v.items)
    if (m.kind != Value::Kind::vector || m.items.size() != 3 || m.items[0].kind != Value::Kind::keyword ||
        (m.items[0].text != "r" && m.items[0].text != "w" && m.items[0].text != "read" && m.items[0].text != "write"))
      reject(h, op, "a txn's micro-operation must be [:r k v] or [:w k v], not " + m.to_string(kQuoteBytes));
  return v.items;
}

// --init for multi-register: one value for every register, or a map {register value} (the
// others start at nil). Registers are named as in the transactions' micro-operations.
struct MultiInit {
  std::optional<Value> all;
  std::map<std::string, Value> by_register;
};
MultiInit multi_init(const std::optional<Value>& init) {
  MultiInit out;
  if (!init || init->is_nil()) return out;
  if (init->kind != Value::Kind::map) {
    if (init->kind == Value::Kind::vector)
      throw std::invalid_argument("--init for multi-register must be a value or a map {register value}, not " +
                                  init->to_string(kQuoteBytes));
    out.all = *init;
    return out;
  }
  for (std::size_t i = 0; i + 1 < init->items.size(); i += 2)
    out.by_register[init->items[i].to_string()] = init->items[i + 1];
  return out;
}

class MultiRegister final : public Model {
 public:
  std::string_view name() const override { return "multi-register"; }
  std::string_view summary() const override {
    return "Knossos multi-register: :txn of [:r k v] / [:w k v], registers start nil; partitions by registers touched together";
  }
  std::string initial_state(const std::optional<Value>& init) const override {
    const MultiInit given = multi_init(init);
    if (given.all) return "every register starts at " + given.all->to_string(kQuoteBytes);
    if (given.by_register.empty()) return "every register starts at nil";
    return "registers start as --init gives (" + std::to_string(given.by_register.size()) + "), the others at nil";
  }
  std::vector<std::vector<std::size_t>> partition(const History& h) const override {
    return components_by_key(h, [&](const Operation& op) {
      std::vector<std::string> keys;
      for (const Value& m : txn_micro_ops(h, op)) keys.push_back(m.items[1].to_string());
      if (keys.empty()) keys.push_back("");  // an empty transaction constrains nothing
      return keys;
    });
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    MultiRegisterOracle oracle;
    std::map<std::string, std::uint32_t> regs;
    for (std::size_t i : part)
      for (const Value& m : txn_micro_ops(h, h.ops[i])) regs.emplace(m.items[1].to_string(), 0);
    for (auto& [name, index] : regs) {
      index = static_cast<std::uint32_t>(oracle.register_names.size());
      oracle.register_names.push_back(cut(name));
    }
    oracle.registers = regs.size();
    const MultiInit given = multi_init(c.init);
    oracle.start.assign(oracle.registers, 0);
    for (const auto& [name, index] : regs) {
      const Value* v = given.all ? &*given.all : nullptr;
      if (auto it = given.by_register.find(name); it != given.by_register.end()) v = &it->second;
      if (v != nullptr && !v->is_nil()) oracle.start[index] = oracle.values.id(v->to_string());
    }
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      std::vector<MicroOp> txn;
      for (const Value& m : txn_micro_ops(h, op)) {
        const bool write = m.items[0].text == "w" || m.items[0].text == "write";
        const Value& v = m.items[2];
        txn.push_back({write, regs[m.items[1].to_string()], v.is_nil() ? 0u : oracle.values.id(v.to_string())});
      }
      oracle.txns.push_back(std::move(txn));
      oracle.modes.push_back(mode_of(op));
    }
    return search_part(h, part, oracle, c);
  }
};

}  // namespace

std::unique_ptr<const Model> make_multi_register() { return std::make_unique<MultiRegister>(); }

}  // namespace duet::history::detail
