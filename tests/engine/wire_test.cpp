// The messages between duet's processes (src/engine/wire.hpp): each type's field list names
// every member of the struct, every message round-trips field for field, and bytes that are not
// a message (cut short, with a byte left over) throw std::runtime_error, never crash.
#include "engine/wire.hpp"
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "engine/case_wire.hpp"
#include "engine/protocol.hpp"
#include "engine/search_counts.hpp"
#include "engine/walk_jobs.hpp"
#include "execute/fibers/executor_totals.hpp"
#include "execute/trial_process.hpp"

namespace {

using namespace duet::detail;
namespace wire = duet::detail::wire;

// ---- How many members an aggregate has: the most initialisers its braces take ----
struct AnyMember {
  template <class T>
  operator T() const;  // never called: only asked whether it converts
};
template <class T, std::size_t... I>
constexpr bool takes(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyMember{})...}; };
}
template <class T, std::size_t N = 0>
constexpr std::size_t members() {
  if constexpr (N > 64) return N;
  else if constexpr (takes<T>(std::make_index_sequence<N + 1>{})) return members<T, N + 1>();
  else return N;
}
template <class T>
std::size_t listed() {
  T t{};
  return wire_fields(t, [](auto&&... field) { return sizeof...(field); });
}

// ---- A message filled with a distinct value in every field it sends ----
class Filler {
 public:
  template <class T>
  void fill(T& v) {
    if constexpr (wire::IsNotSent<T>::value) return;
    else if constexpr (std::is_same_v<T, bool>) v = next_++ % 2 == 1;
    else if constexpr (std::is_enum_v<T>) v = wire_last(v);
    else if constexpr (std::is_unsigned_v<T>) v = static_cast<T>(next_++ * 131);  // several bytes on the wire
    else if constexpr (std::is_same_v<T, double>) v = static_cast<double>(next_++) + 0.25;
    else if constexpr (std::is_same_v<T, const void*>) v = reinterpret_cast<const void*>(next_++ * 16);
    else if constexpr (std::is_same_v<T, std::string>) v = "s" + std::to_string(next_++) + std::string("\0\xff", 2);
    else if constexpr (wire::IsDuration<T>::value) v = T(next_++);
    else if constexpr (wire::IsTimePoint<T>::value) v = T(typename T::duration(next_++));
    else if constexpr (is_pair<T>::value) {
      fill(v.first);
      fill(v.second);
    } else if constexpr (is_optional<T>::value) {
      fill(v.emplace());
    } else if constexpr (is_vector<T>::value) {
      v.resize(2);
      for (auto& x : v) fill(x);
    } else {
      wire_fields(v, [this](auto&&... field) { (fill(field), ...); });
    }
  }

 private:
  std::uint64_t next_ = 1;
};

template <class T>
T filled() {
  T t{};
  Filler().fill(t);
  return t;
}

// Each message type once: what `Check` is called with.
template <class Check>
void for_each_message(Check&& check) {
  check(duet::Source::Span{}, "Source::Span");
  check(duet::Source::Drawn{}, "Source::Drawn");
  check(Step{}, "Step");
  check(InterleavingStep{}, "InterleavingStep");
  check(ClockRead{}, "ClockRead");
  check(Trace::ScenarioDraft{}, "Trace::ScenarioDraft");
  check(Trace{}, "Trace");
  check(CaseOutcome{}, "CaseOutcome");
  check(WalkProgress{}, "WalkProgress");
  check(SearchCounts{}, "SearchCounts");
  check(CaseRun{}, "CaseRun");
  check(SearchEnd{}, "SearchEnd");
  check(RunRequest{}, "RunRequest");
  check(RunAnswer{}, "RunAnswer");
  check(KnownDeath{}, "KnownDeath");
  check(ShrinkRequest{}, "ShrinkRequest");
  check(FailureRecord{}, "FailureRecord");
  check(ShrinkAnswer{}, "ShrinkAnswer");
  check(SearchRequest{}, "SearchRequest");
  check(SearchAnswer{}, "SearchAnswer");
  check(TrialProcessesRequest{}, "TrialProcessesRequest");
  check(TrialProcessesAnswer{}, "TrialProcessesAnswer");
  check(CaseMark{}, "CaseMark");
  check(ShareAnswer{}, "ShareAnswer");
  check(TrialAnswer{}, "TrialAnswer");
  check(CheckTotals{}, "CheckTotals");
  check(TrialTotals{}, "TrialTotals");
  check(ExhaustiveTotals{}, "ExhaustiveTotals");
  check(SavedTotals{}, "SavedTotals");
}

TEST(Wire, EveryFieldListNamesEveryMember) {
  for_each_message([]<class M>(const M&, const char* name) {
    EXPECT_EQ(listed<M>(), members<M>()) << name
                                         << ": a member missing from its wire_fields (not_sent, if it "
                                            "stays in this process, with the reason)";
  });
}

TEST(Wire, EveryMessageRoundTripsFieldForField) {
  for_each_message([]<class M>(const M&, const char* name) {
    const std::string bytes = encode(filled<M>());
    // Every field holds a value of its own: a field read into another's place, or not read,
    // changes the bytes written again.
    EXPECT_EQ(encode(decode<M>(bytes)), bytes) << name;
    EXPECT_EQ(encode(decode<M>(encode(M{}))), encode(M{})) << name << ", default";
  });
}

TEST(Wire, BytesThatAreNotAMessageThrow) {
  for_each_message([]<class M>(const M&, const char* name) {
    const std::string bytes = encode(filled<M>());
    for (std::size_t n = 0; n < bytes.size(); ++n)
      EXPECT_THROW(decode<M>(bytes.substr(0, n)), std::runtime_error) << name << ": " << n << " of " << bytes.size();
    EXPECT_THROW(decode<M>(bytes + 'x'), std::runtime_error) << name << ": a byte left over";
  });
}

TEST(Wire, ValuesOutOfRangeThrow) {
  WireWriter bad_kind;  // a step kind past the last
  bad_kind.str("");
  bad_kind.str("");
  bad_kind.u64(9);
  EXPECT_THROW(
      {
        WireReader in(bad_kind.bytes());
        Step s;
        wire::read(in, s);
      },
      std::runtime_error);
  WireWriter wide;  // a 32-bit field given 2^32
  wide.u64(0);
  wide.u64(std::uint64_t{1} << 32);
  EXPECT_THROW(decode<ClockRead>(wide.bytes()), std::runtime_error);
  WireWriter huge_count;  // a count larger than the bytes that follow
  huge_count.u64(~0ULL);
  EXPECT_THROW(decode<std::vector<std::string>>(huge_count.bytes()), std::runtime_error);
  EXPECT_THROW(decode<SearchCounts>(std::string(11, '\xff')), std::runtime_error);  // a number that never ends
}

}  // namespace
