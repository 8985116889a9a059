// The root-cause table and the pass that links findings to their cause (caused_by).
#include "src/pipeline/root_causes.h"

#include <algorithm>
#include <optional>
#include <string>

#include "src/checks/software.h"

namespace rocdoc {

namespace {

/// What a fix is, to compare two findings' fixes: its command, or its words when it has none.
const std::string& fix_key(const Fix& fix) {
  return fix.command.empty() ? fix.description : fix.command;
}

/// The cause already proposes every fix of the consequence: fixing the cause is the remedy.
bool cause_has_the_fixes(const CheckResult& cause, const CheckResult& consequence,
                         const CheckContext& /*context*/) {
  if (consequence.fix.empty()) {
    return false;
  }
  return std::all_of(consequence.fix.begin(), consequence.fix.end(), [&](const Fix& wanted) {
    return std::any_of(cause.fix.begin(), cause.fix.end(),
                       [&](const Fix& offered) { return fix_key(offered) == fix_key(wanted); });
  });
}

/// The cause proposes another remedy than the consequence (which would undo it).
bool cause_has_other_fixes(const CheckResult& cause, const CheckResult& consequence,
                           const CheckContext& context) {
  return !cause.fix.empty() && !cause_has_the_fixes(cause, consequence, context);
}

bool lacks_gid(const AccessFacts& access, const DeviceNode& node) {
  return !access.process_has_gid(node.stat.gid);
}

/// The session lacks a group /etc/group already gives the user for this node.
bool stale_gid(const AccessFacts& access, const DeviceNode& node) {
  return access.group_file_lists_user(node.stat.gid) && !access.process_has_gid(node.stat.gid);
}

bool kfd_group_not_added(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& access = context.facts.access;
  return access && access->kfd && lacks_gid(*access, *access->kfd);
}

bool render_group_not_added(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& access = context.facts.access;
  return access && std::any_of(access->render_nodes.begin(), access->render_nodes.end(),
                               [&](const DeviceNode& node) { return lacks_gid(*access, node); });
}

bool kfd_group_not_in_session(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& access = context.facts.access;
  return access && access->kfd && stale_gid(*access, *access->kfd);
}

bool render_group_not_in_session(const CheckResult&, const CheckResult&,
                                 const CheckContext& context) {
  const auto& access = context.facts.access;
  return access && std::any_of(access->render_nodes.begin(), access->render_nodes.end(),
                               [&](const DeviceNode& node) { return stale_gid(*access, node); });
}

/// Every AMD GPU that is not bound to amdgpu is bound to nothing (none is held by vfio-pci or
/// radeon): amdgpu not being loaded is why.
bool unbound_gpus_have_no_driver(const CheckResult&, const CheckResult&,
                                 const CheckContext& context) {
  bool any = false;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr || gpu.pci->driver == "amdgpu") {
      continue;
    }
    if (gpu.pci->driver) {
      return false;
    }
    any = true;
  }
  return any;
}

/// open(/dev/kfd) fails with ENOMEM: KFD has no GPU it could use.
bool kfd_open_enomem(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& access = context.facts.access;
  return access && access->kfd && access->kfd->open.error == "ENOMEM";
}

/// A per-node HSA_OVERRIDE_GFX_VERSION_<n> that the ROCm in use does not read: the GPU keeps
/// its own target, for which the wheel has no code.
bool per_node_override_unread(const CheckResult&, const CheckResult&, const CheckContext& context) {
  if (!context.facts.env) {
    return false;
  }
  return std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(), [&](const AmdGpu& gpu) {
    const auto setting = checks::override_for(context, gpu);
    return setting && checks::per_node_unread(context, *setting).has_value();
  });
}

