// Hardware and PCI checks.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/pcie_slot.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

std::string pci_name(const PciDevice& device) {
  std::string name =
      device.vendor_name.empty() ? fmt::format("{:04x}", device.vendor) : device.vendor_name;
  name += " " + (device.device_name.empty() ? fmt::format("Device {:04x}", device.device)
                                            : device.device_name);
  return fmt::format("{} [{:04x}:{:04x}] at {}", name, device.vendor, device.device, device.bdf);
}

std::vector<const PciDevice*> other_gpus(const Facts& facts, std::optional<GpuVendor> only = {}) {
  std::vector<const PciDevice*> found;
  for (const auto& device : facts.pci->devices) {
    if (device.gpu && !device.is_amd_gpu() && (!only || device.gpu == only)) {
      found.push_back(&device);
    }
  }
  return found;
}

std::vector<Fix> fixes_for_unbound(const CheckContext& context, const PciDevice& device) {
  const Facts& facts = context.facts;
  std::vector<Fix> fix;
  const std::string driver = device.driver.value_or("");
  if (driver == "vfio-pci") {
    fix.push_back(
        {"The GPU is reserved for VM passthrough. Once no VM uses it, hand it back "
         "to amdgpu (and remove its id from vfio-pci.ids= / \"options vfio-pci ids=\" "
         "to keep it that way after a reboot):",
         fmt::format("echo {0} | sudo tee /sys/bus/pci/devices/{0}/driver/unbind && "
                     "echo {0} | sudo tee /sys/bus/pci/drivers/amdgpu/bind",
                     util::shell_word(device.bdf)),
         true});
    return fix;
  }
  if (driver == "radeon") {
    fix.push_back(
        {"The legacy radeon driver holds this GCN 1/2 GPU (ROCm does not support these chips "
         "in any case). To hand it to amdgpu, add these kernel arguments and reboot",
         add_kernel_argument_command(
             facts,
             "radeon.si_support=0 radeon.cik_support=0 amdgpu.si_support=1 amdgpu.cik_support=1"),
         true, FixKind::kernel_argument, true});
    return fix;
  }
  return driver_load_fixes(facts);
}

}  // namespace

CheckResult gpu_none(const CheckContext& context) {
  if (!context.amd_gpus.empty()) {
    std::vector<std::string> names;
    for (const auto& gpu : context.amd_gpus) {
      names.push_back(describe(gpu));
    }
    return pass(fmt::format("{} AMD GPU{} found", names.size(), names.size() == 1 ? "" : "s"),
                names);
  }
  std::vector<std::string> evidence;
  for (const auto* device : other_gpus(context.facts)) {
    evidence.push_back(pci_name(*device));
  }
  if (evidence.empty()) {
    return finding(Severity::error,
                   "No AMD GPU and no GPU of any other vendor on the PCI bus: ROCm has nothing "
                   "to use on this machine (a VM without GPU passthrough?)",
                   {fmt::format("{} PCI functions, none of display or accelerator class",
                                context.facts.pci->devices.size())});
  }
  return finding(Severity::error,
                 fmt::format("No AMD GPU on the PCI bus: ROCm has nothing to use here. "
                             "GPUs present: {}",
                             util::join(evidence, "; ")),
                 evidence);
}

CheckResult gpu_not_bound(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  std::vector<std::string> bound;
  std::string first_state;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr) {
      continue;
    }
    if (gpu.pci->driver == "amdgpu") {
      bound.push_back(describe(gpu) + ": amdgpu");
      continue;
    }
    const std::string state =
        gpu.pci->driver ? "bound to " + *gpu.pci->driver : std::string("no driver bound");
    first_state = first_state.empty() ? state : first_state;
    problems.push_back(fmt::format("{}: {}", describe(gpu), state));
    if (fix.empty()) {
      fix = fixes_for_unbound(context, *gpu.pci);
    }
  }
  if (problems.empty()) {
    return pass("every AMD GPU is bound to amdgpu", bound);
  }
  std::vector<std::string> evidence = problems;
  if (context.facts.driver) {
    for (const auto& line : context.facts.driver->blacklist) {
      evidence.push_back(fmt::format("{}:{}: {}", line.file, line.line, line.text));
    }
    if (context.facts.driver->cmdline_nomodeset) {
      evidence.push_back("kernel command line has nomodeset");
    }
    if (context.facts.driver->cmdline_blacklists_amdgpu) {
      evidence.push_back("kernel command line has modprobe.blacklist=amdgpu");
    }
  }
  return finding(
      Severity::error,
      problems.size() == 1
          ? fmt::format("An AMD GPU is not bound to amdgpu ({}): ROCm cannot use it", first_state)
          : fmt::format("{} AMD GPUs are not bound to amdgpu: ROCm cannot use them",
                        problems.size()),
      evidence, fix);
}

