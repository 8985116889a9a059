// Deep checks (--deep; probe runtime): runtime.hip-init and runtime.smi judge what the HIP
// runtime and rocm_smi_lib, really loaded in a child, said against what the kernel (KFD) shows.
// Whole on purpose: one area of the check table (deep checks).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rocdoc/gfx_target.h"
#include "src/checks/checks.h"
#include "src/checks/runtime_causes.h"
#include "src/checks/software.h"
#include "src/checks/visible_devices.h"
#include "src/runtime/abi.h"
#include "src/runtime/protocol.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

constexpr std::string_view k_not_deep = "run with --deep to load the HIP runtime";

// ---- the cause table -----------------------------------------------------------------------

constexpr std::string_view k_hip_errors =
    "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/error_codes.html";
constexpr std::string_view k_hsa_header =
    "https://github.com/ROCm/ROCR-Runtime/blob/amd-staging/runtime/hsa-runtime/inc/hsa.h";
constexpr std::string_view k_smi_header =
    "https://github.com/ROCm/rocm_smi_lib/blob/amd-staging/include/rocm_smi/rocm_smi.h";

constexpr std::string_view k_amdsmi_header =
    "https://github.com/ROCm/amdsmi/blob/amd-staging/include/amd_smi/amdsmi.h";

constexpr std::array<RuntimeCause, 16> k_causes = {{
    {"hipErrorNoDevice",
     "the runtime found no GPU it can use: /dev/kfd or the render nodes cannot be opened, the "
     "visible-device variables hide every GPU, or the kernel driver shows none",
     k_hip_errors},
    {"hipErrorInsufficientDriver",
     "the kernel driver (amdgpu and KFD) is older than this HIP runtime needs", k_hip_errors},
    {"hipErrorNoBinaryForGpu",
     "the code has no binary for this GPU's gfx target: the wheel or extension was not built for "
     "it (see torch.arch-missing; an HSA_OVERRIDE_GFX_VERSION of a supported target of the same "
     "family is the known workaround)",
     k_hip_errors},
    {"hipErrorInvalidDeviceFunction",
     "a kernel has no code for this GPU's gfx target (see torch.arch-missing and "
     "HSA_OVERRIDE_GFX_VERSION)",
     k_hip_errors},
    {"hipErrorInitializationError", "the runtime failed to initialise the HSA runtime",
     k_hip_errors},
    {"hipErrorNotInitialized", "the runtime failed to initialise the HSA runtime", k_hip_errors},
    // runtime.compute: the calls of the compute test.
    {"hipErrorOutOfMemory",
     "the GPU has not that much free memory: other processes hold it, or (on an APU) the memory "
     "set aside for the GPU is small",
     k_hip_errors},
    {"hipErrorIllegalAddress",
     "the GPU faulted on a memory access while it ran the runtime's own kernel: a driver, "
     "firmware or hardware fault (see driver.gpu-faults)",
     k_hip_errors},
    {"hipErrorLaunchFailure",
     "the GPU failed while it ran the runtime's own kernel: a driver, firmware or hardware "
     "fault, or a wrong HSA_OVERRIDE_GFX_VERSION",
     k_hip_errors},
    {"hipErrorLaunchTimeOut", "the runtime's own kernel did not finish: the GPU hung",
     k_hip_errors},
    {"hipErrorECCNotCorrectable", "the GPU's memory had an uncorrectable ECC error", k_hip_errors},
    {"HSA_STATUS_ERROR_OUT_OF_RESOURCES",
     "hsa_init could not open /dev/kfd (it is missing, or this user may not open it)",
     k_hsa_header},
    {"RSMI_STATUS_INIT_ERROR",
     "rocm_smi_lib found no amdgpu device to monitor under /sys/class/drm (amdgpu not loaded, "
     "or sysfs not visible)",
     k_smi_header},
    {"RSMI_STATUS_PERMISSION", "rocm_smi_lib was denied a sysfs or device file", k_smi_header},
    {"AMDSMI_STATUS_INIT_ERROR",
     "amd-smi found no amdgpu device it could initialise (amdgpu not loaded, or sysfs or "
     "/dev/dri not visible)",
     k_amdsmi_header},
    {"AMDSMI_STATUS_NO_PERM", "amd-smi was denied a device or sysfs file", k_amdsmi_header},
}};

