// The check table: every check of CHECKS.md that rocdoc implements, in report order.
// Whole on purpose: one table.
#include "src/checks/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include "src/util/shell.h"

namespace rocdoc {

namespace {

using namespace std::string_view_literals;

const std::vector<CheckInfo>& table() {
  static const std::vector<CheckInfo> k_checks = {
      {"gpu.none",
       "Hardware and PCI",
       "AMD GPU present",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology"},
       checks::gpu_none},
      {"gpu.not-bound",
       "Hardware and PCI",
       "AMD GPUs bound to amdgpu",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "driver", "system"},
       checks::gpu_not_bound},
      {"gpu.mixed-vendors",
       "Hardware and PCI",
       "One GPU vendor",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology"},
       checks::gpu_mixed_vendors},
      {"gpu.igpu-visible",
       "Hardware and PCI",
       "No iGPU beside a dGPU",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "env"},
       checks::gpu_igpu_visible},
      {"pcie.link-degraded",
       "Hardware and PCI",
       "PCIe link width",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci"},
       checks::pcie_link_degraded},
      {"pcie.atomics",
       "Hardware and PCI",
       "PCIe atomics",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology"},
       checks::pcie_atomics},
      {"driver.amdgpu-missing",
       "Kernel driver",
       "amdgpu loaded",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "driver", "system"},
       checks::driver_amdgpu_missing},
      {"driver.kfd-missing",
       "Kernel driver",
       "/dev/kfd present",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "driver", "access", "system"},
       checks::driver_kfd_missing},
      {"driver.kfd-unusable",
       "Kernel driver",
       "/dev/kfd usable",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"access", "system"},
       checks::driver_kfd_unusable},
      {"driver.firmware",
       "Kernel driver",
       "GPU firmware",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "system"},
       checks::driver_firmware},
      {"driver.gpu-faults",
       "Kernel driver",
       "GPU faults this boot",
       Severity::error,
       Scope::anywhere,
       Judges::machine,
       {"kernel_log", "pci", "kfd_topology", "driver"},
       checks::driver_gpu_faults},
      {"driver.dkms-build",
       "Kernel driver",
       "DKMS driver built",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"driver", "system"},
       checks::driver_dkms_build},
      {"driver.version",
       "Kernel driver",
       "Driver matches ROCm",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"driver", "rocm"},
       checks::driver_version},
      {"rocm.agents",
       "Kernel driver",
       "KFD GPU agents",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "access", "system"},
       checks::rocm_agents},
      {"perm.kfd",
       "Permissions",
       "/dev/kfd read-write",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"access", "system"},
       checks::perm_kfd},
      {"perm.render",
       "Permissions",
       "Render node read-write",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"access", "kfd_topology", "system"},
       checks::perm_render},
      {"perm.relogin",
       "Permissions",
       "Session has its groups",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"access", "kfd_topology", "system"},
       checks::perm_relogin},
      {"perm.container-groups",
       "Permissions",
       "Container groups",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"access", "kfd_topology", "system"},
       checks::perm_container_groups},
      {"rocm.not-installed",
       "ROCm installation",
       "ROCm installed",
       Severity::info,
       Scope::bare_metal,
       Judges::software,
       {"rocm", "python", "pci", "kfd_topology"},
       checks::rocm_not_installed},
      {"rocm.multiple",
       "ROCm installation",
       "One ROCm in use",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"rocm", "env"},
       checks::rocm_multiple},
      {"rocm.os-unsupported",
       "ROCm installation",
       "OS supported by ROCm",
       Severity::warning,
       Scope::bare_metal,
       Judges::software,
       {"rocm", "system"},
       checks::rocm_os_unsupported},
      {"arch.unsupported",
       "GPU architecture",
       "GPU target supported",
       Severity::error,
       Scope::bare_metal,
       Judges::software,
       {"pci", "kfd_topology", "python", "rocm", "env"},
       checks::arch_unsupported},
      {"arch.override-wrong",
       "GPU architecture",
       "Override fits the GPU",
       Severity::error,
       Scope::bare_metal,
       Judges::software,
       {"pci", "kfd_topology", "python", "rocm", "env"},
       checks::arch_override_wrong},
      {"arch.override-unneeded",
       "GPU architecture",
       "Override needed",
       Severity::warning,
       Scope::bare_metal,
       Judges::software,
       {"pci", "kfd_topology", "python", "rocm", "env"},
       checks::arch_override_unneeded},
      {"arch.override-mixed",
       "GPU architecture",
       "One override for one kind of GPU",
       Severity::warning,
       Scope::bare_metal,
       Judges::software,
       {"pci", "kfd_topology", "python", "rocm", "env"},
       checks::arch_override_mixed},
      {"wsl.version1",
       "WSL2",
       "WSL 2, not WSL 1",
       Severity::error,
       Scope::anywhere,
       Judges::machine,
       {"system", "env"},
       checks::wsl_version1},
      {"wsl.dxg-missing",
       "WSL2",
       "/dev/dxg present",
       Severity::error,
       Scope::anywhere,
       Judges::machine,
       {"system"},
       checks::wsl_dxg_missing},
      {"wsl.runtime-missing",
       "WSL2",
       "WSL runtime installed",
       Severity::error,
       Scope::anywhere,
       Judges::software,
       {"system", "rocm"},
       checks::wsl_runtime_missing},
      {"wsl.dxg-detection",
       "WSL2",
       "DXG detection enabled",
       Severity::error,
       Scope::anywhere,
       Judges::software,
       {"system", "rocm", "env"},
       checks::wsl_dxg_detection},
      {"wsl.torch-bundled-runtime",
       "WSL2",
       "torch uses the WSL runtime",
       Severity::error,
       Scope::anywhere,
       Judges::software,
       {"system", "python", "rocm"},
       checks::wsl_torch_bundled_runtime},
      {"torch.not-found",
       "Python and PyTorch",
       "torch installed",
       Severity::info,
       Scope::bare_metal,
       Judges::software,
       {"python", "pci", "kfd_topology"},
       checks::torch_not_found},
      {"torch.cuda-wheel",
       "Python and PyTorch",
       "torch is not a CUDA build",
       Severity::error,
       Scope::bare_metal,
       Judges::software,
       {"python", "pci", "kfd_topology"},
       checks::torch_cuda_wheel},
      {"torch.cpu-wheel",
       "Python and PyTorch",
       "torch is not a CPU build",
       Severity::error,
       Scope::bare_metal,
       Judges::software,
       {"python", "pci", "kfd_topology"},
       checks::torch_cpu_wheel},
      {"torch.rocm-mismatch",
       "Python and PyTorch",
       "torch's ROCm release",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"python", "rocm", "env"},
       checks::torch_rocm_mismatch},
      {"torch.companions",
       "Python and PyTorch",
       "torchvision/torchaudio match",
       Severity::error,
       Scope::anywhere,
       Judges::software,
       {"python"},
       checks::torch_companions},
      {"python.cuda-packages",
       "Python and PyTorch",
       "No CUDA-only packages",
       Severity::error,
       Scope::anywhere,
       Judges::software,
       {"python", "pci"},
       checks::python_cuda_packages},
      {"torch.arch-missing",
       "Python and PyTorch",
       "Wheel has code for the GPU",
       Severity::error,
       Scope::bare_metal,
       Judges::software,
       {"python", "pci", "kfd_topology", "env"},
       checks::torch_arch_missing},
      {"env.visible-devices",
       "Environment variables",
       "Visible devices exist",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"env", "pci", "kfd_topology"},
       checks::env_visible_devices},
      {"env.rocm-arch",
       "Environment variables",
       "Build targets include the GPUs",
       Severity::warning,
       Scope::bare_metal,
       Judges::software,
       {"env", "pci", "kfd_topology"},
       checks::env_rocm_arch},
      {"env.unknown",
       "Environment variables",
       "No misspelt variables",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"env"},
       checks::env_unknown},
      {"env.debug-left-on",
       "Environment variables",
       "No debugging settings left on",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"env"},
       checks::env_debug_left_on},
      {"env.tuning",
       "Environment variables",
       "Tuning settings can work",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"env", "tuning", "access", "python", "pci", "kfd_topology"},
       checks::env_tuning},
      {"env.rccl",
       "Environment variables",
       "RCCL's settings name what exists",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"env", "system"},
       checks::env_rccl},
      {"env.rocm-path",
       "Environment variables",
       "ROCM_PATH is a ROCm",
       Severity::warning,
       Scope::anywhere,
       Judges::software,
       {"rocm", "env"},
       checks::env_rocm_path},
      {"numa.balancing",
       "System tuning",
       "NUMA balancing off",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"system", "pci", "kfd_topology"},
       checks::numa_balancing},
      {"iommu.mode",
       "System tuning",
       "IOMMU passthrough",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"system", "pci", "kfd_topology"},
       checks::iommu_mode},
      {"shm.small",
       "System tuning",
       "/dev/shm size",
       Severity::warning,
       Scope::anywhere,
       Judges::machine,
       {"system", "pci", "kfd_topology"},
       checks::shm_small},
      {"os.wsl",
       "System tuning",
       "WSL",
       Severity::info,
       Scope::anywhere,
       Judges::machine,
       {"system"},
       checks::os_wsl},
      {"apu.memory",
       "Workload",
       "APU memory",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "system", "driver"},
       checks::apu_memory},
      {"kernel.param-ignored",
       "Workload",
       "Memory settings of amdgpu and TTM",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"driver", "system"},
       checks::kernel_param_ignored},
      // Deep checks: they read the runtime probe, which is empty without --deep (the check
      // then says so itself), so it is not among the probes they need.
      {"topology.p2p",
       "Multi-GPU",
       "GPUs reach each other directly",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "system", "env", "driver"},
       checks::topology_p2p},
      {"gpu.small-bar",
       "Multi-GPU",
       "BAR covers the VRAM",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology"},
       checks::gpu_small_bar},
      {"runtime.hip-init",
       "Runtimes (--deep)",
       "HIP runtime initialises",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "env"},
       checks::runtime_hip_init},
      {"runtime.smi",
       "Runtimes (--deep)",
       "rocm_smi_lib agrees with KFD",
       Severity::warning,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology"},
       checks::runtime_smi},
      {"runtime.compute",
       "Runtimes (--deep)",
       "GPUs run work and copy at link speed",
       Severity::error,
       Scope::bare_metal,
       Judges::machine,
       {"pci", "kfd_topology", "system"},
       checks::runtime_compute},
      {"torch.smoke",
       "Runtimes (--deep)",
       "torch computes on the GPUs (--smoke)",
       Severity::error,
       Scope::anywhere,
       Judges::machine,
       {"pci", "kfd_topology", "env", "python"},
       checks::torch_smoke},
      // Code checks: the source tree of --scan DIR (facts.code_scan); not run without it.
      {"code.warp-size",
       "Code (--scan)",
       "Code assumes no lane count",
       Severity::error,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_warp_size},
      {"code.inline-ptx",
       "Code (--scan)",
       "No PTX or CUDA-only headers in device code",
       Severity::error,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_inline_ptx},
      {"code.cuda-only-api",
       "Code (--scan)",
       "No NVIDIA-only APIs or capability gates",
       Severity::warning,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_cuda_only_api},
      {"code.nccl-env",
       "Code (--scan)",
       "GPU visibility and NCCL settings work on ROCm",
       Severity::warning,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_nccl_env},
      {"code.cuda-build",
       "Code (--scan)",
       "Build files build for ROCm too",
       Severity::warning,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_cuda_build},
      {"code.cuda-container",
       "Code (--scan)",
       "Containers and manifests run on AMD GPUs",
       Severity::warning,
       Scope::anywhere,
       Judges::code,
       {},
       checks::code_cuda_container},
  };
  return k_checks;
}

}  // namespace

