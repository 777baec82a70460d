// duet's register models: the cas-register (read, write, cas on one integer or nil) and
// Porcupine's key-value store (get, put, append on string keys), together because a kv part of
// one key is handed to the register's decision (kv_decision.cpp). Each compiles a part's
// operations into an oracle for the search; the registry that lists them is models.cpp.
#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "check/models.hpp"

namespace duet::history::detail {

namespace {

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

}  // namespace

std::unique_ptr<const Model> make_cas_register(std::string_view name, std::optional<std::int64_t> start,
                                               std::string_view summary) {
  return std::make_unique<CasRegister>(name, start, summary);
}

std::unique_ptr<const Model> make_kv() { return std::make_unique<Kv>(); }

}  // namespace duet::history::detail
