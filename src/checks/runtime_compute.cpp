// runtime.compute (--deep): what the HIP child's compute test found on each GPU. It filled
// device memory with the runtime's own kernel (hipMemsetD32), read it back, compared it, and
// timed page-locked copies, which are compared with what the GPU's PCIe link carries.
#include <fmt/format.h>

#include <algorithm>

#include "rocdoc/gfx_target.h"
#include "src/checks/checks.h"
#include "src/checks/pcie_slot.h"
#include "src/checks/runtime_causes.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// Copies below this share of what the link carries are slow. Page-locked copies reach 70–85 %
/// of a PCIe link's rate (AMD's TransferBench and rocm-bandwidth-test results on Gen4 x16:
/// 24–26 of 31.5 GB/s); a translating IOMMU, a far NUMA node or a throttled link falls below
/// half.
constexpr double k_slow_share = 0.5;

std::string gigabytes(double bytes_per_second) {
  return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}

std::string mebibytes(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

/// The AMD GPU of the inventory at the PCI address HIP reports, or null.
const AmdGpu* inventory_gpu(const CheckContext& context, const HipDevice& device) {
  if (!device.pci_domain || !device.pci_bus || !device.pci_device) {
    return nullptr;
  }
  const std::string bdf = fmt::format("{:04x}:{:02x}:{:02x}.0", *device.pci_domain, *device.pci_bus,
                                      *device.pci_device);
  for (const auto& gpu : context.amd_gpus) {
    if (util::to_lower(gpu.bdf) == bdf) {
      return &gpu;
    }
  }
  return nullptr;
}

std::string device_label(const HipDevice& device, const AmdGpu* gpu) {
  if (gpu != nullptr) {
    return fmt::format("GPU {} {}", device.index, describe(*gpu));
  }
  const std::string arch(target_processor(device.gcn_arch_name));
  return fmt::format("GPU {} ({})", device.index,
                     util::join({device.name.empty() ? std::string("name unknown") : device.name,
                                 arch.empty() ? std::string("target unknown") : arch},
                                ", "));
}

/// What the link can carry, and how it is described; nullopt when it cannot be judged.
struct LinkRate {
  double bytes_per_second = 0;
  std::string text;  ///< "PCIe 16.0 GT/s x16"
  std::string slot;  ///< the slot end's BDF
};

std::optional<LinkRate> link_rate(const CheckContext& context, const AmdGpu* gpu) {
  if (gpu == nullptr || gpu->pci == nullptr || gpu->integrated() || !context.facts.pci) {
    return std::nullopt;
  }
  const SlotLink link = slot_link(*context.facts.pci, *gpu->pci);
  const auto rate = slot_bytes_per_second(link);
  if (!rate) {
    return std::nullopt;
  }
  std::string speed = link.slot->link.max_speed.value_or("?");
  if (link.parent != nullptr && link.parent->link.max_speed &&
      lane_gigatransfers(*link.parent->link.max_speed) < lane_gigatransfers(speed)) {
    speed = *link.parent->link.max_speed;
  }
  if (const auto suffix = speed.find(" PCIe"); suffix != std::string::npos) {
    speed.erase(suffix);  // sysfs: "16.0 GT/s PCIe"
  }
  return LinkRate{*rate, fmt::format("PCIe {} x{}", speed, *link.slot->link.current_width),
                  link.slot->bdf};
}

/// One GPU's outcome.
struct Outcome {
  enum class Kind { ok, slow, failed } kind = Kind::ok;
  std::string line;                   ///< evidence, and the message when it is the first failure
  std::string headline;               ///< slow copies: the message
  const RuntimeCall* call = nullptr;  ///< the failed call, when one failed
  std::string slot;                   ///< the slot end's BDF, for slow copies
  std::optional<int> cpu_node;        ///< the CPU node the GPU hangs off (KFD io_link)
};

std::string rates(const HipCompute& compute) {
  std::vector<std::string> parts;
  if (const auto rate =
          compute.host_to_device ? compute.host_to_device->bytes_per_second() : std::nullopt) {
    parts.push_back("host→device " + gigabytes(*rate));
  }
  if (const auto rate =
          compute.device_to_host ? compute.device_to_host->bytes_per_second() : std::nullopt) {
    parts.push_back("device→host " + gigabytes(*rate));
  }
  if (parts.empty()) {
    return "";
  }
  return util::join(parts, ", ") +
         (compute.pinned == true ? " (page-locked)" : " (ordinary memory: not judged)");
}

std::optional<int> cpu_node_of(const AmdGpu* gpu) {
  if (gpu == nullptr || gpu->kfd == nullptr) {
    return std::nullopt;
  }
  for (const auto& link : gpu->kfd->io_links) {
    if (link.type == 2) {  // PCIe, to the CPU node
      return static_cast<int>(link.node_to);
    }
  }
  return std::nullopt;
}

Outcome judge_device(const CheckContext& context, const HipRuntimeFacts& hip,
                     const HipDevice& device) {
  const HipCompute& compute = *device.compute;
  const AmdGpu* gpu = inventory_gpu(context, device);
  const std::string label = device_label(device, gpu);
  Outcome outcome;
  if (!compute.complete) {
    outcome.kind = Outcome::Kind::failed;
    const std::string in = compute.running.value_or("its compute test");
    const double timeout = context.facts.runtime->timeout_seconds;
    outcome.line = hip.load.ending == ChildEnding::timed_out
                       ? fmt::format(
                             "{}: {} did not return: the GPU hung (timed out after {:g} s; the "
                             "child's process group was killed)",
                             label, in, timeout)
                   : hip.load.ending == ChildEnding::signaled
                       ? fmt::format("{}: the runtime crashed in {} (killed by {})", label, in,
                                     hip.load.signal.value_or("a signal"))
                       : fmt::format("{}: the child ended in {} before it finished", label, in);
    return outcome;
  }
  if (const RuntimeCall* failed = compute.failed_call()) {
    outcome.kind = Outcome::Kind::failed;
    outcome.call = failed;
    const RuntimeCause* cause = runtime_cause(failed->name);
    outcome.line = fmt::format("{}: {}{}", label, describe_call(*failed),
                               cause != nullptr ? " — " + std::string(cause->cause) : "");
    return outcome;
  }
  const std::string size = mebibytes(compute.bytes);
  if (compute.wrong_words.value_or(0) > 0) {
    outcome.kind = Outcome::Kind::failed;
    std::string first;
    if (compute.first_wrong) {
      first = fmt::format(", the first at byte {} (0x{:08x} where 0x{:08x} was written)",
                          compute.first_wrong->offset, compute.first_wrong->found,
                          compute.first_wrong->expected);
    }
    outcome.line = fmt::format(
        "{}: {} filled on the GPU came back wrong: {} of {} words read back differ{}", label, size,
        *compute.wrong_words, compute.checked_bytes.value_or(0) / 4, first);
    return outcome;
  }
  outcome.line = fmt::format("{}: {} filled on the GPU and read back intact ({} compared)", label,
                             size, mebibytes(compute.checked_bytes.value_or(0)));
  if (const std::string copies = rates(compute); !copies.empty()) {
    outcome.line += "; " + copies;
  }
  const auto link = link_rate(context, gpu);
  if (!link || compute.pinned != true) {
    return outcome;
  }
  outcome.line += fmt::format("; the link ({} at {}) carries {}", link->text, link->slot,
                              gigabytes(link->bytes_per_second));
  std::optional<double> slowest;
  for (const auto& rate : {compute.host_to_device, compute.device_to_host}) {
    if (const auto speed = rate ? rate->bytes_per_second() : std::nullopt) {
      slowest = slowest ? std::min(*slowest, *speed) : *speed;
    }
  }
  if (slowest && *slowest < k_slow_share * link->bytes_per_second) {
    outcome.kind = Outcome::Kind::slow;
    const double share = 100 * *slowest / link->bytes_per_second;
    outcome.line += fmt::format(" — {:.0f} % of it", share);
    outcome.headline = fmt::format(
        "{} copies to and from the host at {}, {:.0f} % of the {} its link ({}) "
        "carries",
        label, gigabytes(*slowest), share, gigabytes(link->bytes_per_second), link->text);
    outcome.slot = link->slot;
    outcome.cpu_node = cpu_node_of(gpu);
  }
  return outcome;
}

std::vector<Fix> failure_fixes(const Outcome& first) {
  if (first.call != nullptr && (first.call->name == "hipErrorOutOfMemory")) {
    return {{"See which processes hold the GPU's memory, and end them", "amd-smi process", false}};
  }
  if (first.call != nullptr && (first.call->name == "hipErrorInvalidDeviceFunction" ||
                                first.call->name == "hipErrorNoBinaryForGpu")) {
    return {{"Check the GPU target the runtime is given (HSA_OVERRIDE_GFX_VERSION)",
             "rocdoc check --only arch.override-wrong,arch.unsupported", false}};
  }
  return {{"See what the kernel logged about the GPU (resets, page faults, RAS errors)",
           "sudo dmesg | grep -iE 'amdgpu|kfd'", true},
          {"If it persists, capture the machine for a report to ROCm "
           "(https://github.com/ROCm/ROCm/issues)",
           "rocdoc snapshot --deep --redact", false}};
}

bool iommu_translates(const CheckContext& context) {
  return context.facts.system && !iommu_passes_dma_through(*context.facts.system);
}

/// Slow copies: the link as it runs under load, then IOMMU and NUMA, where the facts say so.
CheckResult slow_finding(const CheckContext& context, const std::vector<Outcome>& slow,
                         std::vector<std::string> evidence) {
  const Outcome& first = slow.front();
  std::vector<Fix> fixes = {
      {"Look at the link while the GPU is busy (an idle link trains down): "
       "LnkSta should match LnkCap",
       "sudo lspci -vv -s " + first.slot + " | grep -E 'LnkCap|LnkSta'", true}};
  if (iommu_translates(context)) {
    const auto& params = context.facts.system->iommu_params;
    evidence.push_back(params.empty() ? "IOMMU: no iommu= parameter on the kernel command line "
                                        "(DMA is translated when the IOMMU is on)"
                                      : "IOMMU: " + util::join(params, " "));
    fixes.push_back({"Put the IOMMU in passthrough so that DMA is not translated, then reboot",
                     add_kernel_argument_command(context.facts, "iommu=pt"), true,
                     FixKind::kernel_argument, true});
  }
  const auto nodes = context.facts.system ? context.facts.system->numa_nodes : std::nullopt;
  if (nodes.value_or(1) > 1 && first.cpu_node) {
    evidence.push_back(fmt::format(
        "NUMA: {} nodes; the GPU hangs off CPU node {} (KFD io_link), and the copies ran on "
        "whichever node the scheduler chose",
        *nodes, *first.cpu_node));
    fixes.push_back(
        {"Compare with the copies run on the GPU's own NUMA node",
         fmt::format("numactl --cpunodebind={0} --membind={0} rocdoc check --deep --only "
                     "runtime.compute",
                     *first.cpu_node),
         false});
  }
  const std::string message =
      slow.size() == 1 ? first.headline
                       : fmt::format(
                             "{} GPUs copy to and from the host at less than half of what "
                             "their PCIe links carry: {}",
                             slow.size(), first.headline);
  return finding(Severity::warning, message, std::move(evidence), std::move(fixes));
}

}  // namespace

