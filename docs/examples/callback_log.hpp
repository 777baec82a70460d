// A library written against callbacks, as much event-driven C++ is: an append-only log of
// one-sector records over an I/O interface whose write() calls back when the data is written.
// docs/async.md shows how duet tests it unchanged: the I/O interface is implemented over
// duet::BlockDevice, and every completion is posted onto duet's scheduler (duet::post), so the
// order in which completions run is a choice of the schedule.
//
// The planted bug (Reserve::at_completion): the record's slot is read when the append starts
// but claimed only when its write completes; two appends in flight at once take the same slot
// and one record is lost. Whether they are in flight at once is up to the schedule.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace cblog {

enum class Reserve { at_submission, at_completion };

/// IO: `void write(std::uint64_t slot, std::string data, std::function<void()> done)` and
/// `void read(std::uint64_t slot, std::function<void(std::string)> done)`.
template <class IO, Reserve reserve = Reserve::at_submission>
class Log {
 public:
  explicit Log(IO& io) : io_(io) {}

  /// Appends a record; done(slot) runs once it is written.
  void append(std::string record, std::function<void(std::uint64_t)> done) {
    if constexpr (reserve == Reserve::at_submission) {
      const std::uint64_t slot = next_++;
      io_.write(slot, std::move(record), [slot, done = std::move(done)] { done(slot); });
    } else {
      const std::uint64_t slot = next_;  // the bug: claimed below, only once written
      io_.write(slot, std::move(record), [this, slot, done = std::move(done)] {
        next_ = slot + 1;
        done(slot);
      });
    }
  }

  /// Reads record `slot`; done(record) runs once it is read.
  void read(std::uint64_t slot, std::function<void(std::string)> done) { io_.read(slot, std::move(done)); }

  std::uint64_t size() const { return next_; }

 private:
  IO& io_;
  std::uint64_t next_ = 0;
};

}  // namespace cblog