// ---- shared evidence -----------------------------------------------------------------------

/// What the library printed is never shown (the human report stays free of its noise): its
/// size, and where the JSON report keeps its first lines.
std::string summary_line(std::string_view stream, std::string_view key,
                         const OutputSummary& summary) {
  return fmt::format(
      "the library wrote {} bytes ({} lines) on {} (first lines: facts.runtime "
      "…load.{} of the JSON report)",
      summary.bytes, summary.lines, stream, key);
}

/// Where the library came from and what the child printed: the evidence of every finding.
std::vector<std::string> load_evidence(const RuntimeLoad& load) {
  std::vector<std::string> evidence;
  for (const auto& failed : load.failed) {
    evidence.push_back(fmt::format("tried {}: {}", failed.candidate, failed.error));
  }
  if (load.loaded) {
    evidence.push_back(fmt::format(
        "loaded {}{}", *load.loaded,
        load.candidate && *load.candidate != *load.loaded ? " (as " + *load.candidate + ")" : ""));
  }
  for (const auto& call : load.calls) {
    if (call.status != 0) {
      evidence.push_back(describe_call(call));
    }
  }
  if (load.out.bytes > 0) {
    evidence.push_back(summary_line("standard output", "stdout", load.out));
  }
  if (load.err.bytes > 0) {
    evidence.push_back(summary_line("standard error", "stderr", load.err));
  }
  return evidence;
}

/// Why a child's answer cannot be used: a hang, a crash, garbage; nullopt when it can.
std::optional<std::string> child_problem(const RuntimeLoad& load, std::string_view what,
                                         double timeout) {
  const std::string in = load.running ? fmt::format(" in {}", *load.running) : "";
  switch (load.ending) {
    case ChildEnding::not_started:
      return fmt::format("rocdoc could not start the child that loads {}: {}", what, load.error);
    case ChildEnding::timed_out:
      return fmt::format(
          "{} did not answer: timed out after {:g} s{}; its process group was "
          "killed",
          what, timeout, in);
    case ChildEnding::signaled:
      return fmt::format("{} crashed: the child was killed by {}{}", what,
                         load.signal.value_or("a signal"), in);
    case ChildEnding::exited:
      break;
  }
  if (load.unreadable) {
    return fmt::format("{} gave an unreadable result ({})", what, *load.unreadable);
  }
  if (!load.complete) {
    return fmt::format("the child that loads {} exited with status {} before it finished{}", what,
                       load.exit_status.value_or(-1), in);
  }
  return std::nullopt;
}

std::string failed_list(const RuntimeLoad& load) {
  std::vector<std::string> names;
  for (const auto& failed : load.failed) {
    names.push_back(failed.candidate);
  }
  return util::join(names, ", ");
}

/// The gfx target HIP reports for a KFD GPU: its own, or its HSA_OVERRIDE_GFX_VERSION's.
std::string expected_target(const CheckContext& context, const RuntimeDevice& device) {
  if (device.gpu != nullptr) {
    if (const auto setting = override_for(context, *device.gpu)) {
      if (const auto target = override_target(setting->value)) {
        return *target;
      }
    }
  }
  return device.node != nullptr ? device.node->gfx_target : "";
}

std::string list_or_none(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : util::join(names, ", ");
}

/// HSA's hsa_init status, when the HSA child got that far.
const RuntimeCall* hsa_init_call(const CheckContext& context) {
  const auto& runtime = context.facts.runtime;
  return runtime && runtime->hsa ? runtime->hsa->load.call("hsa_init") : nullptr;
}

