// The choice stream: the one source of every decision duet makes.
//
// A Source hands out bounded integers. Every draw is recorded, so a failing case is the
// recorded sequence of choices: replaying it reproduces the case exactly, and shrinking
// it (deleting spans, lowering values) shrinks whatever was generated from it, including
// state-dependent generation. Zero is always the simplest answer to a draw.
//
//   duet::Source s = duet::Source::from_seed(42);
//   uint64_t die = s.draw(5) + 1;        // 1..6, recorded
//   auto again = duet::Source::replay(s.choices());
//   assert(again.draw(5) + 1 == die);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "duet/detail/engine_signal.hpp"
#include "duet/detail/rng.hpp"

namespace duet {

/// Thrown by a Source built from bytes when the bytes run out. The engine ends the case
/// cleanly: running out of input is not a failure.
struct Overrun : detail::EngineSignal {};

/// Thrown by generators that cannot produce a value here (a filter that keeps rejecting).
/// The engine discards the attempt and counts it in the discard rate.
struct Discard {};

class Source;
namespace detail {
/// One path of an enumeration of every program (detail/enumeration.hpp): the choices to draw,
/// 0 past them; each draw's bound, recorded as the program is drawn. Set by Source::enumerate.
struct EnumerationPath {
  std::vector<std::uint64_t> choices;
  std::vector<std::uint64_t> bounds;
  std::size_t values = 2;  // answers tried of each value draw (Source::draw_value)
  /// Data values alike up to renaming (EveryProgram::symmetric_values): each path draws its data
  /// values (Source::draw_datum) in the order of their first use.
  bool symmetric = false;
  std::uint64_t fresh = 0;  // the data values the path has used so far, 0 to fresh - 1
};
/// Told of every change to a watched Source's record (Source::watch): a choice drawn, a span
/// ended, the concurrent mark set, the record cut or started over. The engine's, to mirror a
/// case's choices where they outlive a process that dies running it.
class RecordWatcher {
 public:
  virtual void changed(const Source& source) = 0;

 protected:
  ~RecordWatcher() = default;
};
}  // namespace detail

class Source {
 public:
  enum class Mode : std::uint8_t { random, bytes, replay };

  /// Pseudo-random choices from a 64-bit seed.
  static Source from_seed(std::uint64_t seed);
  /// Choices read from raw bytes (a fuzzer's input); running out throws Overrun.
  static Source from_bytes(std::span<const std::uint8_t> bytes);
  /// Replays recorded choices. A recorded value above a draw's bound is clamped to the
  /// bound; past the end every draw answers 0 (the simplest choice), which is what lets
  /// the shrinker delete choices freely.
  static Source replay(std::vector<std::uint64_t> choices);

  /// Starts a new random case in place, keeping allocated buffers (the engine's hot loop).
  void restart(std::uint64_t seed);

  /// From now on `watcher` is told of every change to this source's record, and at once of the
  /// record as it is (null: no watcher). A copy of the source tells the same watcher of its own.
  void watch(detail::RecordWatcher* watcher);

  /// A choice in [0, max], recorded. Inline only for the search's case (random mode, room
  /// already reserved, no watcher: a splitmix64 step, a multiply and a store); every other
  /// draw is out of line (draw_recorded), which keeps the code inlined into each generator small.
  /// The room is tested as `!=`, which the compiler merges with push_back's own test (as `<`,
  /// the same condition, it tested twice).
  std::uint64_t draw(std::uint64_t max) {
    if (mode_ == Mode::random && recorded_.size() != recorded_.capacity() && !watcher_) [[likely]] {
      const std::uint64_t v = rng_.below_or_equal(max);
      recorded_.push_back(v);
      return v;
    }
    return draw_recorded(max);
  }