std::span<const CheckInfo> check_table() { return table(); }

const CheckInfo* find_check(std::string_view id) {
  const auto& checks = table();
  const auto it =
      std::find_if(checks.begin(), checks.end(), [&](const CheckInfo& c) { return c.id == id; });
  return it == checks.end() ? nullptr : &*it;
}

CheckResult pass(std::string message, std::vector<std::string> evidence) {
  CheckResult result;
  result.status = Status::pass;
  result.message = std::move(message);
  result.evidence = std::move(evidence);
  return result;
}

CheckResult skip(std::string reason) {
  CheckResult result;
  result.status = Status::skip;
  result.message = std::move(reason);
  return result;
}

CheckResult finding(Severity severity, std::string message, std::vector<std::string> evidence,
                    std::vector<Fix> fix) {
  CheckResult result;
  result.status = severity == Severity::error ? Status::fail : Status::warn;
  result.severity = severity;
  result.message = std::move(message);
  result.evidence = std::move(evidence);
  result.fix = std::move(fix);
  return result;
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "error";
}

std::string_view to_string(Status status) {
  switch (status) {
    case Status::pass:
      return "pass";
    case Status::warn:
      return "warn";
    case Status::fail:
      return "fail";
    case Status::skip:
      return "skip";
  }
  return "skip";
}