std::vector<Fix> hip_error_fixes(const RuntimeCall& call) {
  if (call.name == "hipErrorNoBinaryForGpu" || call.name == "hipErrorInvalidDeviceFunction") {
    return {
        {"Install a build that has code for this GPU's target (rocdoc check --only "
         "torch.arch-missing names it)",
         "rocdoc check --only torch.arch-missing", false}};
  }
  if (call.name == "hipErrorInsufficientDriver") {
    return {
        {"Install the amdgpu driver of a ROCm release this HIP runtime supports (AMD's "
         "amdgpu-install), then reboot",
         "", true}};
  }
  return {
      {"Check the GPU's driver and permissions", "rocdoc check --only 'driver.*,perm.*'", false}};
}

CheckResult hip_call_failed(const CheckContext& context, const HipRuntimeFacts& hip,
                            const RuntimeCall& call, const DeviceView& view,
                            std::vector<std::string> evidence) {
  const RuntimeCall* hsa = hsa_init_call(context);
  if (hsa != nullptr && hsa->status != 0) {
    evidence.push_back("HSA runtime: " + describe_call(*hsa));
  }
  if (call.name == "hipErrorNoDevice" && view.kfd_gpus.empty() && context.amd_gpus.empty()) {
    return pass(
        fmt::format("{}: no device ({}), as the kernel shows none", hip_identity(hip), call.name),
        std::move(evidence));
  }
  std::string cause;
  if (call.name == "hipErrorNoDevice" && hsa != nullptr && hsa->status != 0) {
    const RuntimeCause* hsa_cause = runtime_cause(hsa->name);
    cause = hsa_cause != nullptr ? std::string(hsa_cause->cause)
                                 : "the HSA runtime did not start (" + hsa->name + ")";
  } else if (call.name == "hipErrorNoDevice" && !view.kfd_gpus.empty() &&
             view.hip_devices.empty()) {
    cause = "the visible-device variables hide every GPU (see env.visible-devices)";
  } else if (const RuntimeCause* known = runtime_cause(call.name)) {
    cause = std::string(known->cause);
  } else {
    cause = "an error rocdoc has no cause for";
  }
  const std::string kfd =
      view.kfd_gpus.empty() ? "" : fmt::format(", while KFD shows {} GPU(s)", view.kfd_gpus.size());
  return finding(Severity::error,
                 fmt::format("{}: {} failed with {}{}: {}", hip_identity(hip), call.function,
                             call.name, kfd, cause),
                 std::move(evidence), hip_error_fixes(call));
}

/// HIP's devices against the KFD GPUs HIP should see (after the visible-device masks).
std::optional<CheckResult> compare_hip_devices(const CheckContext& context,
                                               const HipRuntimeFacts& hip, const DeviceView& view,
                                               std::vector<std::string>& evidence) {
  std::vector<std::string> hip_targets;
  for (const auto& device : hip.devices) {
    if (!device.gcn_arch_name.empty()) {
      hip_targets.push_back(std::string(target_processor(device.gcn_arch_name)));
    }
  }
  std::vector<std::string> kfd_targets;
  for (const auto& device : view.hip_devices) {
    kfd_targets.push_back(expected_target(context, device));
  }
  const int count = hip.device_count.value_or(0);
  auto hip_sorted = hip_targets;
  auto kfd_sorted = kfd_targets;
  std::sort(hip_sorted.begin(), hip_sorted.end());
  std::sort(kfd_sorted.begin(), kfd_sorted.end());
  const bool targets_known = std::none_of(kfd_sorted.begin(), kfd_sorted.end(),
                                          [](const std::string& t) { return t.empty(); });
  if (static_cast<std::size_t>(count) == view.hip_devices.size() &&
      (!targets_known || hip_sorted == kfd_sorted ||
       hip_targets.size() != static_cast<std::size_t>(count))) {
    return std::nullopt;
  }
  evidence.push_back(fmt::format("HIP devices: {}", list_or_none(hip_targets)));
  evidence.push_back(fmt::format("KFD GPUs HIP should see{}: {}",
                                 view.rocr || view.hip ? " (after the visible-device masks)" : "",
                                 list_or_none(kfd_targets)));
  const std::string message =
      static_cast<std::size_t>(count) < view.hip_devices.size()
          ? fmt::format("{} sees {} device(s), fewer than the {} KFD shows: HIP {}; KFD {}",
                        hip_identity(hip), count, view.hip_devices.size(),
                        list_or_none(hip_targets), list_or_none(kfd_targets))
      : static_cast<std::size_t>(count) > view.hip_devices.size()
          ? fmt::format("{} sees {} device(s), more than the {} KFD shows: HIP {}; KFD {}",
                        hip_identity(hip), count, view.hip_devices.size(),
                        list_or_none(hip_targets), list_or_none(kfd_targets))
          : fmt::format("{} reports other GPU targets than KFD: HIP {}; KFD {}", hip_identity(hip),
                        list_or_none(hip_targets), list_or_none(kfd_targets));
  return finding(Severity::error, message, evidence,
                 {{"Compare the runtime's view with the kernel's (ROCR_VISIBLE_DEVICES, "
                   "HIP_VISIBLE_DEVICES, HSA_OVERRIDE_GFX_VERSION)",
                   "rocdoc check --only env.visible-devices,arch.override-wrong", false}});
}

