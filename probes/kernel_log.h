// Probe `kernel_log`: the GPU lines of this boot's kernel log, each classified.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

/// What one line says, when it says something a check names.
std::optional<KernelEventKind> classify_kernel_line(std::string_view line);

KernelLogFacts probe_kernel_log(const ProbeContext& context);

}  // namespace rocdoc
