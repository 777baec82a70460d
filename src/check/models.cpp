// The models duet-check knows: registers with compare-and-set, key-value stores, multi-register
// transactions, queues, sets and counters. Each turns a partition's operations into a compact
// table (integers and interned ids) once, so that the search applies an operation in a few
// instructions.
#include <algorithm>
#include <climits>
#include <map>
#include <array>
#include <span>

#include "duet/hash.hpp"
#include "check/model.hpp"

namespace duet::history::detail {

void reject(const History& h, const Operation& op, const std::string& what) {
  // An operation recorded in memory (a Recorder) has no line: the source alone.
  const std::string at = op.invoke_line > 0 ? h.source + ":" + std::to_string(op.invoke_line) : h.source;
  throw std::invalid_argument(at + ": " + what + " (" + describe(op) + ")");
}

std::vector<std::vector<std::size_t>> single_part(const History& h) {
  std::vector<std::size_t> all(h.ops.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return {std::move(all)};
}

}  // namespace duet::history::detail

namespace duet::history {
std::vector<std::vector<std::size_t>> Model::partition(const History& h) const { return detail::single_part(h); }
}  // namespace duet::history

namespace duet::history::detail {


namespace {

// The memo's hash of a state made of interned ids (per key, per register, queue or set contents).
std::uint64_t hash_ids(std::uint64_t seed, std::span<const std::uint32_t> ids) {
  for (std::uint32_t v : ids) seed = duet::detail::hash_combine(seed, v);
  return seed;
}

Mode mode_of(const Operation& op) {
  if (op.outcome == Outcome::info) return Mode::pending;
  if (op.result_unknown) return Mode::unknown_result;
  return op.outcome == Outcome::fail ? Mode::fail : Mode::ok;
}

// ---------------------------------------------------------------- cas-register
// A single register holding an integer or nothing (nil), with read, write and cas. Values are
// interned as dense ids, 0 for nil: every 64-bit integer is a value, INT64_MIN included (no
// integer can serve as nil's sentinel). Its operations and step are in model.hpp.
struct RegisterValues {
  std::vector<std::int64_t> numbers{0};  // by id; [0] stands for nil
  std::unordered_map<std::int64_t, std::uint32_t> ids;
  std::uint32_t id(std::int64_t n) {
    auto [it, fresh] = ids.try_emplace(n, static_cast<std::uint32_t>(numbers.size()));
    if (fresh) numbers.push_back(n);
    return it->second;
  }
};

std::uint32_t register_value(const History& h, const Operation& op, const Value& v, const char* what,
                             RegisterValues& values) {
  if (v.is_nil()) return kNil;
  if (v.is_integer()) return values.id(v.number);
  reject(h, op, std::string(what) + " must be an integer or nil, not " + v.to_string(kQuoteBytes));
}

struct RegisterOracle {
  using State = std::uint32_t;  // a value id
  static constexpr bool memo = true;
  std::vector<RegisterOp> ops;
  State start = kNil;
  RegisterValues values;

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const { return register_apply(ops[i], s); }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  bool read_only(std::size_t i) const {
    const RegisterOp& op = ops[i];
    return op.kind == RegisterOp::read || (op.kind == RegisterOp::cas && op.mode == Mode::fail) ||
           (op.kind == RegisterOp::write && op.mode == Mode::fail);
  }
  std::string show(const State& s) const { return s == kNil ? "nil" : std::to_string(values.numbers[s]); }
  std::optional<duet::detail::SearchResult> decide(const std::vector<TimedOp>& timed) const {
    return decide_unique_register(ops, timed, start);
  }
};

// --init for a register: an integer or nil.
std::optional<std::int64_t> register_init(std::string_view model, const Value& v) {
  if (v.is_nil()) return std::nullopt;
  if (v.is_integer()) return v.number;
  throw std::invalid_argument("--init for " + std::string(model) + " must be an integer or nil, not " +
                              v.to_string(kQuoteBytes));
}

class CasRegister final : public Model {
 public:
  CasRegister(std::string_view name, std::optional<std::int64_t> start, std::string_view summary)
      : name_(name), summary_(summary), start_(start) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return summary_; }
  std::string initial_state(const std::optional<Value>& init) const override {
    const std::optional<std::int64_t> start = init ? register_init(name_, *init) : start_;
    return start ? "the register starts at " + std::to_string(*start) : "the register starts empty (nil)";
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    RegisterOracle oracle;
    const std::optional<std::int64_t> start = c.init ? register_init(name_, *c.init) : start_;
    if (start) oracle.start = oracle.values.id(*start);
    oracle.ops.reserve(part.size());
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      RegisterOp r{RegisterOp::read, mode_of(op)};
      RegisterValues& values = oracle.values;
      if (op.f == "read") {
        r.a = r.mode == Mode::ok ? register_value(h, op, op.output, "the value read", values) : kNil;
      } else if (op.f == "write") {
        r.kind = RegisterOp::write;
        r.a = register_value(h, op, op.input, "the value written", values);
      } else if (op.f == "cas") {
        r.kind = RegisterOp::cas;
        if (op.input.kind != Value::Kind::vector || op.input.items.size() != 2)
          reject(h, op, "cas expects [expected new], not " + op.input.to_string(kQuoteBytes));
        r.a = register_value(h, op, op.input.items[0], "cas's expected value", values);
        r.b = register_value(h, op, op.input.items[1], "cas's new value", values);
      } else {
        reject(h, op, "the " + name_ + " model has read, write and cas, not '" + cut(op.f) + "'");
      }
      oracle.ops.push_back(r);
    }
    return search_part(h, part, oracle, c);
  }

