// The base of the exceptions that carry the engine's own signals through user code (the choice
// stream ran out, an injected crash): duet::capture and the front ends let them through
// instead of recording them as a result of the call.
#pragma once

namespace duet::detail {
struct EngineSignal {};
}  // namespace duet::detail