std::string_view to_string(FixKind kind) {
  switch (kind) {
    case FixKind::shell:
      return "shell";
    case FixKind::container_flag:
      return "container_flag";
    case FixKind::kernel_argument:
      return "kernel_argument";
    case FixKind::file_edit:
      return "file_edit";
    case FixKind::manual:
      return "manual";
  }
  return "manual";
}

std::string_view to_string(FixOrder order) {
  return order == FixOrder::alternatives ? "alternatives" : "steps";
}

namespace checks {

std::string describe(const AmdGpu& gpu) {
  std::string detail = gpu.bdf;
  if (const std::string target = gpu.gfx_target(); !target.empty()) {
    detail += (detail.empty() ? "" : ", ") + target;
  }
  return detail.empty() ? gpu.name : fmt::format("{} ({})", gpu.name, detail);
}

namespace {

/// " ID ID_LIKE " of os-release, each word between spaces ("  " when neither is there).
std::string os_family(const SystemFacts& system) {
  const auto field = [&](const char* key) {
    const auto it = system.os_release.find(key);
    return it == system.os_release.end() ? std::string() : it->second;
  };
  return " " + field("ID") + " " + field("ID_LIKE") + " ";
}

}  // namespace

bool debian_like(const Facts& facts) {
  if (!facts.system) {
    return true;
  }
  const std::string family = os_family(*facts.system);
  return family.find("debian") != std::string::npos || family.find("ubuntu") != std::string::npos ||
         family == "   ";
}

std::string os_id(const Facts& facts) {
  if (!facts.system) {
    return {};
  }
  const auto id = facts.system->os_release.find("ID");
  return id == facts.system->os_release.end() ? std::string() : id->second;
}

bool uses_kernel_install(const Facts& facts) {
  return facts.system && facts.system->kernel_cmdline_file && !facts.system->grub_defaults &&
         os_id(facts) != "pop";
}

std::string kernel_install_command() {
  return "sudo kernel-install add \"$(uname -r)\" \"/usr/lib/modules/$(uname -r)/vmlinuz\"";
}

std::string grub_update_command(const Facts& facts) {
  if (debian_like(facts)) {
    return "sudo update-grub";
  }
  if (!facts.system || !facts.system->grub_defaults) {
    return {};
  }
  const std::string family = os_family(*facts.system);
  // Arch (and Manjaro, EndeavourOS: ID_LIKE=arch) and Gentoo regenerate GRUB's configuration
  // with grub-mkconfig (wiki.archlinux.org Kernel parameters, GRUB); openSUSE and SLES with
  // grub2-mkconfig, as their /etc/default/grub says ("run 'grub2-mkconfig -o
  // /boot/grub2/grub.cfg' afterwards"). Fedora and RHEL keep grubby.
  if (family.find(" arch ") != std::string::npos || family.find(" gentoo ") != std::string::npos) {
    return "sudo grub-mkconfig -o /boot/grub/grub.cfg";
  }
  if (family.find("suse") != std::string::npos) {
    return "sudo grub2-mkconfig -o /boot/grub2/grub.cfg";
  }
  return {};
}

std::string add_kernel_argument_command(const Facts& facts, const std::string& argument) {
  if (os_id(facts) == "pop") {
    // Pop!_OS boots with systemd-boot through kernelstub, not GRUB.
    return fmt::format("sudo kernelstub -a \"{}\"", argument);
  }
  if (uses_kernel_install(facts)) {
    // systemd-boot without GRUB: kernel-install writes the boot entry from /etc/kernel/cmdline.
    return fmt::format("sudo sed -i 's/$/ {}/' /etc/kernel/cmdline && {}", argument,
                       kernel_install_command());
  }
  if (const std::string update = grub_update_command(facts); !update.empty()) {
    return fmt::format(
        "sudo sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&{} /' /etc/default/grub && {}", argument,
        update);
  }
  return fmt::format("sudo grubby --update-kernel=ALL --args=\"{}\"", argument);
}

std::vector<Fix> driver_load_fixes(const Facts& facts) {
  std::vector<Fix> fix;
  if (facts.driver) {
    const DriverFacts& driver = *facts.driver;
    for (const auto& line : driver.blacklist) {
      fix.push_back(
          {fmt::format("Comment out \"{}\" ({}:{})", line.text, line.file, line.line),
           fmt::format("sudo sed -i '{}s/^/# /' {}", line.line, util::shell_quote(line.file)), true,
           FixKind::file_edit});
    }
    if (!driver.blacklist.empty()) {
      fix.push_back({"Rebuild the initramfs so the blacklist is gone at boot too",
                     debian_like(facts) ? "sudo update-initramfs -u" : "sudo dracut -f", true,
                     FixKind::shell, true});
    }
    if (driver.cmdline_nomodeset || driver.cmdline_blacklists_amdgpu) {
      // Drops nomodeset and the amdgpu entry of a modprobe.blacklist= list; reboot after.
      const std::string update = grub_update_command(facts);
      fix.push_back({"Take nomodeset and amdgpu out of the kernel command line, then reboot",
                     !update.empty() ? "sudo sed -i -E -e 's/ ?nomodeset//' -e "
                                       "'s/(modprobe\\.blacklist=[^\" ]*)amdgpu,?/\\1/' "
                                       "/etc/default/grub && " +
                                           update
                                     : "sudo grubby --update-kernel=ALL "
                                       "--remove-args=\"nomodeset modprobe.blacklist=amdgpu\"",
                     true, FixKind::kernel_argument, true});
    }
  }
  fix.push_back({"Load the driver", "sudo modprobe amdgpu", true});
  return fix;
}

}  // namespace checks

}  // namespace rocdoc
