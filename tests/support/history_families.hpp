// Families of recorded histories for the checker's tests and benchmarks: N clients call one
// object (a cas register, a FIFO queue, a key-value store, a set) that takes effect atomically. Each
// call is invoked, takes effect after a random delay and returns after another, as over a
// network; the clients run in virtual time and a duet::history::Recorder on that clock keeps
// the calls, so the same parameters always give the same history, at any size.
//
// A family may plant one bug, placed where it is certainly a violation (the comments at each
// say why), so a history's verdict is known in advance:
// - stale_read: a read (register get, kv get) returns a value that a write completed before
//   the read began had already replaced; a queue's dequeue takes the second element instead of
//   the first one, which was enqueued strictly earlier and leaves only after this dequeue
//   returned (or never); a set's read leaves out an element whose add returned before the read
//   began;
// - lost_write: a write (register write, kv append, queue enqueue, set add) is acknowledged and
//   never applied, and a later call shows it.
//
//   duet_test::Family f{.object = duet_test::Object::cas_register, .clients = 80, .ops_per_client = 100,
//                       .bug = duet_test::Bug::stale_read};
//   duet::history::History h = duet_test::generate(f);   // model "cas-register"
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <duet/history.hpp>

namespace duet_test {

enum class Object { cas_register, queue, kv, set };
enum class Bug { none, stale_read, lost_write };

struct Family {
  Object object = Object::cas_register;
  std::size_t clients = 10;
  std::size_t ops_per_client = 100;
  std::uint64_t seed = 1;
  Bug bug = Bug::none;
  /// cas register: values written are drawn from this many (0..values-1); 0: every write
  /// writes a value of its own. A planted bug needs unique values (it is forced).
  std::size_t values = 0;
  std::size_t keys = 10;              // kv
  std::uint64_t max_delay = 500'000;  // virtual ns before and after the effect
  std::uint64_t max_think = 20'000;   // virtual ns between a client's calls
};

inline const char* object_name(Object o) {
  switch (o) {
    case Object::cas_register: return "cas-register";
    case Object::queue: return "queue";
    case Object::kv: return "kv";
    case Object::set: return "set";
  }
  return "?";
}
inline const char* bug_name(Bug b) {
  return b == Bug::none ? "correct" : b == Bug::stale_read ? "stale-read" : "lost-write";
}

namespace family_detail {

using duet::history::History;
using duet::history::Operation;
using duet::history::Outcome;
using duet::history::Recorder;
using duet::history::Value;

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
};

// What a write did, for placing a planted bug: its value and its times (response 0 while in flight).
struct WriteRecord {
  std::optional<std::int64_t> value;  // register: nil is nullopt
  std::string text;                   // kv: the key's whole value after the write
  std::uint64_t invoke = 0, response = 0;
};

// One simulation run; `plant_at`: the planted bug goes to the first eligible call at or after
// that many effects (a later try moves it on when the first place did not show).
struct Planted {
  bool done = false;
  std::size_t client = 0, handle = 0;  // the call that carries the bug
  Value before;                        // register lost write: the value it should have replaced
  Value skipped;                       // queue stale read: the element the dequeue passed over
};

inline History simulate(const Family& f, std::size_t plant_at, Planted& planted) {
  Rng rng{f.seed * 0x2545F4914F6CDD1DULL + static_cast<std::uint64_t>(f.object) * 131 + f.clients * 7 + f.ops_per_client};
  std::uint64_t now = 0;
  const std::string model = object_name(f.object);
  Recorder rec(f.clients, model, [&now] { return now; });
  const bool unique = f.values == 0 || f.bug != Bug::none;

  // The object.
  std::optional<std::int64_t> reg;                 // register (nil at first)
  std::size_t reg_writer = 0;                      // index in writes of the write that set reg
  std::vector<WriteRecord> writes{WriteRecord{}};  // [0]: the initial nil, "written" at time 0
  std::deque<std::int64_t> queue;
  std::map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> enqueued;  // value -> invoke, response
  std::map<std::string, std::string> kv;
  std::map<std::string, std::vector<WriteRecord>> kv_writes;              // per key; [0]: "" at time 0
  std::vector<std::int64_t> set;                                          // sorted
  std::map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> added;  // element -> add's invoke, response
  std::int64_t next_value = 1;

  struct Call {
    std::string f;
    std::optional<std::string> key;
    std::int64_t a = 0, b = 0;  // write/enqueue value; cas expected (b new)
    std::optional<std::int64_t> expected;
    std::string text;
    std::size_t handle = 0;
    std::uint64_t invoke = 0;
    Value output;
    Outcome outcome = Outcome::ok;
    std::size_t write_index = SIZE_MAX;  // writes/kv_writes entry this call made
    bool lost = false;
  };
  struct ClientState {
    std::size_t done = 0;
    Call call;
    std::optional<std::int64_t> seen;  // register: the last value this client read or wrote
  };
  std::vector<ClientState> clients(f.clients);
  // (time, order, client, phase): phase 0 invoke, 1 effect, 2 complete
  using Event = std::tuple<std::uint64_t, std::uint64_t, std::size_t, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::uint64_t order = 0;
  for (std::size_t c = 0; c < f.clients; ++c) events.emplace(rng.below(f.max_think + 1), order++, c, 0);
  std::size_t effects = 0;
  planted = Planted{};
  auto plant = [&](std::size_t c, const Call& call) {
    planted.done = true;
    planted.client = c;
    planted.handle = call.handle;
  };

  auto value_of = [](const std::optional<std::int64_t>& v) { return v ? Value::integer(*v) : Value::nil(); };

  while (!events.empty()) {
    auto [t, ord, c, phase] = events.top();
    events.pop();
    now = t;
    ClientState& cs = clients[c];
    Call& call = cs.call;
    if (phase == 0) {
      call = Call{};
      call.invoke = t;
      const std::uint64_t r = rng.below(100);
      if (f.object == Object::cas_register) {
        if (r < 45) {
          call.f = "read";
          call.handle = rec.invoke(c, "read", std::nullopt, Value::nil());
        } else if (r < 75) {
          call.f = "write";
          call.a = unique ? next_value++ : static_cast<std::int64_t>(rng.below(f.values));
          call.handle = rec.invoke(c, "write", std::nullopt, Value::integer(call.a));
        } else {
          call.f = "cas";
          call.expected = unique ? cs.seen : std::optional<std::int64_t>(static_cast<std::int64_t>(rng.below(f.values)));
          call.b = unique ? next_value++ : static_cast<std::int64_t>(rng.below(f.values));
          call.handle = rec.invoke(c, "cas", std::nullopt, Value::vector({value_of(call.expected), Value::integer(call.b)}));
        }
      } else if (f.object == Object::queue) {
        if (r < 50) {
          call.f = "enqueue";
          call.a = next_value++;
          call.handle = rec.invoke(c, "enqueue", std::nullopt, Value::integer(call.a));
        } else {
          call.f = "dequeue";
          call.handle = rec.invoke(c, "dequeue", std::nullopt, Value::nil());
        }
      } else if (f.object == Object::set) {
        if (r < 90) {  // Jepsen's set workload: mostly adds of new elements, reads of the whole set
          call.f = "add";
          call.a = next_value++;
          call.handle = rec.invoke(c, "add", std::nullopt, Value::integer(call.a));
        } else {
          call.f = "read";
          call.handle = rec.invoke(c, "read", std::nullopt, Value::nil());
        }
      } else {
        call.key = std::to_string(rng.below(f.keys));
        if (r < 40) {
          call.f = "get";
          call.handle = rec.invoke(c, "get", Value::string(*call.key), Value::nil());
        } else {
          call.f = r < 55 ? "put" : "append";
          call.text = "x " + std::to_string(c) + " " + std::to_string(cs.done) + " y";
          call.handle = rec.invoke(c, call.f, Value::string(*call.key), Value::string(call.text));
        }
      }
      events.emplace(t + 1 + rng.below(f.max_delay), order++, c, 1);
    } else if (phase == 1) {
      ++effects;
      const bool may_plant = f.bug != Bug::none && !planted.done && effects >= plant_at;
      if (f.object == Object::cas_register) {
        if (call.f == "read") {
          call.output = value_of(reg);
          if (may_plant && f.bug == Bug::stale_read) {
            // The latest-invoked write W that returned before this read began, then the latest
            // write that returned before W began: W separates that value from this read in
            // real time, and no one writes it again (values are unique).
            std::optional<std::size_t> w;
            for (std::size_t i = 1; i < writes.size(); ++i)
              if (writes[i].response != 0 && writes[i].response < call.invoke &&
                  (!w || writes[i].invoke > writes[*w].invoke))
                w = i;
            if (w) {
              std::optional<std::size_t> old;
              for (std::size_t i = 0; i < writes.size(); ++i)
                if (i != *w && (i == 0 || writes[i].response != 0) && writes[i].response < writes[*w].invoke &&
                    (!old || writes[i].response > writes[*old].response))
                  old = i;
              if (old && writes[*old].value != reg) {
                call.output = value_of(writes[*old].value);
                plant(c, call);
              }
            }
          }
          cs.seen = reg;
        } else {
          const bool is_write = call.f == "write";
          const bool takes = is_write || reg == call.expected;
          if (takes) {
            const std::int64_t v = is_write ? call.a : call.b;
            // Lost write: acknowledged, never applied. It shows when a later read returns the
            // value it should have replaced (checked after the run).
            if (may_plant && f.bug == Bug::lost_write && is_write && writes[reg_writer].response != 0 &&
                writes[reg_writer].response < call.invoke) {
              call.lost = true;
              plant(c, call);
              planted.before = value_of(reg);
            } else {
              reg = v;
              writes.push_back(WriteRecord{v, {}, call.invoke, 0});
              reg_writer = writes.size() - 1;
              call.write_index = reg_writer;
            }
            cs.seen = v;
          } else {
            call.outcome = Outcome::fail;
            cs.seen = reg;
          }
        }
      } else if (f.object == Object::queue) {
        if (call.f == "enqueue") {
          if (may_plant && f.bug == Bug::lost_write) {
            call.lost = true;
            plant(c, call);
          } else {
            queue.push_back(call.a);
          }
          enqueued[call.a] = {call.invoke, 0};
        } else if (queue.empty()) {
          call.output = Value::nil();
        } else {
          std::size_t take = 0;
          // Out of order: the second element, whose enqueue began after the first's returned.
          if (may_plant && f.bug == Bug::stale_read && queue.size() >= 2) {
            const auto& first = enqueued[queue[0]];
            const auto& second = enqueued[queue[1]];
            if (first.second != 0 && first.second < second.first) {
              take = 1;
              plant(c, call);
              planted.skipped = Value::integer(queue[0]);
            }
          }
          call.output = Value::integer(queue[take]);
          queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(take));
        }
      } else if (f.object == Object::set) {
        if (call.f == "add") {
          if (may_plant && f.bug == Bug::lost_write) {
            call.lost = true;
            plant(c, call);
          } else {
            set.insert(std::lower_bound(set.begin(), set.end(), call.a), call.a);
          }
          added[call.a] = {call.invoke, 0};
        } else {
          std::vector<std::int64_t> seen = set;
          // Stale: an element whose add returned before this read began, left out.
          if (may_plant && f.bug == Bug::stale_read)
            for (std::size_t k = seen.size(); k-- > 0;)
              if (added[seen[k]].second != 0 && added[seen[k]].second < call.invoke) {
                seen.erase(seen.begin() + static_cast<std::ptrdiff_t>(k));
                plant(c, call);
                break;
              }
          std::vector<Value> items;
          for (std::int64_t x : seen) items.push_back(Value::integer(x));
          call.output = Value::vector(std::move(items));
        }
      } else {
        std::string& cur = kv[*call.key];
        std::vector<WriteRecord>& kw = kv_writes[*call.key];
        if (kw.empty()) kw.push_back(WriteRecord{});
        if (call.f == "get") {
          call.output = Value::string(cur);
          if (may_plant && f.bug == Bug::stale_read) {
            std::optional<std::size_t> w;
            for (std::size_t i = 1; i < kw.size(); ++i)
              if (kw[i].response != 0 && kw[i].response < call.invoke && (!w || kw[i].invoke > kw[*w].invoke)) w = i;
            if (w) {
              std::optional<std::size_t> old;
              for (std::size_t i = 0; i < kw.size(); ++i)
                if (i != *w && (i == 0 || kw[i].response != 0) && kw[i].response < kw[*w].invoke &&
                    (!old || kw[i].response > kw[*old].response))
                  old = i;
              if (old && kw[*old].text != cur) {
                call.output = Value::string(kw[*old].text);
                plant(c, call);
              }
            }
          }
        } else if (may_plant && f.bug == Bug::lost_write && call.f == "append") {
          call.lost = true;
          plant(c, call);
        } else {
          cur = call.f == "put" ? call.text : cur + call.text;
          kw.push_back(WriteRecord{std::nullopt, cur, call.invoke, 0});
          call.write_index = kw.size() - 1;
        }
      }
      events.emplace(t + 1 + rng.below(f.max_delay), order++, c, 2);
    } else {
      rec.complete(c, call.handle, call.output, call.outcome);
      if (call.write_index != SIZE_MAX) {
        if (f.object == Object::cas_register) writes[call.write_index].response = t;
        else if (f.object == Object::kv) kv_writes[*call.key][call.write_index].response = t;
      }
      if (f.object == Object::queue && call.f == "enqueue") enqueued[call.a].second = t;
      if (f.object == Object::set && call.f == "add") added[call.a].second = t;
      if (++cs.done < f.ops_per_client) events.emplace(t + 1 + rng.below(f.max_think + 1), order++, c, 0);
    }
  }
  std::string source = std::string(object_name(f.object)) + " " + bug_name(f.bug) + ": " + std::to_string(f.clients) +
                       " clients x " + std::to_string(f.ops_per_client) + " operations, seed " + std::to_string(f.seed);
  return rec.history(source);
}

