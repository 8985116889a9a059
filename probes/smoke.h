// Probe `smoke` (--smoke): each Python environment with torch run for real by its interpreter
// (src/runtime/smoke_runner.h), or what a snapshot recorded of such runs. Without --smoke on a
// live machine it asks nothing and finds nothing: the default check starts no process.
#pragma once

#include <optional>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

/// One target per environment with torch: the interpreter named with --python that found it,
/// else the environment's own (PREFIX/bin/pythonX.Y, python3, python; /usr/bin's for the
/// system's and /usr/local's site directories).
SmokeRequest smoke_request(const ProbeContext& context, const PythonFacts* python);

SmokeFacts smoke_facts(const SmokeReport& report);

std::optional<SmokeFacts> probe_smoke(const ProbeContext& context, const PythonFacts* python);

}  // namespace rocdoc