 private:
  std::string name_;
  std::string_view summary_;
  std::optional<std::int64_t> start_;  // nullopt: starts empty (nil)
};

// ---------------------------------------------------------------- kv
// A kv state: an interned value per key. A part is usually one key (partitioned), and the search
// copies a state for every candidate it tries: up to two keys are kept inline, so that a copy
// allocates nothing; more live in a vector. Moves never throw (the search's frames and memo
// entries hold states).
class KvValues {
 public:
  void assign(std::size_t n, std::uint32_t v) {
    size_ = n;
    heap_.clear();
    if (n > kInline) heap_.assign(n, v);
    else inline_.fill(v);
  }
  std::size_t size() const { return size_; }
  const std::uint32_t* data() const { return size_ > kInline ? heap_.data() : inline_.data(); }
  std::uint32_t* data() { return size_ > kInline ? heap_.data() : inline_.data(); }
  std::uint32_t operator[](std::size_t k) const { return data()[k]; }
  std::uint32_t& operator[](std::size_t k) { return data()[k]; }
  friend bool operator==(const KvValues& a, const KvValues& b) {
    return a.size_ == b.size_ && std::equal(a.data(), a.data() + a.size_, b.data());
  }
  std::size_t heap_bytes() const { return heap_.capacity() * sizeof(std::uint32_t); }

 private:
  static constexpr std::size_t kInline = 2;
  std::size_t size_ = 0;
  std::array<std::uint32_t, kInline> inline_{};
  std::vector<std::uint32_t> heap_;
};

// Porcupine's key-value store: string keys, all starting as "", with get, put and append.
struct KvOracle {
  using State = KvValues;
  static constexpr bool memo = true;
  std::vector<KvOp> ops;
  std::size_t keys = 0;
  mutable Interner values;  // appends intern new strings as the search meets them
  mutable std::unordered_map<std::uint64_t, std::uint32_t> appended;