/// The 4 KiB round trip to device 0: nullopt when it worked or was not tried.
std::optional<CheckResult> round_trip_problem(const HipRuntimeFacts& hip,
                                              const std::vector<std::string>& evidence) {
  for (const char* function : {"hipMalloc", "hipMemcpy", "hipFree"}) {
    const RuntimeCall* call = hip.load.call(function);
    if (call != nullptr && call->status != 0) {
      return finding(Severity::error,
                     fmt::format("{}: a 4 KiB copy to device 0 and back failed: {}",
                                 hip_identity(hip), describe_call(*call)),
                     evidence, hip_error_fixes(*call));
    }
  }
  if (hip.round_trip == false) {
    return finding(
        Severity::error,
        fmt::format("{}: 4 KiB copied to device 0 came back different", hip_identity(hip)),
        evidence, {{"Check the kernel log for GPU memory or IOMMU errors", "sudo dmesg", true}});
  }
  return std::nullopt;
}

int kfd_gpu_nodes(const CheckContext& context) {
  const auto& kfd = context.facts.kfd;
  if (kfd && kfd->topology_present) {
    return kfd->gpu_count() + kfd->withheld_count();
  }
  return static_cast<int>(context.amd_gpus.size() + context.withheld_gpus.size());
}

const KfdNode* kfd_node_at(const CheckContext& context, const SmiRuntimeFacts& smi, int index) {
  const auto& kfd = context.facts.kfd;
  if (!kfd) {
    return nullptr;
  }
  for (const auto& device : smi.devices) {
    if (device.index != index || !device.pci_id) {
      continue;
    }
    const std::string bdf = bdf_of(*device.pci_id);
    for (const auto& node : kfd->nodes) {
      if (node.bdf && util::to_lower(*node.bdf) == bdf) {
        return &node;
      }
    }
  }
  return nullptr;
}

constexpr std::uint32_t k_kfd_link_xgmi = 11;

/// rocm_smi's link types against KFD's io_links, where both name the pair.
std::vector<std::string> link_disagreements(const CheckContext& context,
                                            const SmiRuntimeFacts& smi) {
  std::vector<std::string> problems;
  for (const auto& link : smi.links) {
    const KfdNode* from = kfd_node_at(context, smi, link.from);
    const KfdNode* to = kfd_node_at(context, smi, link.to);
    if (from == nullptr || to == nullptr || from->io_links.empty()) {
      continue;
    }
    const bool kfd_xgmi = std::any_of(
        from->io_links.begin(), from->io_links.end(),
        [&](const KfdIoLink& io) { return io.node_to == to->index && io.type == k_kfd_link_xgmi; });
    const bool smi_xgmi = link.type == runtime_abi::k_rsmi_iolink_xgmi;
    if (kfd_xgmi != smi_xgmi) {
      problems.push_back(fmt::format(
          "devices {} and {} ({} and {}): rocm_smi says {}{}, KFD's io_links say {}", link.from,
          link.to, from->bdf.value_or("?"), to->bdf.value_or("?"), smi_link_name(link.type),
          link.hops ? fmt::format(" ({} hops)", *link.hops) : "", kfd_xgmi ? "XGMI" : "no XGMI"));
    }
  }
  return problems;
}

}  // namespace

