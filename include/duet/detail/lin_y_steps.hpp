// A signature-only description (duet::Lin) under threads: the parallel property, with the
// candidate replayed sequentially as the oracle or (stress) none. Its steps (LinYSteps) and the
// oracle (CandidateOracle) are compiled once, in src/frontends/lin.cpp.
// Included by duet/parallel.hpp after the vocabulary it uses (duet/lin.hpp's); not a public
// header.
#pragma once

#include <memory>
#include <string>

#include "duet/detail/lin_description.hpp"
#include "duet/detail/y_program.hpp"

namespace duet {
namespace detail {

enum class LinMode { oracle, stress };

/// The parallel property of a description: Y-programs of its calls, with the candidate run
/// sequentially as the oracle (qcheck-lin), or (stress) no oracle, undeclared exceptions
/// failing. Compiled once (src/frontends/lin.cpp).
Property lin_parallel_property(std::shared_ptr<const LinDescription> description, LinMode mode, const ParallelConfig& pc);
template <class T>
Property lin_parallel_property(const Lin<T>& lin, LinMode mode, const ParallelConfig& pc) {
  return lin_parallel_property(LinAccess::description(lin), mode, pc);
}

/// What a parallel check of a description asks: linearizability with the candidate as its own
/// oracle (duet::check_parallel), the negative test (duet::expect_unsafe), or stress with no
/// oracle (duet::stress_parallel).
enum class LinCheck { linearizable, unsafe, stress };

/// duet::check_parallel, expect_unsafe and stress_parallel over a description: the description
/// and the settings validated (nothing tested, with the reason, when they cannot run), then its
/// Y-programs run. Compiled once, so that a test file builds no property of its own; the
/// overload without settings builds no settings either.
CheckResult check_lin_parallel(std::shared_ptr<const LinDescription> description, LinCheck check, const ParallelConfig& pc,
                               const Config& config);
CheckResult check_lin_parallel(std::shared_ptr<const LinDescription> description, LinCheck check);

/// duet::check_scenario over a description: the scenario's calls bound, the scenario and the
/// settings validated, then its program run with the candidate as its own oracle.
CheckResult check_lin_scenario(std::shared_ptr<const LinDescription> description, const Scenario<>& scenario,
                               const ParallelConfig& pc, const Config& config);
CheckResult check_lin_scenario(std::shared_ptr<const LinDescription> description, const Scenario<>& scenario);

/// Why the description cannot run under `pc`, as the error's report gives it, or empty: the
/// description's own mistake (LinDescription::spec_error), else a bad shape or roles naming no
/// operation of it ("bad ParallelConfig: ...").
std::string lin_parallel_error(const LinDescription& description, const ParallelConfig& pc);

}  // namespace detail
}  // namespace duet
