// What every docs code block (tests/docs/doc_blocks.cmake) is compiled after: duet's headers,
// the examples' headers the docs describe (docs/examples), and the names the docs use for them.
#pragma once

#include <duet/async.hpp>
#include <duet/gtest.hpp>
#include <duet/history.hpp>
#include <duet/history_model.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/sync_traits.hpp>
#include <duet/sync.hpp>
#include <duet/testing/block_device.hpp>

#include <oneapi/tbb/concurrent_queue.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "persistent_array.hpp"  // Ed's persistent arrays (the tutorial, docs/api.md)
#include "ring_buffer.hpp"       // the tutorial's ring buffer

// The docs name the persistent arrays' reference and Ed's candidate by their short namespaces.
namespace ref = persistent::ref;
namespace ed = persistent::ed;
using namespace std::chrono_literals;
