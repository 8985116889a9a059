// Probe `runtime` (--deep): the HIP runtime, rocm_smi_lib and the HSA runtime as the Host's
// children found them (or a snapshot recorded them). Without --deep on a live machine it asks
// nothing and finds nothing: the default check starts no process.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

/// The candidates of each library in the order they are tried: each torch's bundled copies
/// (torch/lib), $ROCM_PATH/lib, /opt/rocm/lib (files that exist), then the sonames for the
/// system library path.
RuntimeRequest runtime_request(const ProbeContext& context, const PythonFacts* python);

/// What a report of the children says, parsed.
RuntimeFacts runtime_facts(const RuntimeReport& report);

/// `python`: the python probe's facts (the torch installs whose bundled copies come first).
std::optional<RuntimeFacts> probe_runtime(const ProbeContext& context, const PythonFacts* python);

}  // namespace rocdoc