  std::uint32_t empty = 0;  // the id of "", where every key starts
  State start;              // every key's first value (--init), by key index
  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const {
    const KvOp& op = ops[i];
    if (op.mode == Mode::fail) return true;  // did not happen
    switch (op.kind) {
      case KvOp::get: return op.mode != Mode::ok || s[op.key] == op.value;
      case KvOp::put: s[op.key] = op.value; return true;
      case KvOp::append: {
        const std::uint64_t k = (std::uint64_t{s[op.key]} << 32) | op.value;
        auto it = appended.find(k);
        if (it == appended.end()) it = appended.emplace(k, values.concat(s[op.key], op.value)).first;
        s[op.key] = it->second;
        return true;
      }
    }
    return false;
  }
  std::uint64_t hash(const State& s) const { return hash_ids(0x6b76, {s.data(), s.size()}); }
  bool equal(const State& a, const State& b) const { return a == b; }
  std::size_t heap_bytes(const State& s) const { return s.heap_bytes(); }
  /// Operations on different keys commute: the search need not order them.
  std::uint64_t footprint(std::size_t i) const { return ops[i].key; }
  bool read_only(std::size_t i) const { return ops[i].kind == KvOp::get || ops[i].mode == Mode::fail; }
  /// Values made by appends during the search count against its memory budget.
  std::size_t extra_bytes() const { return values.bytes() + appended.size() * 48; }
  /// One key's part of a state, for the search's nogoods.
  std::uint64_t part_hash(const State& s, std::uint64_t key) const { return s[key]; }
  bool part_equal(const State& a, const State& b, std::uint64_t key) const { return a[key] == b[key]; }
  std::vector<std::string> key_names;
  std::optional<duet::detail::SearchResult> decide(const std::vector<TimedOp>& timed) const;
  std::string show(const State& s) const {
    std::string out = "{";
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (k > 0) out += ", ";
      out += key_names[k] + " " + edn_string(values.text(s[k]));  // bounded: states are printed
    }
    return out + "}";
  }
};

// One key is a register in disguise when its values each name the operation that made them
// (kv_decision.cpp): the register's decision applies to its translation.
std::optional<duet::detail::SearchResult> KvOracle::decide(const std::vector<TimedOp>& timed) const {
  if (keys != 1) return std::nullopt;
  const std::optional<KvRegister> reg = kv_as_register(ops, values, start[0]);
  if (!reg) return std::nullopt;
  std::optional<duet::detail::SearchResult> d = decide_unique_register(reg->ops, timed, reg->start);
  if (d && d->verdict == SearchVerdict::ok) {  // the order, replayed on the store itself
    State s = start;
    for (std::size_t i : d->order)
      if (!apply(s, i)) return std::nullopt;
  }
  if (d && d->verdict == SearchVerdict::violation) complete_kv_witness(*reg, d->witness);
  return d;
}

std::string kv_key(const History& h, const Operation& op) {
  if (!op.key) reject(h, op, "a kv operation needs a :key");
  return op.key->kind == Value::Kind::string ? op.key->text : op.key->to_string();
}

// --init for kv: a map {key "value"}; keys are read as the history's are (a string's text,
// any other value's EDN text).
std::map<std::string, std::string> kv_init(const std::optional<Value>& init) {
  std::map<std::string, std::string> out;
  if (!init || init->is_nil()) return out;
  if (init->kind != Value::Kind::map)
    throw std::invalid_argument("--init for kv must be a map {key \"value\"}, not " + init->to_string(kQuoteBytes));
  for (std::size_t i = 0; i + 1 < init->items.size(); i += 2) {
    const Value& k = init->items[i];
    const Value& v = init->items[i + 1];
    if (v.kind != Value::Kind::string && !v.is_nil())
      throw std::invalid_argument("--init for kv: the value of key " + k.to_string(kQuoteBytes) + " must be a string, not " +
                                  v.to_string(kQuoteBytes));
    out[k.kind == Value::Kind::string ? k.text : k.to_string()] = v.is_nil() ? "" : v.text;
  }
  return out;
}