/// The HIP runtime (--deep) found no device or could not start: what keeps the GPUs from this
/// process (permissions, a missing /dev/kfd, the masks) is why.
bool hip_found_no_device(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& runtime = context.facts.runtime;
  if (!runtime || !runtime->hip) {
    return false;
  }
  const RuntimeCall* count = runtime->hip->load.call("hipGetDeviceCount");
  return count != nullptr &&
         (count->name == "hipErrorNoDevice" || count->name == "hipErrorInitializationError" ||
          count->name == "hipErrorNotInitialized" ||
          (count->status == 0 &&
           runtime->hip->device_count.value_or(0) < static_cast<int>(context.amd_gpus.size())));
}

/// The HIP runtime (--deep) reported that the code has no binary for the GPU.
bool hip_found_no_binary(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& runtime = context.facts.runtime;
  return runtime && runtime->hip &&
         std::any_of(runtime->hip->load.calls.begin(), runtime->hip->load.calls.end(),
                     [](const RuntimeCall& call) {
                       return call.name == "hipErrorNoBinaryForGpu" ||
                              call.name == "hipErrorInvalidDeviceFunction";
                     });
}

/// runtime.compute found work that failed (an error), not only slow copies (a warning).
bool compute_failed(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return consequence.severity == Severity::error;
}

/// runtime.compute found only slow copies, on a machine whose IOMMU translates DMA.
bool compute_slow(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return consequence.severity == Severity::warning;
}

/// A GPU's compute test failed for want of code for the target the runtime was given.
bool compute_found_no_code(const CheckResult&, const CheckResult&, const CheckContext& context) {
  const auto& runtime = context.facts.runtime;
  if (!runtime || !runtime->hip) {
    return false;
  }
  return std::any_of(
      runtime->hip->devices.begin(), runtime->hip->devices.end(), [](const HipDevice& device) {
        const RuntimeCall* failed = device.compute ? device.compute->failed_call() : nullptr;
        return failed != nullptr && (failed->name == "hipErrorNoBinaryForGpu" ||
                                     failed->name == "hipErrorInvalidDeviceFunction");
      });
}

/// torch.smoke's fix sends the user to `check` ("rocdoc check --only torch.cpu-wheel,…"): the
/// check that explains why torch could not run is its cause.
bool smoke_fix_names(const CheckResult& consequence, std::string_view check) {
  return std::any_of(consequence.fix.begin(), consequence.fix.end(),
                     [&](const Fix& fix) { return fix.command.find(check) != std::string::npos; });
}
bool smoke_cpu_build(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return smoke_fix_names(consequence, "torch.cpu-wheel");
}
bool smoke_cuda_build(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return smoke_fix_names(consequence, "torch.cuda-wheel");
}
bool smoke_no_code(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return smoke_fix_names(consequence, "torch.arch-missing");
}
bool smoke_no_gpu(const CheckResult&, const CheckResult& consequence, const CheckContext&) {
  return smoke_fix_names(consequence, "'perm.*,env.visible-devices'");
}

