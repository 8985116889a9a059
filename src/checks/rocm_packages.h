// What the package databases say about the ROCm release: shared by rocm.multiple and
// driver.version (the packages probe, probes/packages.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/facts.h"

namespace rocdoc::checks {

/// "rocm-core 6.2.0.60200-66~22.04 (dpkg)".
std::string package_text(const FoundPackage& found);

/// The ROCm release (major.minor.patch) a package of ROCm names: AMD's release code in its
/// version ("6.2.41134.60204-139.el9" → "6.2.4"), else, for a distribution's own package, its
/// upstream version ("6.3.1-2.fc42" → "6.3.1"); nullopt without one.
std::optional<std::string> package_rocm_release(const InstalledPackage& package);

/// The ROCm release the package databases name, when their ROCm meta-packages
/// (PackageFacts::rocm_meta_packages) name exactly one; `evidence` names the package.
struct PackagedRelease {
  std::string release;   ///< "6.2.0"
  std::string evidence;  ///< "rocm-core 6.2.0.60200-66~22.04 (dpkg)"
};
std::optional<PackagedRelease> packaged_rocm_release(const Facts& facts);

/// AMD's ROCm packages (rocm*, hip*, hsa*, miopen*, rccl*) under their plain names, grouped by
/// the release their versions name, oldest first. AMD's multi-version packages, whose names end
/// with their release (rocm-core6.2.0), are left out: several of those are meant to coexist.
/// More than one group is a partial upgrade.
struct ReleaseGroup {
  std::string release;  ///< "6.2.0"
  std::vector<FoundPackage> packages;
};
std::vector<ReleaseGroup> plain_rocm_package_releases(const Facts& facts);

}  // namespace rocdoc::checks