class Kv final : public Model {
 public:
  std::string_view name() const override { return "kv"; }
  std::string_view summary() const override {
    return "key-value store (Porcupine kv): get, put, append on string keys starting as \"\"; partitions per key";
  }
  std::string initial_state(const std::optional<Value>& init) const override {
    const std::map<std::string, std::string> given = kv_init(init);
    if (given.empty()) return "every key starts as \"\"";
    return "keys start as --init gives (" + std::to_string(given.size()) + (given.size() == 1 ? " key" : " keys") +
           "), the others as \"\"";
  }
  std::vector<std::vector<std::size_t>> partition(const History& h) const override {
    return components_by_key(h, [&](const Operation& op) { return std::vector<std::string>{kv_key(h, op)}; });
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    KvOracle oracle;
    oracle.empty = oracle.values.id("");
    std::map<std::string, std::uint32_t> key_index;  // sorted: states print keys in order
    for (std::size_t i : part) key_index.emplace(kv_key(h, h.ops[i]), 0);
    const std::map<std::string, std::string> given = kv_init(c.init);
    for (auto& [name, index] : key_index) {
      index = static_cast<std::uint32_t>(oracle.key_names.size());
      oracle.key_names.push_back(edn_string(name));
    }
    oracle.keys = key_index.size();
    oracle.start.assign(oracle.keys, oracle.empty);
    for (const auto& [name, index] : key_index)
      if (auto it = given.find(name); it != given.end()) oracle.start[index] = oracle.values.id(it->second);
    auto text = [&](const Operation& op, const Value& v, const char* what) -> std::string {
      if (v.kind == Value::Kind::string) return v.text;
      if (v.is_nil()) return "";
      reject(h, op, std::string(what) + " must be a string, not " + v.to_string(kQuoteBytes));
    };
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      KvOp k{KvOp::get, mode_of(op), key_index[kv_key(h, op)], 0};
      if (op.f == "get") {
        k.value = k.mode == Mode::ok ? oracle.values.id(text(op, op.output, "get's result")) : 0;
      } else if (op.f == "put" || op.f == "append") {
        k.kind = op.f == "put" ? KvOp::put : KvOp::append;
        k.value = oracle.values.id(text(op, op.input, "the value"));
      } else {
        reject(h, op, "the kv model has get, put and append, not '" + cut(op.f) + "'");
      }
      oracle.ops.push_back(k);
    }
    return search_part(h, part, oracle, c);
  }
};

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

// ---------------------------------------------------------------- queue
// --init for a queue or a set: a vector (or list) of elements.
std::vector<Value> elements_init(const char* model, const std::optional<Value>& init) {
  if (!init || init->is_nil()) return {};
  if (init->kind != Value::Kind::vector)
    throw std::invalid_argument(std::string("--init for ") + model + " must be a vector of elements, not " +
                                init->to_string(kQuoteBytes));
  return init->items;
}

// A FIFO queue: enqueue x; dequeue -> x, or nil when empty.

struct QueueOracle {
  using State = std::vector<std::uint32_t>;  // front first
  static constexpr bool memo = true;
  std::vector<QueueOp> ops;
  Interner values;
  State start;  // --init, front first

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const { return queue_apply(ops[i], s); }
  std::optional<duet::detail::SearchResult> decide(const std::vector<TimedOp>& timed) const {
    if (!start.empty()) return std::nullopt;  // (values enqueued before everything: not handled there)
    return decide_unique_queue(ops, timed);
  }
  std::uint64_t hash(const State& s) const { return hash_ids(0x7175, s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  std::size_t heap_bytes(const State& s) const { return s.capacity() * sizeof(std::uint32_t); }
  bool read_only(std::size_t i) const {
    const QueueOp& op = ops[i];
    return op.mode == Mode::fail || (!op.enqueue && op.mode == Mode::ok && op.value == 0);
  }
  std::string show(const State& s) const {
    std::string out = "[";
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (k > 0) out += ' ';  // += only: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
      out += cut(values.text(s[k]));
    }
    return out + "]";
  }
};

class Queue final : public Model {
 public:
  std::string_view name() const override { return "queue"; }
  std::string_view summary() const override { return "FIFO queue: enqueue x; dequeue -> x, or nil when empty"; }
  std::string initial_state(const std::optional<Value>& init) const override {
    const std::vector<Value> given = elements_init("queue", init);
    if (given.empty()) return "the queue starts empty";
    return "the queue starts as " + init->to_string(kQuoteBytes) + " (front first)";
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    QueueOracle oracle;
    for (const Value& v : elements_init("queue", c.init)) oracle.start.push_back(oracle.values.id(v.to_string()));
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      QueueOp q{true, mode_of(op), 0};
      if (op.f == "enqueue") {
        if (op.input.is_nil()) reject(h, op, "enqueue needs a value");
        q.value = oracle.values.id(op.input.to_string());
      } else if (op.f == "dequeue") {
        q.enqueue = false;
        q.value = q.mode == Mode::ok && !op.output.is_nil() ? oracle.values.id(op.output.to_string()) : 0;
      } else {
        reject(h, op, "the queue model has enqueue and dequeue, not '" + cut(op.f) + "'");
      }
      oracle.ops.push_back(q);
    }
    return search_part(h, part, oracle, c);
  }
};

