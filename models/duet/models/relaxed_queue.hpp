// Relaxed models of a queue, for structures whose documented contract is weaker than FIFO: the
// model sees each result and says which states may follow (a relaxed spec: next_states), so a
// check is a positive one of what the authors promise, not a negative test of what they do not.
// Same commands and bindings as Queue (queue.hpp): push(x), try_pop() -> optional.
//
//   SpuriousEmptyQueue<B>  FIFO, but try_pop may come back empty while items are there (a pop
//                          that gave up under contention: a try_lock, a lost CAS race)
//   Bag<B>                 try_pop returns any item in the queue, empty only when it is empty
//                          (work queues, pools, per-thread-cached queues)
//   FifoPerProducerQueue<B>  each producer's items come out in the order it pushed them, with
//                          no order between producers (moodycamel::ConcurrentQueue's promise);
//                          FifoPerProducerQueue<B, EmptyPop::may_give_up> also lets try_pop
//                          come back empty while items are there
//   RelaxedQueue<B, State>  the base of the above: your own relaxed queue model derives from it
//                          and gives State and next_states
//
//   duet::check_parallel<duet::models::SpuriousEmptyQueue<MyTryLockQueueBinding>>();
//   duet::check_parallel<duet::models::Bag<MyWorkQueueBinding>>();
//   duet::check_parallel<duet::models::FifoPerProducerQueue<MyShardedQueueBinding>>();
#pragma once

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>
#include <duet/models/queue.hpp>

namespace duet::models {

/// The base of a relaxed queue model: Queue's commands (push(x), try_pop() -> optional) on `q`,
/// how they run on the binding, the values pushed (the binding's values(), or 0..9), and the
/// subject (Binding::make(), or default-constructed). A model derived from it gives its State
/// (what the queue may hold) and next_states (the states a call's result may leave), as
/// SpuriousEmptyQueue, Bag and FifoPerProducerQueue below do.
///
///   // A 2-relaxed FIFO: try_pop returns one of the two oldest items.
///   template <class B>
///   struct TwoRelaxedQueue : duet::models::RelaxedQueue<B, std::deque<int>> {
///     using Base = duet::models::RelaxedQueue<B, std::deque<int>>;
///     using States = std::vector<std::deque<int>>;
///     static States next_states(const typename Base::Cmd& c, const std::deque<int>& s, const duet::Result& got) {
///       std::deque<int> t = s;
///       if (auto* p = std::get_if<duet::models::Push>(&c)) {
///         t.push_back(p->x);
///         return {t};
///       }
///       if (got == duet::Result(std::optional<int>())) return s.empty() ? States{s} : States{};
///       for (std::size_t i = 0; i < 2 && i < s.size(); ++i)
///         if (got == duet::Result(std::optional<int>(s[i]))) {
///           t.erase(t.begin() + static_cast<std::ptrdiff_t>(i));
///           return {t};
///         }
///       return {};
///     }
///   };
///   duet::check_parallel<TwoRelaxedQueue<MyQueueBinding>>();
template <class Binding, class StateT>
struct RelaxedQueue {
  using Sut = typename Binding::Sut;
  using State = StateT;
  using Cmd = std::variant<Push, TryPop>;
  static constexpr const char* sut_name = "q";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " q;"; }
  static std::unique_ptr<Sut> init_sut() { return models::detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return models::detail::draft_subject<Binding>(
        sut_name, {"void push(int x) { B::push(s, x); }", "std::optional<int> try_pop() { return B::try_pop(s); }"});
  }
  /// The values pushed: the binding's values() (binding.hpp), or 0..9.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = one_of(construct<Push>(values()).map([](Push p) { return Cmd(p); }), just(Cmd(TryPop{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& q) {
    if (auto* p = std::get_if<Push>(&c)) {
      Binding::push(q, p->x);
      return {};
    }
    return std::optional<int>(Binding::try_pop(q));
  }
};

namespace detail {
/// The name RelaxedQueue had before it was public, for models written against it.
template <class Binding, class StateT>
using RelaxedQueueBase = RelaxedQueue<Binding, StateT>;
}  // namespace detail

/// FIFO, except that try_pop may return nullopt while the queue holds items: such a pop leaves
/// it unchanged. A pop that returns an item must return the oldest.
///
///   duet::check_parallel<duet::models::SpuriousEmptyQueue<MyTryLockQueueBinding>>();
template <class Binding>
struct SpuriousEmptyQueue : RelaxedQueue<Binding, std::deque<int>> {
  using Base = RelaxedQueue<Binding, std::deque<int>>;
  using typename Base::Cmd;
  using typename Base::State;
  static std::vector<State> next_states(const Cmd& c, const State& s, const Result& got) {
    if (auto* p = std::get_if<Push>(&c)) {
      State t = s;
      t.push_back(p->x);
      return {t};
    }
    if (got == Result(std::optional<int>())) return {s};  // empty, or gave up
    if (s.empty() || !(got == Result(std::optional<int>(s.front())))) return {};
    State t = s;
    t.pop_front();
    return {t};
  }
};

/// A bag: try_pop returns any item the queue holds (each once), nullopt only when it is empty.
///
///   duet::check_parallel<duet::models::Bag<duet::models::TbbQueue>>();
template <class Binding>
struct Bag : RelaxedQueue<Binding, std::vector<int>> {
  using Base = RelaxedQueue<Binding, std::vector<int>>;
  using typename Base::Cmd;
  using typename Base::State;  // the items, sorted: equal bags are equal states
  static std::vector<State> next_states(const Cmd& c, const State& s, const Result& got) {
    State t = s;
    if (auto* p = std::get_if<Push>(&c)) {
      t.insert(std::upper_bound(t.begin(), t.end(), p->x), p->x);
      return {t};
    }
    if (got == Result(std::optional<int>())) return s.empty() ? std::vector<State>{s} : std::vector<State>{};
    for (auto it = t.begin(); it != t.end(); ++it)
      if (got == Result(std::optional<int>(*it))) {
        t.erase(it);
        return {t};
      }
    return {};
  }
};

