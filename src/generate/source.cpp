#include "duet/source.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>


namespace duet {

// Out of line (duet/source.hpp): what a case does once, not per draw, compiled once here.
Source Source::from_seed(std::uint64_t seed) {
  Source s(Mode::random);
  s.rng_ = detail::Rng(seed);
  return s;
}

Source Source::from_bytes(std::span<const std::uint8_t> bytes) {
  Source s(Mode::bytes);
  s.bytes_ = bytes;
  return s;
}

Source Source::replay(std::vector<std::uint64_t> choices) {
  Source s(Mode::replay);
  s.replayed_ = std::move(choices);
  return s;
}

void Source::restart(std::uint64_t seed) {
  mode_ = Mode::random;
  rng_ = detail::Rng(seed);
  random_after_replay_ = false;
  enumeration_ = nullptr;
  pos_ = 0;
  recorded_.clear();
  spans_.clear();
  counters_.clear();
  concurrent_start_ = kNoMark;
  if (watcher_) watcher_->changed(*this);
}

void Source::watch(detail::RecordWatcher* watcher) {
  watcher_ = watcher;
  if (watcher_) watcher_->changed(*this);
}

void Source::take_record(std::vector<std::uint64_t>& choices, std::vector<Span>& spans) {
  choices = std::exchange(recorded_, {});
  spans = std::exchange(spans_, {});
}

std::uint64_t Source::draw_recorded(std::uint64_t max) {
  std::uint64_t v;
  switch (mode_) {
    case Mode::random: v = rng_.below_or_equal(max); break;
    case Mode::replay:
      if (enumeration_) return draw_enumerated(max, max);
      if (pos_ >= replayed_.size() && random_after_replay_) {
        draw_at_random();
        return draw(max);
      }
      v = pos_ < replayed_.size() ? replayed_[pos_] : 0;
      if (v > max) v = max;
      break;
    default: v = from_bytes_draw(max); break;
  }
  ++pos_;
  record(v);
  return v;
}

void Source::replay_program(std::vector<std::uint64_t> program) {
  if (mode_ != Mode::random || !recorded_.empty())
    throw std::logic_error("Source::replay_program: a source in random mode, before its first draw");
  replayed_ = std::move(program);
  pos_ = 0;
  mode_ = Mode::replay;
  random_after_replay_ = true;
  if (replayed_.empty()) draw_at_random();
}

void Source::enumerate(detail::EnumerationPath& path) {
  if (mode_ == Mode::bytes) throw std::logic_error("Source::enumerate: a source reading bytes");
  recorded_.clear();
  spans_.clear();
  counters_.clear();
  concurrent_start_ = kNoMark;
  random_after_replay_ = false;
  replayed_.clear();
  if (watcher_) watcher_->changed(*this);
  path.bounds.clear();
  path.values = std::max<std::size_t>(path.values, 1);
  path.fresh = 0;
  enumeration_ = &path;
  pos_ = 0;
  mode_ = Mode::replay;  // never drawn from at random, nor inline, until program_drawn
}

std::uint64_t Source::draw_enumerated(std::uint64_t max, std::uint64_t bound) {
  bound = std::min(bound, max);
  const std::vector<std::uint64_t>& choices = enumeration_->choices;
  const std::uint64_t v = pos_ < choices.size() ? std::min(choices[pos_], bound) : 0;
  ++pos_;
  record(v);
  enumeration_->bounds.push_back(bound);
  return v;
}

// Symmetric: the values used so far (0 to fresh - 1, in the order of their first use) and the
// next new one; every program is a renaming of exactly one program drawn so.
std::uint64_t Source::draw_enumerated_datum(std::uint64_t max) {
  detail::EnumerationPath& path = *enumeration_;
  if (!path.symmetric) return draw_enumerated(max, path.values - 1);
  const std::uint64_t v = draw_enumerated(max, std::min<std::uint64_t>(path.values - 1, path.fresh));
  if (v == path.fresh) ++path.fresh;
  return v;
}

void Source::draw_at_random() {
  mode_ = Mode::random;
  random_after_replay_ = false;
  enumeration_ = nullptr;
  replayed_.clear();
}

void Source::record(std::uint64_t v) {
  const std::size_t size = recorded_.size();
  if (size >= kMaxChoices) throw Overrun{};
  if (size == recorded_.capacity()) recorded_.reserve(std::min(kMaxChoices, std::max<std::size_t>(64, 2 * size)));
  recorded_.push_back(v);
  if (watcher_) watcher_->changed(*this);
}

void Source::truncate(std::size_t position) {
  if (position >= recorded_.size()) return;
  recorded_.resize(position);
  while (!spans_.empty() && spans_.back().end > position) spans_.pop_back();
  if (concurrent_start_ != kNoMark && concurrent_start_ > position) concurrent_start_ = kNoMark;
  if (watcher_) watcher_->changed(*this);
}

Source::Drawn Source::drawn_since(std::size_t from) const {
  Drawn d;
  if (from < recorded_.size()) d.choices.assign(recorded_.begin() + static_cast<std::ptrdiff_t>(from), recorded_.end());
  d.rng = rng_.state();
  d.pos = pos_;
  d.byte_pos = byte_pos_;
  return d;
}

void Source::continue_from(std::size_t from, const Drawn& drawn) {
  truncate(from);
  for (const std::uint64_t v : drawn.choices) record(v);
  rng_ = detail::Rng(drawn.rng);
  pos_ = drawn.pos;
  byte_pos_ = drawn.byte_pos;
  if (watcher_) watcher_->changed(*this);
}

std::uint64_t Source::draw_decided(std::uint64_t max, std::uint64_t decided) {
  if (mode_ != Mode::random) return draw(max);
  const std::uint64_t v = decided < max ? decided : max;
  ++pos_;
  record(v);
  return v;
}

void Source::end_span_recorded(std::size_t begin) {
  if (recorded_.size() > begin) {
    if (spans_.size() == spans_.capacity()) spans_.reserve(std::max<std::size_t>(16, 2 * spans_.size()));
    spans_.push_back({begin, recorded_.size()});
  }
  if (watcher_) watcher_->changed(*this);
}

std::int64_t Source::next_count(std::uint64_t key) {
  for (auto& [k, n] : counters_)
    if (k == key) return ++n;
  counters_.push_back({key, 0});
  return 0;
}

// Bytes mode (fuzzers): a draw takes as many bytes as its bound needs, big-endian, reduced
// modulo the range. The bias this leaves is harmless for a fuzzer, and the mapping keeps
// "fewer, smaller bytes" meaning "simpler case", as the fuzzer's own reduction expects.
std::uint64_t Source::from_bytes_draw(std::uint64_t max) {
  if (max == 0) return 0;
  int nbytes = 0;
  for (std::uint64_t m = max; m != 0; m >>= 8) ++nbytes;
  if (byte_pos_ + static_cast<std::size_t>(nbytes) > bytes_.size()) throw Overrun{};
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v = (v << 8) | bytes_[byte_pos_++];
  return max == ~std::uint64_t{0} ? v : v % (max + 1);
}

}  // namespace duet
