// System tuning checks.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/util/byte_size.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {}  // namespace

CheckResult numa_balancing(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const auto& value = context.facts.system->numa_balancing;
  if (!value) {
    return skip("/proc/sys/kernel/numa_balancing is not readable");
  }
  if (*value == 0) {
    return pass("NUMA balancing is off", {"/proc/sys/kernel/numa_balancing = 0"});
  }
  const bool mi300 = std::any_of(
      context.amd_gpus.begin(), context.amd_gpus.end(),
      [](const AmdGpu& g) { return g.target != nullptr && g.target->is_mi300_class(); });
  return finding(
      mi300 ? Severity::error : Severity::warning,
      fmt::format("Automatic NUMA balancing is on: its page migrations stall GPU memory "
                  "access{}",
                  mi300 ? " and AMD requires it off on Instinct MI300-class nodes" : ""),
      {fmt::format("/proc/sys/kernel/numa_balancing = {}", *value)},
      {{"Turn it off now", "sudo sysctl -w kernel.numa_balancing=0", true},
       {"Keep it off after a reboot",
        "echo 'kernel.numa_balancing=0' | sudo tee /etc/sysctl.d/99-rocm-numa-balancing.conf", true,
        FixKind::file_edit}});
}

bool iommu_passes_dma_through(const SystemFacts& system) {
  return std::any_of(system.iommu_params.begin(), system.iommu_params.end(),
                     [](const std::string& p) {
                       return p == "iommu=pt" || p == "iommu=off" || p == "amd_iommu=off" ||
                              p == "intel_iommu=off";
                     });
}

CheckResult iommu_mode(const CheckContext& context) {
  const auto discrete = std::count_if(context.amd_gpus.begin(), context.amd_gpus.end(),
                                      [](const AmdGpu& g) { return !g.integrated(); });
  if (discrete < 2) {
    return pass("fewer than two discrete AMD GPUs: the IOMMU mode does not matter here");
  }
  const auto& params = context.facts.system->iommu_params;
  const bool ok = iommu_passes_dma_through(*context.facts.system);
  const std::vector<std::string> evidence = {
      fmt::format("{} discrete AMD GPUs", discrete),
      params.empty() ? "no iommu= parameter on the kernel command line"
                     : "kernel command line: " + util::join(params, " ")};
  if (ok) {
    return pass("IOMMU in passthrough (or off) on a multi-GPU host", evidence);
  }
  const bool instinct = std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(),
                                    [](const AmdGpu& g) { return g.instinct(); });
  return finding(instinct ? Severity::warning : Severity::info,
                 "Several GPUs and no iommu=pt: peer-to-peer transfers between GPUs go through "
                 "IOMMU translation (slow, and hangs have been reported)",
                 evidence,
                 {{"Add iommu=pt to the kernel command line, then reboot",
                   add_kernel_argument_command(context.facts, "iommu=pt"), true,
                   FixKind::kernel_argument, true}});
}

namespace {

/// "8g" for docker's --shm-size, "8G" for mount: whole GiB of the rules' suggestion.
std::uint64_t suggested_gib(const ShmFloor& shm) {
  return std::max<std::uint64_t>(shm.suggested_bytes >> 30, 1);
}

CheckResult small_shm_in_container(const SystemFacts& system, const ShmFloor& floor) {
  const double mib = static_cast<double>(*system.shm_bytes) / (1 << 20);
  if (*system.shm_bytes >= floor.container_bytes) {
    return pass(fmt::format("/dev/shm is {:.0f} MiB", mib));
  }
  const std::string headline = fmt::format(
      "/dev/shm in this container is only {:.0f} MiB: PyTorch DataLoader workers and vLLM fail "
      "or stall below {}",
      mib, util::byte_size_text(floor.container_bytes));
  const std::vector<std::string> evidence{
      fmt::format("container: {}, /dev/shm {} bytes", *system.container, *system.shm_bytes)};
  const std::uint64_t gib = suggested_gib(floor);
  if (*system.container == "kubernetes") {
    // A pod has no --shm-size: the kubelet mounts what the spec's volumes say.
    return finding(
        Severity::warning, headline, evidence,
        {{"Mount a memory-backed emptyDir at /dev/shm: in the pod spec, this volume "
          "under spec.volumes and a volumeMount of it at /dev/shm in the container, "
          "then recreate the pod",
          fmt::format("- {{name: dshm, emptyDir: {{medium: Memory, sizeLimit: {}Gi}}}}", gib),
          false, FixKind::file_edit}});
  }
  CheckResult result =
      finding(Severity::warning, headline, evidence,
              {{"Share the host's IPC namespace (add to docker run)", "--ipc=host", false,
                FixKind::container_flag},
               {"Give the container a larger /dev/shm (add to docker run)",
                fmt::format("--shm-size={}g", gib), false, FixKind::container_flag}});
  result.fix_order = FixOrder::alternatives;
  return result;
}

}  // namespace

CheckResult shm_small(const CheckContext& context) {
  const SystemFacts& system = *context.facts.system;
  const ShmFloor& floor = context.knowledge.shm;
  const bool wsl = system.wsl == WslKind::wsl2;
  const std::size_t gpus = context.amd_gpus.size();
  if (!system.container && !wsl && gpus < 2) {
    return skip("not in a container, and fewer than two GPUs");
  }
  if (!system.shm_bytes) {
    return skip("size of /dev/shm unknown");
  }
  if (system.container) {
    return small_shm_in_container(system, floor);
  }
  const double mib = static_cast<double>(*system.shm_bytes) / (1 << 20);
  if (*system.shm_bytes >= floor.multi_gpu_bytes) {
    return pass(fmt::format("/dev/shm is {:.0f} MiB", mib));
  }
  const std::uint64_t gib = suggested_gib(floor);
  const std::string why =
      wsl ? "PyTorch DataLoader workers fail or stall, and RCCL cannot create its shared memory"
          : fmt::format(
                "RCCL cannot create its shared-memory segments between the {} GPUs "
                "(NCCL's floor is {}), and DataLoader workers stall",
                gpus, util::byte_size_text(floor.multi_gpu_bytes));
  return finding(
      Severity::warning,
      fmt::format("/dev/shm is only {:.0f} MiB{}: {}", mib, wsl ? " under WSL2" : "", why),
      {fmt::format("/dev/shm {} bytes", *system.shm_bytes)},
      {{"Enlarge it now", fmt::format("sudo mount -o remount,size={}G /dev/shm", gib), true},
       {"Keep the size across reboots: this line in /etc/fstab (replacing any /dev/shm line)",
        fmt::format("tmpfs /dev/shm tmpfs defaults,size={}G 0 0", gib), true, FixKind::file_edit}});
}

CheckResult os_wsl(const CheckContext& context) {
  const SystemFacts& system = *context.facts.system;
  switch (system.wsl) {
    case WslKind::none:
      return pass("not running under WSL");
    case WslKind::wsl1:
      return finding(Severity::info,
                     "WSL 1: there is no GPU access at all; the bare-metal checks are skipped",
                     {"kernel " + system.uname.release});
    case WslKind::wsl2:
      break;
  }
  return finding(Severity::info,
                 "WSL2: the GPU is reached through /dev/dxg and ROCm's WSL runtime, not amdgpu "
                 "and /dev/kfd; the bare-metal checks are skipped",
                 {"kernel " + system.uname.release,
                  system.dxg_present ? "/dev/dxg present" : "/dev/dxg missing"});
}

}  // namespace rocdoc::checks
