// One key whose appended texts and put values name the operation that made each value a get
// reads is a register in disguise: a value is made by a put of that text, or by an append of a
// suffix to the value before it (a compare-and-set from that value to this one). Translated so,
// the register's decision applies (register_decision.cpp); an operation whose result nobody
// reads becomes a write of a value of its own. Nothing when a value could come from two
// operations, or from none and yet is a prefix the reads need (then the search decides, or, for
// a value nobody can make, the register's decision reports it).
#include "check/kv_decision.hpp"

#include <algorithm>

namespace duet::history::detail {

namespace kv_decision {

KvMakers kv_makers(const std::vector<KvOp>& ops, const Interner& values) {
  KvMakers makers;
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    const KvOp& op = ops[i];
    if (op.kind == KvOp::get || op.mode == Mode::fail) continue;
    const std::string& t = values.text(op.value);
    (op.kind == KvOp::put ? makers.puts : makers.appends)[t].push_back(i);
    if (op.kind == KvOp::append) makers.lengths.push_back(t.size());
  }
  std::sort(makers.lengths.begin(), makers.lengths.end());
  makers.lengths.erase(std::unique(makers.lengths.begin(), makers.lengths.end()), makers.lengths.end());
  return makers;
}

Making making_of(const KvMakers& makers, const std::string& value) {
  Making making;
  if (auto it = makers.puts.find(value); it != makers.puts.end()) {
    making.makers += it->second.size();
    making.made_by = it->second.front();
  }
  for (std::size_t len : makers.lengths) {
    if (len > value.size()) break;
    auto it = makers.appends.find(value.substr(value.size() - len));
    if (it == makers.appends.end()) continue;
    making.makers += it->second.size();
    making.made_by = it->second.front();
    making.before = value.substr(0, value.size() - len);
  }
  return making;
}

namespace {

// The translation as it goes: values as register ids (the start, what gets read, and,
// recursively, what appends need), each waiting for its maker to be found.
class Translation {
 public:
  Translation(const std::vector<KvOp>& ops, const Interner& values)
      : ops_(ops), values_(values), makers_(kv_makers(ops, values)) {
    reg_.ops.resize(ops.size());
    maker_.assign(ops.size(), 0);
  }

  std::optional<KvRegister> run(std::uint32_t start_value) {
    const std::string& start_text = values_.text(start_value);
    reg_.start = value_id(start_text, KvRegister::kNobody);  // (pending too: a put of it would be a second maker)
    for (std::uint32_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].kind == KvOp::get) {
        // A get that failed or whose result is unknown tells nothing: a read without a value.
        reg_.ops[i] = ops_[i].mode == Mode::ok
                          ? RegisterOp{RegisterOp::read, Mode::ok, value_id(values_.text(ops_[i].value), i)}
                          : RegisterOp{RegisterOp::read, Mode::unknown_result};
      }
    while (!waiting_.empty()) {
      const std::string v = std::move(waiting_.back());
      waiting_.pop_back();
      if (!make(v, start_text)) return std::nullopt;
    }
    // Puts and appends whose value nobody reads: a value of their own (a failed one: no effect).
    auto next_id = static_cast<std::uint32_t>(id_.size());
    for (std::uint32_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].kind != KvOp::get && !maker_[i])
        reg_.ops[i] =
            RegisterOp{RegisterOp::write, ops_[i].mode == Mode::unknown_result ? Mode::ok : ops_[i].mode, next_id++};
    return std::move(reg_);
  }

 private:
  std::uint32_t value_id(const std::string& v, std::uint32_t by) {
    auto [it, fresh] = id_.try_emplace(v, static_cast<std::uint32_t>(id_.size()));
    if (fresh) {
      waiting_.push_back(v);
      reg_.needed_by.push_back(by);
    }
    return it->second;
  }
  // Value v's one maker as a register write or cas; false when that cannot be said.
  bool make(const std::string& v, const std::string& start_text) {
    const Making making = making_of(makers_, v);
    if (v == start_text) return making.makers == 0;  // the start, or made again: a search
    if (making.makers > 1) return false;             // two ways to make it: a search
    if (making.makers == 0) return true;             // nobody makes it: the reads of it are violations
    const std::uint32_t i = *making.made_by;
    if (maker_[i]) return false;  // one operation making two values
    maker_[i] = 1;
    const Mode mode = ops_[i].mode == Mode::pending ? Mode::pending : Mode::ok;  // unknown result: it happened
    reg_.ops[i] = ops_[i].kind == KvOp::put ? RegisterOp{RegisterOp::write, mode, id_.at(v)}
                                            : RegisterOp{RegisterOp::cas, mode, value_id(making.before, i), id_.at(v)};
    return true;
  }

  const std::vector<KvOp>& ops_;
  const Interner& values_;
  const KvMakers makers_;
  KvRegister reg_;
  std::unordered_map<std::string, std::uint32_t> id_;
  std::vector<std::string> waiting_;  // values whose maker is still to find
  std::vector<char> maker_;           // per operation: it makes a value read
};

}  // namespace

}  // namespace kv_decision

std::optional<KvRegister> kv_as_register(const std::vector<KvOp>& ops, const Interner& values, std::uint32_t start_value) {
  return kv_decision::Translation(ops, values).run(start_value);
}

void complete_kv_witness(const KvRegister& reg, std::vector<std::size_t>& witness) {
  // An append follows the value before it only because a get read what it made (or what was
  // built on that): the witness needs that get too, or alone it would be linearizable.
  for (std::size_t k = 0; k < witness.size(); ++k) {
    if (reg.ops[witness[k]].kind != RegisterOp::cas) continue;
    const std::uint32_t by = reg.needed_by[reg.ops[witness[k]].b];
    if (by != KvRegister::kNobody && std::find(witness.begin(), witness.end(), by) == witness.end()) witness.push_back(by);
  }
  std::sort(witness.begin(), witness.end());
}

}  // namespace duet::history::detail
