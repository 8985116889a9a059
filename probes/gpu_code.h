// GPU code on disk, found through the Host: which libraries of a directory carry HIP offload
// bundles and for which targets, and which targets a rocBLAS Tensile directory has files for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/host.h"

namespace rocdoc {

/// The shared libraries among `names` (entries of `dir`) that hold GPU code, with their
/// targets, in the listing's order; a link to another entry of the listing is skipped.
std::vector<GpuCode> gpu_code_in(const Host& host, const std::string& dir,
                                 const std::vector<std::string>& names);

/// The targets of the Tensile files in `dir` (a rocblas/library directory); nullopt when the
/// directory is missing or names no target.
std::optional<GpuCode> tensile_library(const Host& host, const std::string& dir);

}  // namespace rocdoc
