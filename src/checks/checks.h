// The check functions, one per id, grouped by area (one .cpp per area).
#pragma once

#include <string>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

/// "kernel log: [    7.026427] kfd kfd: amdgpu: skipped device …" for each line of these kinds
/// (driver.cpp); empty when the log was not read or says nothing of them.
std::vector<std::string> kernel_evidence(const CheckContext& context,
                                         std::initializer_list<KernelEventKind> kinds);

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
CheckResult driver_firmware(const CheckContext& context);
CheckResult driver_dkms_build(const CheckContext& context);

// GPU faults this boot (gpu_faults.cpp)
CheckResult driver_gpu_faults(const CheckContext& context);
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
CheckResult apu_memory(const CheckContext& context);
CheckResult kernel_param_ignored(const CheckContext& context);
CheckResult os_wsl(const CheckContext& context);

// ROCm installation (rocm_install.cpp)
CheckResult rocm_not_installed(const CheckContext& context);
CheckResult rocm_multiple(const CheckContext& context);
CheckResult rocm_os_unsupported(const CheckContext& context);

// GPU architecture (arch.cpp)
CheckResult arch_unsupported(const CheckContext& context);
CheckResult arch_override_wrong(const CheckContext& context);
CheckResult arch_override_unneeded(const CheckContext& context);
CheckResult arch_override_mixed(const CheckContext& context);

// WSL2 (wsl.cpp)
CheckResult wsl_version1(const CheckContext& context);
CheckResult wsl_dxg_missing(const CheckContext& context);
CheckResult wsl_runtime_missing(const CheckContext& context);
CheckResult wsl_dxg_detection(const CheckContext& context);
CheckResult wsl_torch_bundled_runtime(const CheckContext& context);

// Python and PyTorch (python_torch.cpp)
CheckResult torch_not_found(const CheckContext& context);
CheckResult torch_cuda_wheel(const CheckContext& context);
CheckResult torch_cpu_wheel(const CheckContext& context);
CheckResult torch_rocm_mismatch(const CheckContext& context);
CheckResult torch_companions(const CheckContext& context);
CheckResult python_cuda_packages(const CheckContext& context);
CheckResult torch_arch_missing(const CheckContext& context);

// Environment variables (environment.cpp)
CheckResult env_visible_devices(const CheckContext& context);
CheckResult env_rocm_arch(const CheckContext& context);
CheckResult env_unknown(const CheckContext& context);
CheckResult env_debug_left_on(const CheckContext& context);
CheckResult env_tuning(const CheckContext& context);
/// Who judges a variable's `accepts`: env.rccl RCCL's (NCCL_*), env.tuning the others.
enum class ValueJudge { tuning, rccl };
/// A set variable whose value is not one its rules' `accepts` lists.
struct UnacceptedValue {
  std::string name;
  std::string value;
  const AcceptedValues* accepts = nullptr;
};
/// The set variables `judge` owns whose values their `accepts` does not list.
std::vector<UnacceptedValue> unaccepted_values(const CheckContext& context, ValueJudge judge);
/// Whether `value` of a variable with this rule is the debugging setting left on.
bool is_left_on(const LeftOn& rule, std::string_view value);
CheckResult env_rocm_path(const CheckContext& context);

// Many GPUs (topology.cpp)
CheckResult topology_p2p(const CheckContext& context);
CheckResult gpu_small_bar(const CheckContext& context);
CheckResult env_rccl(const CheckContext& context);

// Deep checks (runtime.cpp): --deep, probe runtime
CheckResult runtime_hip_init(const CheckContext& context);
CheckResult runtime_smi(const CheckContext& context);
// runtime_compute.cpp
CheckResult runtime_compute(const CheckContext& context);
// torch_smoke.cpp: --smoke, probe smoke
CheckResult torch_smoke(const CheckContext& context);

// code.cpp: check --scan DIR (the source scan's findings, rules/code_patterns.yaml)
CheckResult code_warp_size(const CheckContext& context);
CheckResult code_inline_ptx(const CheckContext& context);
CheckResult code_cuda_only_api(const CheckContext& context);
CheckResult code_nccl_env(const CheckContext& context);
CheckResult code_cuda_build(const CheckContext& context);
CheckResult code_cuda_container(const CheckContext& context);

// Shared helpers
/// "Radeon RX 7900 XTX (0000:03:00.0, gfx1100)"
std::string describe(const AmdGpu& gpu);
/// True when os-release says Debian/Ubuntu family.
bool debian_like(const Facts& facts);
/// The kernel command line puts the IOMMU in passthrough or turns it off (iommu=pt, iommu=off,
/// amd_iommu=off, intel_iommu=off): DMA is not translated.
bool iommu_passes_dma_through(const SystemFacts& system);
/// os-release's ID ("ubuntu", "pop", "nixos"); empty when unknown.
std::string os_id(const Facts& facts);
/// systemd-boot without GRUB: /etc/kernel/cmdline holds the command line and kernel-install
/// writes the boot entries from it (not on Pop!_OS, whose kernelstub does that).
bool uses_kernel_install(const Facts& facts);
/// Rewrites the running kernel's boot entry from /etc/kernel/cmdline.
std::string kernel_install_command();
/// The command that adds a kernel command-line argument on this distribution: kernelstub
/// (Pop!_OS), /etc/kernel/cmdline and kernel-install (systemd-boot without GRUB), GRUB's
/// /etc/default/grub (Debian family), grubby (the others).
std::string add_kernel_argument_command(const Facts& facts, const std::string& argument);
/// What regenerates GRUB's configuration after /etc/default/grub changed: update-grub (Debian
/// family), grub-mkconfig (Arch family, Gentoo), grub2-mkconfig (SUSE); empty where grubby
/// edits the entries instead (Fedora, RHEL) or /etc/default/grub is not there.
std::string grub_update_command(const Facts& facts);
/// The fix that adds a kernel command-line argument and makes it last: the command above, or on
/// NixOS boot.kernelParams and a rebuild. Its description starts in lower case ("add …").
Fix kernel_argument_fix(const Facts& facts, const std::string& argument);
/// The fix that takes `name=value` (`amdgpu.gttsize=126976`) off the kernel command line for
/// good: GRUB's /etc/default/grub (Debian family), kernelstub (Pop!_OS), grubby (the others), or
/// on NixOS boot.kernelParams and a rebuild. Its description starts in upper case.
Fix remove_kernel_argument_fix(const Facts& facts, const std::string& name,
                               const std::string& value);
/// Fixes that let amdgpu load: blacklist lines, kernel command line, modprobe.
std::vector<Fix> driver_load_fixes(const Facts& facts);

}  // namespace rocdoc::checks
