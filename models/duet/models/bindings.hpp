// Every binding of real concurrent subjects to duet's models: the C++ standard library
// (bindings_std.hpp), oneTBB (bindings_tbb.hpp) and Boost.Lockfree (bindings_lockfree.hpp).
// Each is a type name plus the few calls its model needs. Include the one you need, or this
// one with both libraries (CMake: duet::models_tbb and duet::models_lockfree).
//
//   duet::check_parallel<duet::models::Queue<duet::models::TbbQueue>>();
#pragma once

#include <duet/models/bindings_lockfree.hpp>
#include <duet/models/bindings_std.hpp>
#include <duet/models/bindings_tbb.hpp>