const CauseRule k_rules[] = {
    // --deep: the HIP runtime fails for a reason another finding already names.
    {"perm.kfd", "runtime.hip-init",
     "the HIP runtime finds no device because this user cannot open /dev/kfd", hip_found_no_device},
    {"perm.render", "runtime.hip-init",
     "the HIP runtime finds no device because this user cannot open the render nodes",
     hip_found_no_device},
    {"driver.kfd-missing", "runtime.hip-init", "without /dev/kfd the HIP runtime finds no device",
     hip_found_no_device},
    {"env.visible-devices", "runtime.hip-init",
     "the visible-device variables hide the GPUs the HIP runtime would use", hip_found_no_device},
    {"torch.arch-missing", "runtime.hip-init",
     "the HIP runtime reports no binary for the GPU because the wheel has no code for its target",
     hip_found_no_binary},
    // --deep: work on the GPU fails or copies crawl for a reason another finding names.
    {"driver.gpu-faults", "runtime.compute",
     "the GPU faulted this boot (the kernel log or its RAS counters say so): the work that "
     "failed on it is that fault",
     compute_failed},
    {"arch.override-wrong", "runtime.compute",
     "the override gives the GPU a target the runtime has no code for, so even its own fill "
     "kernel cannot run",
     compute_found_no_code},
    {"iommu.mode", "runtime.compute",
     "the IOMMU translates every DMA transfer, which slows host-device copies", compute_slow},
    // --smoke: torch cannot run for a reason a check of the files already names.
    {"torch.cpu-wheel", "torch.smoke", "a CPU-only build of torch has no GPU code to run",
     smoke_cpu_build},
    {"torch.cuda-wheel", "torch.smoke", "a CUDA build of torch cannot use AMD GPUs",
     smoke_cuda_build},
    {"arch.unsupported", "torch.smoke",
     "the rules say the wheel has no code for the GPU's target, and running it confirms it",
     smoke_no_code},
    {"torch.arch-missing", "torch.smoke",
     "the wheel's binaries have no code for the GPU's target, and running it confirms it",
     smoke_no_code},
    {"perm.kfd", "torch.smoke", "torch finds no GPU because this user cannot open /dev/kfd",
     smoke_no_gpu},
    {"env.visible-devices", "torch.smoke", "the visible-device variables hide the GPUs from torch",
     smoke_no_gpu},
    // Permissions: the session or the container lacks the group, so the nodes do not open.
    {"perm.container-groups", "perm.kfd",
     "the container was started without /dev/kfd's group (--group-add)", kfd_group_not_added},
    {"perm.container-groups", "perm.render",
     "the container was started without the render nodes' group (--group-add)",
     render_group_not_added},
    {"perm.relogin", "perm.kfd",
     "/etc/group gives the user /dev/kfd's group, but this session started before that",
     kfd_group_not_in_session},
    {"perm.relogin", "perm.render",
     "/etc/group gives the user the render nodes' group, but this session started before that",
     render_group_not_in_session},
    {"perm.kfd", "perm.render",
     "one missing group (the same fix) denies /dev/kfd and the render nodes; /dev/kfd is the "
     "one ROCm opens first",
     cause_has_the_fixes},
    // Kernel driver: nothing binds the GPU, KFD has nothing to offer.
    {"driver.amdgpu-missing", "gpu.not-bound",
     "amdgpu is not loaded (blacklisted, nomodeset, not installed), so no driver binds the GPU",
     unbound_gpus_have_no_driver},
    {"driver.amdgpu-missing", "driver.kfd-missing",
     "inside a container /dev/kfd is missing too when the host has not loaded amdgpu", nullptr},
    {"driver.firmware", "driver.gpu-faults",
     "the GPU runs firmware known to be broken for its target, which hangs and resets it", nullptr},
    {"rocm.agents", "driver.kfd-unusable",
     "KFD rejected the GPU, so /dev/kfd has no GPU to give (open fails with ENOMEM)",
     kfd_open_enomem},
    // GPU targets: an integrated GPU beside a discrete one, overrides, wheels.
    {"gpu.igpu-visible", "arch.unsupported",
     "the GPU without code is the integrated one, and hiding it (the same fix) is the remedy",
     cause_has_the_fixes},
    {"gpu.igpu-visible", "arch.override-wrong",
     "the override is wrong for the integrated GPU only, and hiding it (the same fix) is the "
     "remedy",
     cause_has_the_fixes},
    {"arch.override-wrong", "arch.unsupported",
     "a per-node override the ROCm in use does not read leaves the GPU its own target, which "
     "the wheel has no code for",
     per_node_override_unread},
    {"arch.unsupported", "arch.override-wrong",
     "the override names a target without code too; the remedies for the target (the same "
     "fixes) are the way out",
     cause_has_the_fixes},
    {"arch.unsupported", "torch.arch-missing",
     "the rules say the wheel has no code for the target, and its binaries confirm it (the same "
     "fixes)",
     cause_has_the_fixes},
    // Many GPUs: one cause, reported once.
    {"iommu.mode", "topology.p2p",
     "the translating IOMMU is why the GPUs' peer traffic goes through translation (the same "
     "fix: iommu=pt)",
     cause_has_the_fixes},
    {"gpu.small-bar", "topology.p2p",
     "the kernel allows PCIe peer-to-peer only to a GPU whose whole VRAM its BAR maps (the same "
     "fix: Resizable BAR)",
     cause_has_the_fixes},
    {"env.debug-left-on", "topology.p2p",
     "NCCL_P2P_DISABLE left set is why RCCL does not use the GPUs' direct paths (the same fix)",
     cause_has_the_fixes},
    {"arch.override-unneeded", "arch.override-mixed",
     "no GPU needs the global override, so removing it (the same fix) ends both",
     cause_has_the_fixes},
    {"arch.override-mixed", "arch.override-unneeded",
     "one GPU needs the override and another does not: a per-node value, not removing it, is "
     "the remedy",
     cause_has_other_fixes},
};

