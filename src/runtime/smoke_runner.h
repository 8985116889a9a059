// --smoke on the live machine: each interpreter of the request runs the embedded script
// (src/runtime/smoke.py) in a child of its own, one after the other, each under the deadline.
// LiveHost::smoke_report calls it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocdoc/smoke.h"

namespace rocdoc::runtime {

/// The script, embedded at build time (cmake/EmbedSmoke.cmake).
std::string_view smoke_script();

/// The allow-listed variables that change what torch sees (the visible-device masks, the
/// overrides, HIP/HSA/ROCm/MIOpen/PyTorch settings, the library path), nothing else.
bool is_smoke_variable(std::string_view name);

/// The child's whole environment: a plain PATH and locale, HOME, the user's smoke variables,
/// then the caches torch and its libraries write pointed at `cache_dir` (removed afterwards).
std::vector<std::string> smoke_environment(
    const std::vector<std::pair<std::string, std::string>>& variables, const std::string& home,
    const std::string& cache_dir);

/// Runs every target of `request`; `variables` are the allow-listed ones that are set.
SmokeReport run_smoke(const SmokeRequest& request,
                      const std::vector<std::pair<std::string, std::string>>& variables);

}  // namespace rocdoc::runtime