  /// A choice in [0, max] whose answers above `distinct` only repeat answers at or below it
  /// (a "one more call?" drawn from [0, 3], where 1 to 3 all say yes): drawn as draw(max), but
  /// an enumeration of every program (ParallelConfig::every_program) tries [0, distinct] only.
  ///
  ///   if (s.draw(3, 1) == 0) break;   // stops a quarter of the time; enumerated: stop, go on
  std::uint64_t draw(std::uint64_t max, std::uint64_t distinct) {
    return enumeration_ ? draw_enumerated(max, distinct) : draw(max);
  }
  /// A value of a generator's domain, simplest first: drawn as draw(max), but an enumeration of
  /// every program tries only its first EveryProgram::values answers (duet::integers draws the
  /// value this way, so a program's arguments range over the values nearest the target).
  ///
  ///   const int x = static_cast<int>(s.draw_value(9));   // 0..9; enumerated: 0 and 1
  std::uint64_t draw_value(std::uint64_t max) {
    return enumeration_ ? draw_enumerated(max, enumeration_->values - 1) : draw(max);
  }
  /// A value of a data domain (duet::integers): drawn as draw_value, but an enumeration whose
  /// values are alike up to renaming (EveryProgram::symmetric_values) tries only the values the
  /// program has used so far and the next new one.
  ///
  ///   const int x = static_cast<int>(s.draw_datum(9));   // 0..9; enumerated: 0, 1 (or 0 alone first)
  std::uint64_t draw_datum(std::uint64_t max) { return enumeration_ ? draw_enumerated_datum(max) : draw(max); }
  /// While a program is enumerated, the answers tried of each value draw (at least 1); 0 in
  /// every other case. A generator that bounds a size by it keeps an enumeration finite.
  std::size_t enumerated_values() const { return enumeration_ ? enumeration_->values : 0; }

  /// Starts the case again (its choices, spans and counters forgotten; the generator not
  /// rewound) and draws `path`'s choices (each clamped to its draw's bound), then 0 for every
  /// draw, recording each draw's bound in `path`, until the case says its program is drawn
  /// (program_drawn); from there on, at random. How every program of a scope is drawn, one path
  /// at a time; `path` must outlive the program's drawing. Not for a source reading bytes.
  void enumerate(detail::EnumerationPath& path);

  /// A choice in [0, max] that a strategy has already made, recorded like a draw. Random mode:
  /// records `decided` (clamped to max) and returns it, without advancing the generator.
  /// Replay mode: returns the replayed value exactly as draw(max) does, ignoring `decided`.
  /// Bytes mode: reads the bytes as draw(max) does.
  ///
  /// This is how every fiber scheduling strategy records its picks (PCT's priorities, the
  /// exhaustive search's schedule): the stream holds the decision, as the index of the chosen
  /// candidate, never the strategy's reasons. So a failing schedule found by any strategy
  /// replays with the plain random picker over Source::replay(choices()), and the shrinker
  /// reduces it like any other draws: toward 0, which for a pick means "keep running the
  /// current fiber", that is toward fewer preemptions.
  std::uint64_t draw_decided(std::uint64_t max, std::uint64_t decided);

  /// Randomness private to a strategy, whose effect is recorded some other way (PCT draws its
  /// fiber priorities here and records each pick with draw_decided). Random mode: a value in
  /// [0, max] from the seed's generator, NOT recorded (replaying never needs it). Replay and
  /// bytes modes: 0, reading nothing, since there the recorded decisions are read back instead.
  std::uint64_t draw_unrecorded(std::uint64_t max) { return mode_ == Mode::random ? rng_.below_or_equal(max) : 0; }

  /// True with probability numerator/denominator in random mode; the choice 0 (the one the
  /// shrinker moves toward) means false.
  bool chance(std::uint64_t numerator, std::uint64_t denominator) {
    return draw(denominator - 1) >= denominator - numerator;
  }

  const std::vector<std::uint64_t>& choices() const { return recorded_; }
  std::size_t position() const { return recorded_.size(); }
  Mode mode() const { return mode_; }

  /// Marks the choices drawn between begin_span() and end_span() as one unit (one command):
  /// the shrinker tries deleting and reordering whole spans first.
  std::size_t begin_span() const { return recorded_.size(); }
  void end_span(std::size_t begin) {
    // Inline, as draw(): once a command, into room already reserved, with no watcher.
    if (recorded_.size() > begin && spans_.size() != spans_.capacity() && !watcher_) [[likely]] {
      spans_.push_back({begin, recorded_.size()});
      return;
    }
    end_span_recorded(begin);
  }
  struct Span {
    std::size_t begin, end;
  };
  const std::vector<Span>& spans() const { return spans_; }
  /// Moves the recorded choices and spans out, leaving none: for a case that is over, whose
  /// record outlives the Source (a replay's, per shrink candidate, where copying was a cost).
  void take_record(std::vector<std::uint64_t>& choices, std::vector<Span>& spans);

