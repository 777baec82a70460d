// The base of the exceptions that carry the engine's own signals through user code (the choice
// stream ran out, an injected crash): duet::capture and the front ends let them through
// instead of recording them as a result of the call.
#pragma once

#include <stdexcept>

namespace duet::detail {
struct EngineSignal {};

/// duet itself cannot go on with the case (one of its own limits was reached): the check ends
/// with Status::error and this message, never as a failure of the code under test.
struct EngineError : std::runtime_error, EngineSignal {
  using std::runtime_error::runtime_error;
};
}  // namespace duet::detail