CheckResult gpu_mixed_vendors(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const auto nvidia = other_gpus(context.facts, GpuVendor::nvidia);
  if (nvidia.empty()) {
    return pass("no NVIDIA GPU beside the AMD ones");
  }
  std::vector<std::string> evidence;
  for (const auto& gpu : context.amd_gpus) {
    evidence.push_back("AMD: " + describe(gpu));
  }
  for (const auto* device : nvidia) {
    evidence.push_back("NVIDIA: " + pci_name(*device));
  }
  std::vector<Fix> fix;
  const std::string amd_indices = hip_index_list(context, WhichGpus::all);
  if (!amd_indices.empty()) {
    fix.push_back({"Pin ROCm programs to the AMD GPUs (HIP numbering)",
                   "export HIP_VISIBLE_DEVICES=" + amd_indices, false});
  }
  fix.push_back({"In containers pass only the AMD device nodes",
                 "--device=/dev/kfd --device=/dev/dri", false, FixKind::container_flag});
  return finding(Severity::warning,
                 "AMD and NVIDIA GPUs share this host: the display may sit on either, and "
                 "containers and frameworks need each vendor's devices pinned explicitly",
                 evidence, fix);
}

CheckResult gpu_igpu_visible(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<const AmdGpu*> integrated;
  std::vector<const AmdGpu*> discrete;
  for (const auto& gpu : context.amd_gpus) {
    // ROCm sees a GPU only through amdgpu and KFD: one held by vfio-pci, or one KFD left out
    // beside GPUs it lists, is out of its reach.
    if (context.reachable(gpu)) {
      (gpu.integrated() ? integrated : discrete).push_back(&gpu);
    }
  }
  if (integrated.empty() || discrete.empty()) {
    return pass(integrated.empty()
                    ? "no integrated AMD GPU visible to ROCm"
                    : "no discrete AMD GPU visible to ROCm beside the integrated one");
  }
  for (const char* name : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
    if (const std::string* value = context.facts.env->find(name)) {
      return pass(fmt::format("devices pinned with {}={}", name, *value));
    }
  }
  std::vector<std::string> evidence;
  for (const auto* gpu : integrated) {
    const auto index = hip_index(context, *gpu);
    evidence.push_back(fmt::format("integrated: {}{}", describe(*gpu),
                                   index ? fmt::format(", HIP index {}", *index) : ""));
  }
  for (const auto* gpu : discrete) {
    const auto index = hip_index(context, *gpu);
    evidence.push_back(fmt::format("discrete: {}{}", describe(*gpu),
                                   index ? fmt::format(", HIP index {}", *index) : ""));
  }
  std::vector<Fix> fix;
  const std::string discrete_indices = hip_index_list(context, WhichGpus::discrete);
  if (!discrete_indices.empty()) {
    fix.push_back({"Let ROCm programs see only the discrete GPU",
                   "export HIP_VISIBLE_DEVICES=" + discrete_indices, false});
  }
  fix.push_back({"Disable the integrated GPU in the firmware (BIOS/UEFI) setup", "", false,
                 FixKind::manual, true});
  CheckResult result = finding(Severity::warning,
                               "An integrated AMD GPU is visible to ROCm beside a discrete one: "
                               "PyTorch may pick the iGPU, and one HSA_OVERRIDE_GFX_VERSION "
                               "cannot suit both",
                               evidence, fix);
  result.fix_order = FixOrder::alternatives;
  return result;
}

