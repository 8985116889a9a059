// AMD's ROCm as pip packages (TheRock): which ones an environment holds, from its *.dist-info
// directory names alone (no file is read).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rocdoc/facts.h"

namespace rocdoc {

/// The ROCm SDK packages among a site directory's packages, as package_from_metadata_dir reads
/// its entries ("rocm_sdk_core-7.14.1.dist-info", "rocm_sdk_device_gfx1151-7.14.1.dist-info",
/// "rocm_sdk_libraries_gfx110x_all-7.13.0.dist-info" ...); nullopt when there are none.
std::optional<RocmSdk> rocm_sdk_of(std::span<const PythonPackage> packages);

}  // namespace rocdoc