// ---------------------------------------------------------------- set
// A set: add x, remove x, contains x -> true/false, read -> every element (a vector, any order).

struct SetOracle {
  using State = std::vector<std::uint32_t>;  // sorted
  static constexpr bool memo = true;
  std::vector<SetOp> ops;
  Interner values;
  State start;  // --init, sorted

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const {
    const SetOp& op = ops[i];
    if (op.mode == Mode::fail) return true;
    auto it = std::lower_bound(s.begin(), s.end(), op.value);
    const bool present = it != s.end() && *it == op.value;
    switch (op.kind) {
      case SetOp::add:
        if (!present) s.insert(it, op.value);
        return true;
      case SetOp::remove:
        if (present) s.erase(it);
        return true;
      case SetOp::contains: return op.mode != Mode::ok || present == op.answer;
      case SetOp::read: return op.mode != Mode::ok || s == op.elements;
    }
    return false;
  }
  std::uint64_t hash(const State& s) const { return hash_ids(0x7365, s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  std::size_t heap_bytes(const State& s) const { return s.capacity() * sizeof(std::uint32_t); }
  bool read_only(std::size_t i) const {
    const SetOp& op = ops[i];
    return op.mode == Mode::fail || op.kind == SetOp::contains || op.kind == SetOp::read;
  }
  std::optional<duet::detail::SearchResult> decide(const std::vector<TimedOp>& timed) const {
    return decide_grow_only_set(ops, timed, start);
  }
  std::string show(const State& s) const {
    std::string out = "#{";
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (k > 0) out += ' ';  // += only: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
      out += cut(values.text(s[k]));
    }
    return out + "}";
  }
};

class Set final : public Model {
 public:
  std::string_view name() const override { return "set"; }
  std::string_view summary() const override {
    return "set: add x, remove x, contains x -> bool, read -> all elements; partitions per element unless read";
  }
  std::string initial_state(const std::optional<Value>& init) const override {
    const std::vector<Value> given = elements_init("set", init);
    if (given.empty()) return "the set starts empty";
    return "the set starts as " + init->to_string(kQuoteBytes);
  }
  std::vector<std::vector<std::size_t>> partition(const History& h) const override {
    // An element given by --init belongs to the part of the operations on it; partitioning
    // stays sound because each element's first state is known per part.
    return components_by_key(h, [&](const Operation& op) {
      return op.f == "read" ? std::vector<std::string>{} : std::vector<std::string>{op.input.to_string()};
    });
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    SetOracle oracle;
    for (const Value& v : elements_init("set", c.init)) oracle.start.push_back(oracle.values.id(v.to_string()));
    std::sort(oracle.start.begin(), oracle.start.end());
    oracle.start.erase(std::unique(oracle.start.begin(), oracle.start.end()), oracle.start.end());
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      SetOp s;
      s.kind = SetOp::add;
      s.mode = mode_of(op);
      if (op.f == "add" || op.f == "remove" || op.f == "contains") {
        s.kind = op.f == "add" ? SetOp::add : op.f == "remove" ? SetOp::remove : SetOp::contains;
        s.value = oracle.values.id(op.input.to_string());
        if (s.kind == SetOp::contains && s.mode == Mode::ok) {
          if (op.output.kind != Value::Kind::boolean)
            reject(h, op, "contains must return true or false, not " + op.output.to_string(kQuoteBytes));
          s.answer = op.output.flag;
        }
      } else if (op.f == "read") {
        s.kind = SetOp::read;
        if (s.mode == Mode::ok) {
          if (op.output.kind != Value::Kind::vector)
            reject(h, op, "read must return a vector of elements, not " + op.output.to_string(kQuoteBytes));
          for (const Value& e : op.output.items) s.elements.push_back(oracle.values.id(e.to_string()));
          std::sort(s.elements.begin(), s.elements.end());
          s.elements.erase(std::unique(s.elements.begin(), s.elements.end()), s.elements.end());
        }
      } else {
        reject(h, op, "the set model has add, remove, contains and read, not '" + cut(op.f) + "'");
      }
      oracle.ops.push_back(std::move(s));
    }
    return search_part(h, part, oracle, c);
  }
};