std::string bdf_of(std::uint64_t pci_id) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", (pci_id >> 32) & 0xffff, (pci_id >> 8) & 0xff,
                     (pci_id >> 3) & 0x1f, pci_id & 0x7);
}

std::string_view smi_link_name(std::uint32_t type) {
  return type == runtime_abi::k_rsmi_iolink_pcie   ? "PCIe"
         : type == runtime_abi::k_rsmi_iolink_xgmi ? "XGMI"
                                                   : "undefined";
}

std::string describe_call(const RuntimeCall& call) {
  // HSA's statuses are written in hex in its header and in every log (0x1008).
  const bool hsa = call.name.rfind("HSA_", 0) == 0 || call.function.rfind("hsa_", 0) == 0;
  std::string text =
      hsa ? fmt::format("{} returned {} (0x{:x})", call.function, call.name, call.status)
          : fmt::format("{} returned {} ({})", call.function, call.name, call.status);
  std::string_view description = call.description;
  if (description.rfind(call.name + ": ", 0) == 0) {
    description.remove_prefix(call.name.size() + 2);
  }
  if (!description.empty() && description != call.name) {
    text += ": " + std::string(description);
  }
  return text;
}

std::string hip_identity(const HipRuntimeFacts& hip) {
  return fmt::format("HIP {} loaded from {}",
                     hip.runtime_version ? runtime::hip_version_text(*hip.runtime_version)
                                         : std::string("(version unknown)"),
                     hip.load.loaded.value_or("?"));
}

const RuntimeCause* runtime_cause(std::string_view name) {
  for (const auto& cause : k_causes) {
    if (cause.name == name) {
      return &cause;
    }
  }
  return nullptr;
}

std::span<const RuntimeCause> runtime_causes() { return k_causes; }

CheckResult runtime_hip_init(const CheckContext& context) {
  if (!context.facts.runtime) {
    return skip(std::string(k_not_deep));
  }
  if (!context.facts.runtime->hip) {
    return skip("this snapshot recorded no HIP runtime child");
  }
  const HipRuntimeFacts& hip = *context.facts.runtime->hip;
  std::vector<std::string> evidence = load_evidence(hip.load);
  // A child that ended during a GPU's compute test had answered everything this check reads:
  // the hang or crash is runtime.compute's finding.
  if (auto problem = hip.computing ? std::nullopt
                                   : child_problem(hip.load, "the HIP runtime",
                                                   context.facts.runtime->timeout_seconds)) {
    return finding(Severity::error, *problem, std::move(evidence),
                   {{"Run the same calls with the runtime's own log to see where it stops",
                     "AMD_LOG_LEVEL=4 rocdoc check --deep --only runtime.hip-init -v", false}});
  }
  const DeviceView view = compose_visible_devices(context);
  const bool gpus = !view.kfd_gpus.empty() || !context.amd_gpus.empty();
  if (!hip.load.loaded) {
    const std::string tried = failed_list(hip.load);
    if (!gpus) {
      return skip(
          fmt::format("no libamdhip64 could be loaded (tried {}), and the kernel shows no "
                      "AMD GPU",
                      tried));
    }
    return finding(
        Severity::error, fmt::format("libamdhip64 could not be loaded (tried {})", tried),
        std::move(evidence),
        {{"Install ROCm's HIP runtime, or a ROCm build of PyTorch (which bundles it)", "", false}});
  }
  if (!hip.load.missing.empty()) {
    return finding(Severity::error,
                   fmt::format("{} is not a usable HIP runtime: it lacks {}", *hip.load.loaded,
                               util::join(hip.load.missing, ", ")),
                   std::move(evidence),
                   {{"Remove or replace that file (a partial or foreign libamdhip64)", "", false}});
  }
  const RuntimeCall* count = hip.load.call("hipGetDeviceCount");
  if (count == nullptr) {
    return finding(Severity::error,
                   fmt::format("{}: hipGetDeviceCount was never answered", hip_identity(hip)),
                   std::move(evidence));
  }
  if (count->status != 0) {
    return hip_call_failed(context, hip, *count, view, std::move(evidence));
  }
  if (const RuntimeCall* properties = hip.load.call("hipGetDeviceProperties");
      properties != nullptr && properties->status != 0) {
    return hip_call_failed(context, hip, *properties, view, std::move(evidence));
  }
  if (auto mismatch = compare_hip_devices(context, hip, view, evidence)) {
    return *mismatch;
  }
  if (auto problem = round_trip_problem(hip, evidence)) {
    return *problem;
  }
  std::vector<std::string> targets;
  for (const auto& device : hip.devices) {
    targets.push_back(std::string(target_processor(device.gcn_arch_name)));
  }
  const int devices = hip.device_count.value_or(0);
  return pass(fmt::format("{}: {} device{} ({}), as KFD shows{}", hip_identity(hip), devices,
                          devices == 1 ? "" : "s", list_or_none(targets),
                          hip.round_trip ? "; a 4 KiB copy to device 0 and back matched" : ""),
              std::move(evidence));
}

