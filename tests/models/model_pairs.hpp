// Every model + binding pair that models/ ships, for the draft test (drafts_test.cpp): each
// pair's draft tests are written by duet and must compile against these bindings.
#pragma once

#include <duet/models/bindings.hpp>
#include <duet/models/bounded_buffer.hpp>
#include <duet/models/bounded_queue.hpp>
#include <duet/models/chase_lev.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/map.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/pair_register.hpp>
#include <duet/models/priority_queue.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/register.hpp>
#include <duet/models/relaxed_queue.hpp>
#include <duet/models/seqlock.hpp>
#include <duet/models/set.hpp>
#include <duet/models/spsc_ring.hpp>
#include <duet/models/stack.hpp>
#include <duet/models/sync_traits.hpp>
#include <duet/models/treiber_stack.hpp>