// ---------------------------------------------------------------- counter
// A counter starting at 0: add n (or inc, adding 1); read -> the count.
struct CounterOracle {
  using State = std::int64_t;
  static constexpr bool memo = true;
  struct Op {
    bool read;
    Mode mode;
    std::int64_t value;
  };
  std::vector<Op> ops;
  State start = 0;
  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const {
    const Op& op = ops[i];
    if (op.mode == Mode::fail) return true;
    if (op.read) return op.mode != Mode::ok || s == op.value;
    s = static_cast<std::int64_t>(static_cast<std::uint64_t>(s) +
                                  static_cast<std::uint64_t>(op.value));  // wraps, like the hardware
    return true;
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  bool read_only(std::size_t i) const { return ops[i].read || ops[i].mode == Mode::fail; }
  std::string show(const State& s) const { return std::to_string(s); }
};

std::int64_t counter_init(const std::optional<Value>& init) {
  if (!init || init->is_nil()) return 0;
  if (!init->is_integer())
    throw std::invalid_argument("--init for counter must be an integer, not " + init->to_string(kQuoteBytes));
  return init->number;
}

class Counter final : public Model {
 public:
  std::string_view name() const override { return "counter"; }
  std::string_view summary() const override { return "counter starting at 0: add n, inc, read -> n"; }
  std::string initial_state(const std::optional<Value>& init) const override {
    return "the counter starts at " + std::to_string(counter_init(init));
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    CounterOracle oracle;
    oracle.start = counter_init(c.init);
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      CounterOracle::Op c{false, mode_of(op), 1};
      if (op.f == "read") {
        c.read = true;
        if (c.mode == Mode::ok && !op.output.is_integer())
          reject(h, op, "read must return an integer, not " + op.output.to_string(kQuoteBytes));
        c.value = op.output.number;
      } else if (op.f == "add") {
        if (!op.input.is_integer()) reject(h, op, "add needs an integer, not " + op.input.to_string(kQuoteBytes));
        c.value = op.input.number;
      } else if (op.f != "inc") {
        reject(h, op, "the counter model has add, inc and read, not '" + cut(op.f) + "'");
      }
      oracle.ops.push_back(c);
    }
    return search_part(h, part, oracle, c);
  }
};

}  // namespace

std::vector<const Model*> all_models() {
  static const CasRegister cas_register(
      "cas-register", std::nullopt,
      "register with read, write, cas; starts empty (nil) unless --init or the format says otherwise");
  static const CasRegister cas_register_0("cas-register-0", 0,
                                          "cas-register starting at 0 (the same as --model cas-register --init 0)");
  static const Kv kv;
  static const MultiRegister multi_register;
  static const Queue queue;
  static const Set set;
  static const Counter counter;
  return {&cas_register, &cas_register_0, &kv, &multi_register, &queue, &set, &counter};
}

const Model* find_model(std::string_view name, const Models* extra) {
  if (extra != nullptr)
    if (const Model* m = extra->find(name)) return m;
  for (const Model* m : all_models())
    if (m->name() == name) return m;
  return nullptr;
}

}  // namespace duet::history::detail