/// How a relaxed queue model judges a try_pop that comes back empty (FifoPerProducerQueue's
/// second parameter).
///
///   duet::models::FifoPerProducerQueue<MyShardedQueueBinding, duet::models::EmptyPop::may_give_up>
enum class EmptyPop {
  only_when_empty,  // the queue held nothing
  may_give_up,      // or the pop gave up while items were there (leaving them)
};

/// FIFO per producer: each caller's pushes come out in the order it made them, any producer's
/// oldest item may come next. A producer is a thread of the program (duet::Caller): each branch,
/// and the thread that runs the prefix and suffix; a sequential check has one, so there it is a
/// FIFO queue. The state is each producer's items, so the parallel search stays exact.
///
///   duet::check_parallel<duet::models::FifoPerProducerQueue<MyShardedQueueBinding>>();
///   duet::check_parallel<duet::models::FifoPerProducerQueue<MyShardedQueueBinding, duet::models::EmptyPop::may_give_up>>();
template <class Binding, EmptyPop empty = EmptyPop::only_when_empty>
struct FifoPerProducerQueue : RelaxedQueue<Binding, std::vector<std::deque<int>>> {
  using Base = RelaxedQueue<Binding, std::vector<std::deque<int>>>;
  using typename Base::Cmd;
  using typename Base::State;  // by producer thread, no empty queue at the end: equal queues are equal states
  static std::vector<State> next_states(const Cmd& c, const State& s, const Result& got, Caller who) {
    if (auto* p = std::get_if<Push>(&c)) {
      State t = s;
      if (t.size() <= who.thread) t.resize(who.thread + 1);
      t[who.thread].push_back(p->x);
      return {t};
    }
    const bool none_left = std::all_of(s.begin(), s.end(), [](const std::deque<int>& q) { return q.empty(); });
    if (got == Result(std::optional<int>()))
      return none_left || empty == EmptyPop::may_give_up ? std::vector<State>{s} : std::vector<State>{};
    std::vector<State> next;
    for (std::size_t producer = 0; producer < s.size(); ++producer) {
      if (s[producer].empty() || !(got == Result(std::optional<int>(s[producer].front())))) continue;
      State t = s;
      t[producer].pop_front();
      while (!t.empty() && t.back().empty()) t.pop_back();
      next.push_back(std::move(t));
    }
    return next;
  }
};

struct DequePush {
  int x;
};
struct DequePop {};
struct DequeSteal {};
inline std::string duet_show(const DequePush& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const DequePop&) { return "pop()"; }
inline std::string duet_show(const DequeSteal&) { return "steal()"; }

/// A bounded work-stealing deque: push(x) -> bool (false only when it holds `capacity` items) and
/// pop() -> optional at the owner's end (the newest; nullopt only when empty), steal() ->
/// optional at the other end (the oldest), where a steal may also come back empty while items
/// are there (it lost a race: an aborted steal). Checked with roles: one owner (push, pop),
/// thieves (steal). Binding: Sut, capacity, push, pop, steal, optionally make() and values().
///
///   duet::check_parallel<duet::models::WorkStealingDeque<duet::models::ChaseLevBinding<>>>(
///       {.roles = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}}});
template <class Binding>
struct WorkStealingDeque {
  using Sut = typename Binding::Sut;
  using State = std::deque<int>;
  using Cmd = std::variant<DequePush, DequePop, DequeSteal>;
  static constexpr std::size_t capacity = Binding::capacity;
  static constexpr const char* sut_name = "d";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " d(" + std::to_string(capacity) + ");"; }
  static std::unique_ptr<Sut> init_sut() { return models::detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return models::detail::draft_subject<Binding>(
        sut_name, {"bool push(int x) { return static_cast<bool>(B::push(s, x)); }",
                   "std::optional<int> pop() { return B::pop(s); }", "std::optional<int> steal() { return B::steal(s); }"});
  }
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = one_of(construct<DequePush>(values()).map([](DequePush p) { return Cmd(p); }),
                                       just(Cmd(DequePop{})), just(Cmd(DequeSteal{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& d) {
    if (auto* p = std::get_if<DequePush>(&c)) return static_cast<bool>(Binding::push(d, p->x));
    if (std::holds_alternative<DequePop>(c)) return std::optional<int>(Binding::pop(d));
    return std::optional<int>(Binding::steal(d));
  }
  static std::vector<State> next_states(const Cmd& c, const State& s, const Result& got) {
    const Result none{std::optional<int>()};
    if (auto* p = std::get_if<DequePush>(&c)) {
      if (s.size() >= capacity) return got == Result(false) ? std::vector<State>{s} : std::vector<State>{};
      if (!(got == Result(true))) return {};
      State t = s;
      t.push_back(p->x);
      return {t};
    }
    const bool pop = std::holds_alternative<DequePop>(c);
    if (got == none) return s.empty() || !pop ? std::vector<State>{s} : std::vector<State>{};  // a steal may abort
    if (s.empty() || !(got == Result(std::optional<int>(pop ? s.back() : s.front())))) return {};
    State t = s;
    pop ? t.pop_back() : t.pop_front();
    return {t};
  }
};

}  // namespace duet::models
