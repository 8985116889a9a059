// Probe "rocm": ROCm installs under /opt and their versions.
#pragma once

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

RocmFacts probe_rocm(const ProbeContext& context);

}  // namespace rocdoc
