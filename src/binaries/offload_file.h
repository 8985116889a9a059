// Opening a file for scan_offload_bundles (src/binaries/offload_bundle.h): the live machine, a
// sysroot and `rocdoc targets` hand it an open descriptor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/binaries/offload_bundle.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

/// Scans an open file; a descriptor that is not a regular file is a problem.
OffloadScan scan_offload_file(util::UniqueFd fd);

/// What a Host answers for a file (Host::offload_targets): its targets, or nullopt when the
/// scan found a problem, so that a damaged file is never read as "no code for your GPU".
std::optional<std::vector<std::string>> offload_targets_answer(const OffloadScan& scan);

}  // namespace rocdoc
