// Crash injection: duet::fault_point marks where the subject may crash (a block device's write,
// a commit). In a check whose spec says how to recover (a `recover` function), every fault point
// is a draw from the choice stream: most pass, one in `crash_one_in` crashes the subject there,
// so crashes shrink and replay with the scenario. Elsewhere a fault point does nothing.
//
//   duet::task<void> Disk::write(std::uint64_t sector, std::span<const std::byte> data) {
//     for (std::size_t i = 0; i < n; ++i) {
//       duet::fault_point("disk.write", "sector", sector + i);   // may crash before this sector
//       ...
//     }
//   }
//
//   struct KvSpec {
//     ...
//     static constexpr std::uint64_t crash_one_in = 20;          // optional (default 25)
//     static void recover(Sut& s) { s.store = KvStore::mount(s.disk); }   // from what persisted
//   };
//
// After a crash, the operation it interrupted may or may not have taken effect: the model
// continues with both possibilities, and every later result must be explained by one of them.
#pragma once

#include <cstdint>
#include <exception>
#include "duet/detail/source_location.hpp"
#include <string>
#include <string_view>

#include "duet/detail/engine_signal.hpp"
#include "duet/detail/fault_plan.hpp"

namespace duet {

class Source;
namespace detail {
struct CrashListeners;
}

/// Thrown out of the operation a fault point crashed (by duet::run for async code, where the
/// run's fibers stop where they are; directly by fault_point in synchronous code, where the
/// stack unwinds). A spec's run() lets it through: the engine recovers the subject.
struct crash : std::exception, detail::EngineSignal {
  std::string where;  // "disk.write, sector 3 (block_device.hpp:98)"
  explicit crash(std::string w) : where(std::move(w)), text_("duet::crash at " + where) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

/// A place where the subject may crash. No effect outside a crash-injecting check. The name
/// (and the label and number, "sector 3") say where in the report: "crash at disk.write, sector 3".
void fault_point(std::string_view name, duet::source_location loc = duet::source_location::current());
void fault_point(std::string_view name, std::string_view label, std::uint64_t number,
                 duet::source_location loc = duet::source_location::current());

/// Something that loses state at a crash (a write-back cache): on_crash runs after every crash,
/// before the spec's recover, with the case's choice stream to draw what survives. Listeners
/// register themselves on construction on their thread, and unregister on destruction.
class crash_listener {
 public:
  crash_listener() noexcept;
  crash_listener(const crash_listener&) noexcept;
  // Assignment copies nothing: a listener stays registered under its own address, so assigning
  // one to itself is as harmless as assigning another.
  crash_listener& operator=(const crash_listener&) noexcept { return *this; }  // NOLINT(bugprone-unhandled-self-assignment)
  virtual ~crash_listener();
  virtual void on_crash(Source& src) = 0;

 private:
  crash_listener* prev_ = nullptr;
  crash_listener* next_ = nullptr;
  friend struct detail::CrashListeners;
};

}  // namespace duet
