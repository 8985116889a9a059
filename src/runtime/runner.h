// --deep on the live machine: the HIP, rocm_smi and HSA children forked at once under one
// deadline (util::run_forked), their output summarised. LiveHost::runtime_report calls it.
#pragma once

#include <string_view>

#include "rocdoc/runtime.h"

namespace rocdoc::runtime {

/// Runs the three children of `request` and says how each ended.
RuntimeReport run_runtimes(const RuntimeRequest& request);

/// The evidence kept of a child's stdout or stderr: its size, its line count and its first
/// few lines, printable and cut short.
OutputSummary summarise_output(std::string_view kept, std::uint64_t bytes);

}  // namespace rocdoc::runtime