namespace {

/// Which of the two libraries a runtime.smi verdict is about.
struct SmiLibrary {
  std::string_view name;     ///< "rocm_smi", "amd-smi"
  std::string_view library;  ///< "librocm_smi64", "libamd_smi"
  std::string_view init;     ///< "rsmi_init", "amdsmi_init"
};
constexpr SmiLibrary k_rocm_smi{"rocm_smi", "librocm_smi64", "rsmi_init"};
constexpr SmiLibrary k_amd_smi{"amd-smi", "libamd_smi", "amdsmi_init"};

std::string identity_of(const SmiRuntimeFacts& smi, const SmiLibrary& kind) {
  return fmt::format("{} loaded from {}", kind.name, smi.load.loaded.value_or("?"));
}

/// What the library read of each device besides its place: name, ECC counts, temperature.
void add_readings(const SmiRuntimeFacts& smi, std::vector<std::string>& evidence) {
  for (const auto& device : smi.devices) {
    std::vector<std::string> readings;
    if (device.ecc_uncorrectable) {
      readings.push_back(fmt::format("ECC {} correctable, {} uncorrectable",
                                     device.ecc_correctable.value_or(0),
                                     *device.ecc_uncorrectable));
    }
    if (device.temperature_edge) {
      // Older releases answer in millidegrees, newer in degrees.
      const double celsius = *device.temperature_edge > 1000
                                 ? static_cast<double>(*device.temperature_edge) / 1000.0
                                 : static_cast<double>(*device.temperature_edge);
      readings.push_back(fmt::format("edge {:.0f} °C", celsius));
    }
    if (device.firmware_mec || device.firmware_smc) {
      readings.push_back(
          fmt::format("firmware{}{}",
                      device.firmware_mec ? fmt::format(" MEC 0x{:x}", *device.firmware_mec) : "",
                      device.firmware_smc ? fmt::format(" SMC 0x{:x}", *device.firmware_smc) : ""));
    }
    if (readings.empty() && !device.market_name) {
      continue;
    }
    evidence.push_back(fmt::format(
        "device {}{}{}: {}", device.index, device.pci_id ? " (" + bdf_of(*device.pci_id) + ")" : "",
        device.market_name ? " " + *device.market_name : "",
        readings.empty() ? std::string("no readings") : util::join(readings, "; ")));
  }
}

CheckResult judge_smi(const CheckContext& context, const SmiRuntimeFacts& smi,
                      const SmiLibrary& kind) {
  std::vector<std::string> evidence = load_evidence(smi.load);
  const std::string what(kind.library == "libamd_smi" ? "amd-smi's library" : "rocm_smi_lib");
  if (auto problem = child_problem(smi.load, what, context.facts.runtime->timeout_seconds)) {
    return finding(Severity::warning, *problem, std::move(evidence));
  }
  if (!smi.load.loaded) {
    return skip(
        fmt::format("no {} could be loaded (tried {})", kind.library, failed_list(smi.load)));
  }
  if (!smi.load.missing.empty()) {
    return finding(Severity::warning,
                   fmt::format("{} is not a usable {}: it lacks {}", *smi.load.loaded, what,
                               util::join(smi.load.missing, ", ")),
                   std::move(evidence));
  }
  const int kfd = kfd_gpu_nodes(context);
  const RuntimeCall* init = smi.load.call(kind.init);
  if (init == nullptr) {
    return finding(Severity::warning,
                   fmt::format("{}: {} was never answered", identity_of(smi, kind), kind.init),
                   std::move(evidence));
  }
  if (init->status != 0) {
    const RuntimeCause* cause = runtime_cause(init->name);
    if (kfd == 0) {
      return pass(fmt::format("{}: {} failed with {} ({}), as expected: the kernel shows no "
                              "AMD GPU",
                              identity_of(smi, kind), kind.init, init->name, init->status),
                  std::move(evidence));
    }
    return finding(Severity::warning,
                   fmt::format("{}: {} failed with {} ({}){}; rocm-smi and amd-smi fail "
                               "the same way",
                               identity_of(smi, kind), kind.init, init->name, init->status,
                               cause != nullptr ? ": " + std::string(cause->cause) : ""),
                   std::move(evidence));
  }
  add_readings(smi, evidence);
  const int count = smi.device_count.value_or(0);
  if (count != kfd) {
    return finding(Severity::warning,
                   fmt::format("{}: it counts {} device(s), KFD shows {} GPU node(s)",
                               identity_of(smi, kind), count, kfd),
                   std::move(evidence));
  }
  if (auto problems = link_disagreements(context, smi); !problems.empty()) {
    evidence.insert(evidence.end(), problems.begin(), problems.end());
    return finding(Severity::warning,
                   fmt::format("{}: its link types disagree with KFD's io_links: {}",
                               identity_of(smi, kind), problems.front()),
                   std::move(evidence));
  }
  std::vector<std::string> links;
  for (const auto& link : smi.links) {
    links.push_back(fmt::format("{}-{} {}", link.from, link.to, smi_link_name(link.type)));
  }
  return pass(fmt::format("{}: {} device(s), as KFD shows{}{}", identity_of(smi, kind), count,
                          smi.driver_version ? "; driver " + *smi.driver_version : "",
                          links.empty() ? "" : "; links " + util::join(links, ", ")),
              std::move(evidence));
}

}  // namespace