// Does the planted bug certainly show in h? Stale reads and out-of-order dequeues are placed
// where they do; a lost write shows when a later call cannot have seen it:
// - register: a read invoked after the lost write returned reads the value it should have
//   replaced (written by a write that returned before the lost write began; values are unique);
// - queue: a dequeue invoked after the lost enqueue returned takes a value enqueued after it
//   returned, or finds the queue empty;
// - kv: a get invoked after the lost append returned reads a value without the appended text;
// - set: a read invoked after the lost add returned (it cannot hold the element).
inline bool shows(const Family& f, const History& h, const Planted& p) {
  const Operation* lost = nullptr;  // the call that carries the bug
  std::size_t seen = 0;
  for (const Operation& op : h.ops)
    if (static_cast<std::size_t>(op.process) == p.client && seen++ == p.handle) lost = &op;
  if (lost == nullptr) return false;
  if (f.object == Object::queue && f.bug == Bug::stale_read) {
    // The element passed over was enqueued before the one taken; it shows only if it leaves
    // after this dequeue returned (a dequeue overlapping this one could have gone first), or
    // never leaves.
    for (const Operation& op : h.ops)
      if (op.f == "dequeue" && op.outcome == Outcome::ok && op.output == p.skipped) return op.invoke > lost->response;
    return true;
  }
  if (f.bug != Bug::lost_write) return true;
  if (f.object == Object::cas_register) {
    // The write that set `before` returned before the lost write began, which returned before
    // the read began: the lost write lies between them in every order, and no one else writes
    // `before` (values are unique).
    for (const Operation& op : h.ops)
      if (op.f == "read" && op.outcome == Outcome::ok && op.invoke > lost->response && op.output == p.before) return true;
    return false;
  }
  if (f.object == Object::set) {
    // A read invoked after the lost add returned cannot leave it out.
    for (const Operation& op : h.ops)
      if (op.f == "read" && op.outcome == Outcome::ok && op.invoke > lost->response) return true;
    return false;
  }
  if (f.object == Object::queue) {
    for (const Operation& op : h.ops) {
      if (op.f != "dequeue" || op.outcome != Outcome::ok || op.invoke <= lost->response) continue;
      if (op.output.is_nil()) return true;
      for (const Operation& e : h.ops)
        if (e.f == "enqueue" && e.input == op.output && e.invoke > lost->response) return true;
    }
    return false;
  }
  for (const Operation& op : h.ops)
    if (op.f == "get" && op.key == lost->key && op.invoke > lost->response && op.outcome == Outcome::ok &&
        op.output.text.find(lost->input.text) == std::string::npos) {
      // Unless a put after the lost append could explain the missing text: ask for none.
      bool put = false;
      for (const Operation& w : h.ops)
        if (w.f == "put" && w.key == lost->key && w.response > lost->invoke && w.invoke < op.response) put = true;
      if (!put) return true;
    }
  return false;
}

}  // namespace family_detail

/// The history of one member of a family. A planted bug goes near the middle of the run (the
/// first place after half the calls where it certainly shows); throws if none was found.
inline duet::history::History generate(const Family& f) {
  const std::size_t total = f.clients * f.ops_per_client;
  for (std::size_t at = total / 2; at < total; at += std::max<std::size_t>(1, total / 50)) {
    family_detail::Planted planted;
    duet::history::History h = family_detail::simulate(f, at, planted);
    if (f.bug == Bug::none) return h;
    if (planted.done && family_detail::shows(f, h, planted)) return h;
  }
  throw std::runtime_error(std::string("duet_test::generate: no place for a planted ") + bug_name(f.bug) + " in " +
                           object_name(f.object) + " with " + std::to_string(f.clients) + " clients");
}

}  // namespace duet_test