CheckResult runtime_compute(const CheckContext& context) {
  if (!context.facts.runtime) {
    return skip("run with --deep to run work on the GPUs");
  }
  if (!context.facts.runtime->hip) {
    return skip("this snapshot recorded no HIP runtime child");
  }
  const HipRuntimeFacts& hip = *context.facts.runtime->hip;
  std::vector<const HipDevice*> tested;
  for (const auto& device : hip.devices) {
    if (device.compute) {
      tested.push_back(&device);
    }
  }
  if (tested.empty()) {
    if (hip.device_count.value_or(0) > 0 && hip.load.complete) {
      return skip("this snapshot was made by a rocdoc that ran no work on the GPUs");
    }
    return skip("the HIP runtime gave no GPU to run work on (runtime.hip-init says why)");
  }
  std::vector<std::string> evidence;
  std::vector<Outcome> failed;
  std::vector<Outcome> slow;
  for (const HipDevice* device : tested) {
    Outcome outcome = judge_device(context, hip, *device);
    evidence.push_back(outcome.line);
    if (outcome.kind == Outcome::Kind::failed) {
      failed.push_back(std::move(outcome));
    } else if (outcome.kind == Outcome::Kind::slow) {
      slow.push_back(std::move(outcome));
    }
  }
  const int count = hip.device_count.value_or(static_cast<int>(tested.size()));
  if (static_cast<int>(tested.size()) < count && !hip.load.complete) {
    evidence.push_back(fmt::format("{} of the {} GPUs were not tested: the child ended first",
                                   count - static_cast<int>(tested.size()), count));
  }
  if (!failed.empty()) {
    const std::string who =
        failed.size() == 1 ? "A GPU" : fmt::format("{} of {} GPUs", failed.size(), tested.size());
    return finding(Severity::error,
                   fmt::format("{} could not do real work: {}", who, failed.front().line),
                   std::move(evidence), failure_fixes(failed.front()));
  }
  if (!slow.empty()) {
    return slow_finding(context, slow, std::move(evidence));
  }
  return pass(fmt::format("{} GPU{} did real work: memory filled by the runtime's own kernel "
                          "and read back intact",
                          tested.size(), tested.size() == 1 ? "" : "s"),
              std::move(evidence));
}

}  // namespace rocdoc::checks
