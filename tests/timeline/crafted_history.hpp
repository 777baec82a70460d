// Histories and reports built in code for the timeline's tests (no parser, no checker): a
// register history with a known linearization and one stale read that cannot be placed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <duet/history.hpp>

namespace duet_timeline_test {

using duet::history::CheckReport;
using duet::history::History;
using duet::history::Operation;
using duet::history::Outcome;
using duet::history::Value;
using duet::history::Verdict;

struct Crafted {
  History history;
  CheckReport report;
};

/// `processes` clients doing `rounds` operations each on a cas register starting at 0, with
/// overlapping intervals and times scaled by `time_scale` (nanosecond-like when large). Every
/// operation is given a linearization point inside its interval and its result is computed by
/// running the register in that order, so the history is linearizable by construction; then one
/// read past the middle returns a stale value: it is the stuck operation and `order` is the
/// linearization up to it. One write never completes (indeterminate) and some cas fail.
inline Crafted crafted_register(int processes = 6, int rounds = 7, std::uint64_t time_scale = 10) {
  struct Pending {
    std::size_t op;
    std::uint64_t point;
  };
  Crafted c;
  History& h = c.history;
  h.source = "crafted-register.edn";
  h.format = duet::history::Format::edn;
  h.default_model = "cas-register-0";
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  auto next = [&seed](std::uint64_t bound) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % bound;
  };
  std::vector<Pending> points;
  std::vector<std::uint64_t> free_at(static_cast<std::size_t>(processes), 0);
  for (int round = 0; round < rounds; ++round) {
    for (int p = 0; p < processes; ++p) {
      Operation op;
      op.process = p;
      const std::uint64_t invoke =
          std::max<std::uint64_t>(free_at[static_cast<std::size_t>(p)] + 1 + next(3),
                                  static_cast<std::uint64_t>(round) * 12 + static_cast<std::uint64_t>(p) * 2);
      const std::uint64_t length = 3 + next(10);
      op.invoke = invoke;
      op.response = invoke + length;
      free_at[static_cast<std::size_t>(p)] = op.response;
      switch (next(3)) {
        case 0: op.f = "read"; break;
        case 1:
          op.f = "write";
          op.input = Value::integer(static_cast<std::int64_t>(next(5)));
          break;
        default:
          op.f = "cas";
          op.input = Value::vector(
              {Value::integer(static_cast<std::int64_t>(next(5))), Value::integer(static_cast<std::int64_t>(next(5)))});
      }
      points.push_back({h.ops.size(), invoke + 1 + next(length - 1)});
      h.ops.push_back(std::move(op));
    }
  }
  // Invocation order, as parsers produce it.
  std::vector<std::size_t> perm(h.ops.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::size_t a, std::size_t b) { return h.ops[a].invoke < h.ops[b].invoke; });
  std::vector<Operation> sorted;
  std::vector<std::size_t> where(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) {
    where[perm[k]] = k;
    sorted.push_back(h.ops[perm[k]]);
  }
  h.ops = std::move(sorted);
  for (Pending& pt : points) pt.op = where[pt.op];
  std::stable_sort(points.begin(), points.end(), [](const Pending& a, const Pending& b) { return a.point < b.point; });

  // The indeterminate write: the last operation of process 1, which never took effect.
  std::size_t pending = h.ops.size();
  for (std::size_t i = h.ops.size(); i-- > 0;)
    if (h.ops[i].process == 1) {
      pending = i;
      break;
    }
  Operation& w = h.ops[pending];
  w.f = "write";
  w.input = Value::integer(9);
  w.outcome = Outcome::info;
  w.response = Operation::kPending;

  // The stale read: the first read in the second half.
  std::size_t stuck = h.ops.size();
  for (std::size_t i = h.ops.size() / 2; i < h.ops.size(); ++i)
    if (h.ops[i].f == "read" && i != pending) {
      stuck = i;
      break;
    }

  std::int64_t value = 0;
  for (const Pending& pt : points) {
    Operation& op = h.ops[pt.op];
    if (pt.op == pending) continue;
    if (op.f == "read") op.output = Value::integer(value);
    else if (op.f == "write") value = op.input.number;
    else if (op.input.items[0].number == value) value = op.input.items[1].number;
    else op.outcome = Outcome::fail;
    if (pt.op == stuck) {
      op.output = Value::integer(7);  // never written
      c.report.stuck = pt.op;
      c.report.stuck_state = std::to_string(value);
      break;
    }
    c.report.order.push_back(pt.op);
    c.report.states.push_back(std::to_string(value));
  }
  // The operations after the stuck one keep plausible results.
  for (const Pending& pt : points) {
    Operation& op = h.ops[pt.op];
    if (op.f == "read" && op.output.is_nil() && pt.op != pending) op.output = Value::integer(value);
  }
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    h.ops[i].invoke *= time_scale;
    if (h.ops[i].response != Operation::kPending) h.ops[i].response *= time_scale;
    h.ops[i].invoke_line = 2 * i + 1;
    h.ops[i].response_line = h.ops[i].response == Operation::kPending ? 0 : 2 * i + 2;
  }
  c.report.verdict = Verdict::not_linearizable;
  c.report.model = "cas-register-0";
  c.report.partitions = 1;
  c.report.nodes = 1234;
  const Operation& s = h.ops[c.report.stuck.value_or(0)];
  c.report.explanation = "not linearizable: after " + std::to_string(c.report.order.size()) +
                         " operations the register holds " + c.report.stuck_state + ", but process " +
                         std::to_string(s.process) + " read 7 (line " + std::to_string(s.invoke_line) +
                         "), a value no write <= that point produced.";
  return c;
}

/// A long linearizable history: `n` operations from 5 processes, each overlapping at most its
/// neighbours, the order being invocation order; states filled. Cheap to build for 100k operations.
inline Crafted long_register(std::size_t n, bool with_states = true) {
  Crafted c;
  History& h = c.history;
  h.source = "long.log";
  h.default_model = "cas-register";
  h.ops.reserve(n);
  std::int64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Operation op;
    op.process = static_cast<std::int64_t>(i % 5);
    op.invoke = 1000000000000ull + i * 2000;
    op.response = op.invoke + 1500 + (i % 7) * 100;
    op.invoke_line = i * 2 + 1;
    op.response_line = i * 2 + 2;
    if (i % 2 == 0) {
      op.f = "write";
      value = static_cast<std::int64_t>(i % 97);
      op.input = Value::integer(value);
    } else {
      op.f = "read";
      op.output = Value::integer(value);
    }
    h.ops.push_back(std::move(op));
    c.report.order.push_back(i);
    if (with_states) c.report.states.push_back(std::to_string(value));
  }
  c.report.verdict = Verdict::linearizable;
  c.report.model = "cas-register";
  return c;
}

}  // namespace duet_timeline_test
