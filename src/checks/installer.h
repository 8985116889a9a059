// AMD's installer in fixes: `amdgpu-install --usecase=…` only where it is installed; elsewhere
// the steps that get it for this distribution release (rules: rocm_releases.yaml
// `installers`), or the distribution's own packages where those are the supported path.
#pragma once

#include <string>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

/// The installer the rules name for this machine's distribution release; null when none.
const RocmInstaller* installer_for(const CheckContext& context);

/// The fixes that run `sudo amdgpu-install <arguments>` (e.g. "--usecase=dkms"): that command
/// alone where /usr/bin/amdgpu-install exists; else the steps that get it first, then the
/// command. Empty where the distribution's own packages are the supported path (the caller
/// says what to do instead); one manual step where the rules know no way for this release.
/// `description` describes the amdgpu-install step.
std::vector<Fix> amdgpu_install_fixes(const CheckContext& context, const std::string& description,
                                      const std::string& arguments, bool needs_reboot = false);

/// The driver checks' fixes (driver.amdgpu-missing, driver.kfd-missing) get AMD's installer on
/// this machine: they fire (no amdgpu loaded, or no /dev/kfd, on a host) and it is missing.
/// Other fixes then run it without getting it again: one command belongs to one root cause.
bool driver_fix_gets_installer(const CheckContext& context);

/// Where to read how to install ROCm on a distribution the rules know no installer for.
inline constexpr const char* k_install_guide =
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/";

}  // namespace rocdoc::checks