CheckResult runtime_smi(const CheckContext& context) {
  if (!context.facts.runtime) {
    return skip("run with --deep to load rocm_smi_lib");
  }
  const auto& runtime = *context.facts.runtime;
  // amd-smi's library where it loads (ROCm 10.1 builds no rocm_smi_lib), else rocm_smi_lib.
  if (runtime.amdsmi && runtime.amdsmi->load.loaded) {
    return judge_smi(context, *runtime.amdsmi, k_amd_smi);
  }
  if (!runtime.smi) {
    return skip("this snapshot recorded no rocm_smi child");
  }
  CheckResult result = judge_smi(context, *runtime.smi, k_rocm_smi);
  if (result.status == Status::skip && runtime.amdsmi) {
    result.message +=
        fmt::format("; no libamd_smi either (tried {})", failed_list(runtime.amdsmi->load));
  }
  const auto rocm = context.facts.rocm ? context.facts.rocm->active_major_minor() : std::nullopt;
  const RocmRelease* release = rocm ? context.knowledge.rocm_release(*rocm) : nullptr;
  if (result.status == Status::skip && release != nullptr &&
      std::find(release->without.begin(), release->without.end(), "rocm-smi") !=
          release->without.end()) {
    result.message += fmt::format(
        "; ROCm {} no longer builds or installs ROCm SMI: its replacement is amd-smi's library "
        "(libamd_smi)",
        release->rocm);
  }
  return result;
}

}  // namespace rocdoc::checks
