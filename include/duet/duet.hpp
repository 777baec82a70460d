// duet: test C++ libraries against a model, sequentially and under concurrency.
//
// The umbrella header. For GoogleTest, include duet/gtest.hpp instead (it includes this).
//
//   #include <duet/duet.hpp>
//   auto r = duet::check_sequential<MySpec>();   // a state-machine model: duet/state_machine.hpp
//   duet::Api api("Name"); ... api.check();       // reference vs candidate: duet/api.hpp
//   duet::Lin<T>().op(...).check_stress();        // signature only: duet/lin.hpp
#pragma once

#include "duet/api.hpp"
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/executor.hpp"
#include "duet/gen.hpp"
#include "duet/hash.hpp"
#include "duet/lin.hpp"
#include "duet/parallel.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"
#include "duet/source.hpp"
#include "duet/state_machine.hpp"
#include "duet/version.hpp"