  /// What a case drew from `from` on, and where its generator and inputs stand: a trial run in a
  /// process of its own (FiberOptions::trial_processes) sends it back, and the process that goes
  /// on with the case continues from it (continue_from), as if it had drawn them itself.
  struct Drawn {
    std::vector<std::uint64_t> choices;
    std::uint64_t rng = 0;
    std::size_t pos = 0, byte_pos = 0;
  };
  Drawn drawn_since(std::size_t from) const;
  void continue_from(std::size_t from, const Drawn& drawn);

  /// Forgets the choices from `position` on (random mode: the generator is not rewound, so
  /// the next draws differ). For parts of a case whose choices need not be kept, such as the
  /// schedule of a trial that passed.
  void truncate(std::size_t position);

  /// Random mode, before a case's first draw: replays `program`, the choices that drew a
  /// program elsewhere, then draws at random from this source's seed once the case says its
  /// program is drawn (program_drawn), or once `program` runs out. This is how a program that
  /// failed on threads is searched again on fibers: its calls are the same, its schedules new.
  void replay_program(std::vector<std::uint64_t> program);
  /// The case's program is drawn: a source replaying one (replay_program) draws at random from
  /// here on; any other source is unchanged.
  void program_drawn() {
    if (random_after_replay_ || enumeration_) draw_at_random();
  }

  /// Marks where a case's sequential part ends and its concurrent part begins (a Y-program's
  /// prefix and branches). The shrinker prefers choices before the mark: moving a call from a
  /// branch into the prefix counts as simpler.
  void mark_concurrent_start() { mark_concurrent_start(recorded_.size()); }
  /// The same at an earlier position: where a call moved out of a branch would be inserted
  /// (before the choice that ended the prefix).
  void mark_concurrent_start(std::size_t position) {
    concurrent_start_ = position;
    if (watcher_) watcher_->changed(*this);
  }
  std::size_t concurrent_start() const { return concurrent_start_; }
  static constexpr std::size_t kNoMark = ~std::size_t{0};

  /// Per-case counters for duet::sequential(): each generator object counts from 0 in
  /// every case, so replay reproduces the same values.
  std::int64_t next_count(std::uint64_t key);

  /// A case draws at most this many choices; past it the case ends as an overrun, which
  /// stops generators that never terminate.
  static constexpr std::size_t kMaxChoices = std::size_t{1} << 20;

 private:
  explicit Source(Mode m) : mode_(m) {}
  std::uint64_t from_bytes_draw(std::uint64_t max);
  // draw() past its inline case: any mode, growing the room for choices.
  std::uint64_t draw_recorded(std::uint64_t max);
  // Appends a choice (Overrun past kMaxChoices). The room grows only here and never past
  // kMaxChoices, so that draw()'s inline test for room also keeps a case within the limit.
  void record(std::uint64_t v);
  // end_span() past its inline case; room for spans is reserved here, several at a time (a
  // replayed case starts with none: growing one by one was an allocation every few commands).
  void end_span_recorded(std::size_t begin);
  // Ends a replay_program or an enumerated program: random mode from here on.
  void draw_at_random();
  // A draw while a program is enumerated: the path's choice clamped to [0, min(max, bound)].
  std::uint64_t draw_enumerated(std::uint64_t max, std::uint64_t bound);
  std::uint64_t draw_enumerated_datum(std::uint64_t max);

  Mode mode_;
  detail::Rng rng_{0};
  std::span<const std::uint8_t> bytes_;
  std::vector<std::uint64_t> replayed_;
  std::size_t pos_ = 0;
  std::size_t byte_pos_ = 0;
  std::vector<std::uint64_t> recorded_;
  std::vector<Span> spans_;
  std::vector<std::pair<std::uint64_t, std::int64_t>> counters_;
  std::size_t concurrent_start_ = kNoMark;
  bool random_after_replay_ = false;                // replay_program: random once the program is drawn
  detail::EnumerationPath* enumeration_ = nullptr;  // enumerate: until the program is drawn
  detail::RecordWatcher* watcher_ = nullptr;
};

}  // namespace duet
