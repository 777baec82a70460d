// duet's container and counter models: the FIFO queue, the set and the counter. Each compiles a
// part's operations into an oracle for the search (the queue and the set also into the
// decisions that need no search); the registry that lists them is models.cpp.
#include <algorithm>
#include <memory>

#include "check/models.hpp"

namespace duet::history::detail {

namespace {

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

std::unique_ptr<const Model> make_queue() { return std::make_unique<Queue>(); }
std::unique_ptr<const Model> make_set() { return std::make_unique<Set>(); }
std::unique_ptr<const Model> make_counter() { return std::make_unique<Counter>(); }

}  // namespace duet::history::detail