CheckResult pcie_link_degraded(const CheckContext& context) {
  const PciFacts& pci = *context.facts.pci;
  std::vector<std::string> evidence;
  std::vector<std::string> problems;
  std::string first_slot;
  int judged = 0;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr || gpu.integrated()) {
      continue;
    }
    // The slot link of a Radeon card is the upstream port of the card's own switch: the
    // topmost AMD bridge directly above the GPU function.
    const auto [slot, parent] = slot_link(pci, *gpu.pci);
    const PciLink& link = slot->link;
    if (!link.current_width || !link.max_width) {
      continue;
    }
    ++judged;
    int capable = *link.max_width;
    if (parent != nullptr && parent->link.max_width) {
      capable = std::min(capable, *parent->link.max_width);
    }
    const std::string where =
        slot == gpu.pci
            ? ""
            : fmt::format(", measured at {} (the card's switch upstream port)", slot->bdf);
    const std::string line =
        fmt::format("{}: x{} of x{}{}; speed {} of {}", describe(gpu), *link.current_width, capable,
                    where, link.current_speed.value_or("?"), link.max_speed.value_or("?"));
    evidence.push_back(line);
    if (*link.current_width < capable) {
      problems.push_back(line);
      first_slot = first_slot.empty() ? slot->bdf : first_slot;
    }
  }
  if (judged == 0) {
    return skip("no discrete AMD GPU with readable link width");
  }
  if (problems.empty()) {
    return pass("every discrete AMD GPU runs its full link width", evidence);
  }
  return finding(
      Severity::warning,
      fmt::format("{} a PCIe link narrower than card and slot support",
                  problems.size() == 1 ? "An AMD GPU runs"
                                       : fmt::format("{} AMD GPUs run", problems.size())),
      evidence,
      {{"Reseat the card, or move it to a full-width slot wired to the CPU (not a "
        "riser or chipset x4 slot); then compare again",
        "sudo lspci -vv -s " + util::shell_word(first_slot) + " | grep -E 'LnkCap|LnkSta'", true}});
}

CheckResult pcie_atomics(const CheckContext& context) {
  const KfdFacts& kfd = *context.facts.kfd;
  std::vector<std::string> evidence;
  std::vector<std::string> problems;
  int judged = 0;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.kfd == nullptr || gpu.kfd->io_links.empty()) {
      continue;
    }
    for (const auto& link : gpu.kfd->io_links) {
      const auto to = std::find_if(kfd.nodes.begin(), kfd.nodes.end(),
                                   [&](const KfdNode& n) { return n.index == link.node_to; });
      if (to == kfd.nodes.end() || to->is_gpu() || link.type != 2) {
        continue;  // only the PCIe link to the CPU
      }
      ++judged;
      const std::string line = fmt::format("{}: KFD io_link {} to CPU node {}, flags 0x{:x}{}",
                                           describe(gpu), link.index, link.node_to, link.flags,
                                           link.lacks_atomics() ? " (no PCIe atomics)" : "");
      evidence.push_back(line);
      if (link.lacks_atomics() && gpu.target != nullptr && gpu.target->kind == GpuKind::radeon) {
        problems.push_back(line);
      }
    }
  }
  const auto kernel = kernel_evidence(context, {KernelEventKind::atomics_rejected});
  if (!kernel.empty()) {
    evidence.insert(evidence.end(), kernel.begin(), kernel.end());
    return finding(Severity::error,
                   "The kernel says PCIe atomics do not reach an AMD GPU: KFD skipped it, so "
                   "ROCm will not see it",
                   evidence,
                   {{"Move the card to a slot wired to the CPU's PCIe lanes (not through the "
                     "chipset or a PCIe switch) and update the BIOS; the kernel log line names "
                     "the device",
                     "", false}});
  }
  if (judged == 0) {
    return skip("no KFD io_link data for an AMD GPU (evidence not available)");
  }
  if (problems.empty()) {
    return pass("PCIe atomics reach every Radeon GPU that needs them", evidence);
  }
  return finding(Severity::error,
                 "PCIe atomics do not reach a Radeon GPU: ROCm may skip it or fail in atomic "
                 "operations",
                 evidence,
                 {{"Move the card to a slot wired to the CPU's PCIe lanes (not through the chipset "
                   "or a PCIe switch), update the BIOS, then look for the kernel's verdict",
                   "sudo dmesg | grep -iE 'atomic|kfd'", true}});
}

}  // namespace rocdoc::checks
