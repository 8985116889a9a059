// The check functions, one per id, grouped by area (one .cpp per area).
#pragma once

#include <string>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

// Hardware and PCI (hardware.cpp)
CheckResult gpu_none(const CheckContext& context);
CheckResult gpu_not_bound(const CheckContext& context);
CheckResult gpu_mixed_vendors(const CheckContext& context);
CheckResult gpu_igpu_visible(const CheckContext& context);
CheckResult pcie_link_degraded(const CheckContext& context);
CheckResult pcie_atomics(const CheckContext& context);

// Kernel driver (driver.cpp)
CheckResult driver_amdgpu_missing(const CheckContext& context);
CheckResult driver_kfd_missing(const CheckContext& context);
CheckResult driver_kfd_unusable(const CheckContext& context);
CheckResult driver_version(const CheckContext& context);
CheckResult rocm_agents(const CheckContext& context);

// Permissions (permissions.cpp)
CheckResult perm_kfd(const CheckContext& context);
CheckResult perm_render(const CheckContext& context);
CheckResult perm_relogin(const CheckContext& context);
CheckResult perm_container_groups(const CheckContext& context);

// System tuning (system.cpp)
CheckResult numa_balancing(const CheckContext& context);
CheckResult iommu_mode(const CheckContext& context);
CheckResult shm_small(const CheckContext& context);
CheckResult os_wsl(const CheckContext& context);

// Shared helpers
/// "Radeon RX 7900 XTX (0000:03:00.0, gfx1100)"
std::string describe(const AmdGpu& gpu);
/// True when os-release says Debian/Ubuntu family.
bool debian_like(const Facts& facts);
/// The command that regenerates the boot loader configuration on this distribution.
std::string update_grub_command(const Facts& facts);
/// The command that rebuilds the initramfs on this distribution.
std::string update_initramfs_command(const Facts& facts);

}  // namespace rocdoc::checks
