// The probe table: one row per probe, in report order (fastfetch's module list, ninja's kTools).
// Each probe fills its own member of Facts; one that reads another's facts names it
// (reads_facts_of) and runs after it. On the live machine the others run side by side, the
// slow ones (python, kernel_log: keep them near the end) first (src/pipeline/run_report.cpp).
#include "rocdoc/probes.h"

#include "probes/access.h"
#include "probes/driver.h"
#include "probes/kernel_log.h"
#include "probes/kfd_topology.h"
#include "probes/packages.h"
#include "probes/pci.h"
#include "probes/python.h"
#include "probes/rocm.h"
#include "probes/runtime.h"
#include "probes/smoke.h"
#include "probes/system.h"
#include "probes/tuning.h"

namespace rocdoc {

namespace {

EnvFacts probe_env(const ProbeContext& context) {
  EnvFacts env;
  for (auto& [name, value] : context.host.environment()) {
    env.variables.emplace(name, value);
  }
  return env;
}

/// One row: the probe's name, what it reads, and which member of Facts it fills.
#define ROCDOC_PROBE(name, member, function, description)                               \
  ProbeInfo {                                                                           \
    name, description, [](const ProbeContext& c, Facts& f) { f.member = function(c); }, \
        [](const Facts& f) { return f.member.has_value(); }                             \
  }

const ProbeInfo k_probes[] = {
    ROCDOC_PROBE("pci", pci, probe_pci,
                 "PCI functions under /sys/bus/pci/devices, GPU classes, links, drivers"),
    ROCDOC_PROBE("driver", driver, probe_driver,
                 "amdgpu module state, DKMS version, blacklists, kernel command line, Secure Boot"),
    ROCDOC_PROBE("access", access, probe_access,
                 "/dev/kfd and render nodes: mode, owner, open result; identity; /etc/group"),
    ROCDOC_PROBE("kfd_topology", kfd, probe_kfd_topology,
                 "KFD topology nodes: CPU/GPU agents, gfx targets, render minors, io_links"),
    ROCDOC_PROBE("system", system, probe_system,
                 "OS release, kernel, NUMA balancing, IOMMU, container, WSL, /dev/shm"),
    ROCDOC_PROBE(
        "rocm", rocm, probe_rocm,
        "ROCm installs under /opt, ROCM_PATH, HIP libraries on LD_LIBRARY_PATH, WSL runtime"),
    ROCDOC_PROBE("packages", packages, probe_packages,
                 "package databases (dpkg status, rpmdb.sqlite, pacman local): versions of "
                 "ROCm, amdgpu, HIP, torch and kernel packages"),
    ROCDOC_PROBE("python", python, probe_python,
                 "Python environments (venv, conda, PATH, system, user site) and their torch"),
    ROCDOC_PROBE("env", env, probe_env, "allow-listed environment variables"),
    ROCDOC_PROBE("tuning", tuning, probe_tuning,
                 "the directories MIOpen and TunableOp write tuning results to: owner, mode, "
                 "mount"),
    ROCDOC_PROBE("kernel_log", kernel_log, probe_kernel_log,
                 "this boot's kernel log lines about amdgpu, KFD, the IOMMU and module signing "
                 "(/dev/kmsg, when readable)"),
    // After python: a torch wheel's bundled runtime is the first candidate.
    ProbeInfo{"runtime",
              "--deep only: libamdhip64, librocm_smi64 and libhsa-runtime64 loaded in child "
              "processes with a deadline (or a snapshot's record of them)",
              [](const ProbeContext& c, Facts& f) {
                f.runtime = probe_runtime(c, f.python ? &*f.python : nullptr);
              },
              [](const Facts& f) { return f.runtime.has_value(); }, "python"},
    ProbeInfo{"smoke",
              "--smoke only: each Python environment's torch run on the GPUs by its interpreter "
              "in a child process with a deadline (or a snapshot's record of it)",
              [](const ProbeContext& c, Facts& f) {
                f.smoke = probe_smoke(c, f.python ? &*f.python : nullptr);
              },
              [](const Facts& f) { return f.smoke.has_value(); }, "python"},
};

#undef ROCDOC_PROBE

}  // namespace

std::span<const ProbeInfo> probe_table() { return k_probes; }

const ProbeInfo* find_probe(std::string_view name) {
  for (const auto& probe : k_probes) {
    if (probe.name == name) {
      return &probe;
    }
  }
  return nullptr;
}

}  // namespace rocdoc