/// Whether `from`, following caused_by, reaches `to`.
bool reaches(const std::vector<CheckRecord>& records, std::size_t from, std::size_t to) {
  for (std::size_t steps = 0; steps <= records.size(); ++steps) {
    if (from == to) {
      return true;
    }
    const auto& causes = records[from].result.caused_by;
    if (causes.empty()) {
      return false;
    }
    const auto next = std::find_if(records.begin(), records.end(), [&](const CheckRecord& r) {
      return r.info != nullptr && r.info->id == causes.front();
    });
    if (next == records.end()) {
      return false;
    }
    from = static_cast<std::size_t>(next - records.begin());
  }
  return true;  // a loop that does not pass `to`: treat it as one
}

}  // namespace

std::span<const CauseRule> cause_rules() { return k_rules; }

bool is_finding(const CheckResult& result) {
  return result.status == Status::fail || result.status == Status::warn;
}

namespace {

int rank(Severity severity) {
  return severity == Severity::error ? 2 : severity == Severity::warning ? 1 : 0;
}

/// A cause is at least as severe as what follows from it: a warning whose fix clears an error
/// is an error (N17: an error folded under a warning root drained Slurm nodes with the
/// warning's name and hid the error from --fail-on readers of the root alone).
template <typename Find>
void raise_causes_to_their_consequences(std::vector<CheckRecord>& records, const Find& find) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& record : records) {
      const CheckResult& follows = record.result;
      if (follows.caused_by.empty()) {
        continue;
      }
      const auto cause = find(follows.caused_by.front());
      if (!cause) {
        continue;
      }
      CheckResult& origin = records[*cause].result;
      if (rank(follows.severity) > rank(origin.severity)) {
        origin.severity = follows.severity;
        if (follows.status == Status::fail) {
          origin.status = Status::fail;
        }
        changed = true;
      }
    }
  }
}

}  // namespace

void link_root_causes(std::vector<CheckRecord>& records, const CheckContext& context,
                      std::span<const CauseRule> rules) {
  const auto find = [&](std::string_view id) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].info != nullptr && records[i].info->id == id) {
        return i;
      }
    }
    return std::nullopt;
  };
  for (auto& record : records) {
    record.result.caused_by.clear();
  }
  for (const auto& rule : rules) {
    const auto cause = find(rule.cause);
    const auto consequence = find(rule.consequence);
    if (!cause || !consequence || *cause == *consequence) {
      continue;
    }
    CheckResult& follows = records[*consequence].result;
    const CheckResult& origin = records[*cause].result;
    if (!follows.caused_by.empty() || !is_finding(follows) || !is_finding(origin)) {
      continue;
    }
    if (rule.holds != nullptr && !rule.holds(origin, follows, context)) {
      continue;
    }
    if (reaches(records, *cause, *consequence)) {
      continue;  // it would close a cycle
    }
    follows.caused_by.emplace_back(rule.cause);
  }
  raise_causes_to_their_consequences(records, find);
}

}  // namespace rocdoc
