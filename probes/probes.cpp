// The probe table: one row per probe, in run order (fastfetch's module list, ninja's kTools).
#include "rocdoc/probes.h"

#include <array>

#include "probes/access.h"
#include "probes/driver.h"
#include "probes/kfd_topology.h"
#include "probes/pci.h"
#include "probes/rocm.h"
#include "probes/system.h"

namespace rocdoc {

namespace {

constexpr std::array k_probes = {
    ProbeInfo{"pci", "PCI functions under /sys/bus/pci/devices, GPU classes, links, drivers",
              [](const ProbeContext& c, Facts& f) { f.pci = probe_pci(c); }},
    ProbeInfo{"driver",
              "amdgpu module state, DKMS version, blacklists, kernel command line, Secure Boot",
              [](const ProbeContext& c, Facts& f) { f.driver = probe_driver(c); }},
    ProbeInfo{"access", "/dev/kfd and render nodes: mode, owner, open result; identity; /etc/group",
              [](const ProbeContext& c, Facts& f) { f.access = probe_access(c); }},
    ProbeInfo{"kfd_topology",
              "KFD topology nodes: CPU/GPU agents, gfx targets, render minors, io_links",
              [](const ProbeContext& c, Facts& f) { f.kfd = probe_kfd_topology(c); }},
    ProbeInfo{"system", "OS release, kernel, NUMA balancing, IOMMU, container, WSL, /dev/shm",
              [](const ProbeContext& c, Facts& f) { f.system = probe_system(c); }},
    ProbeInfo{"rocm",
              "ROCm installs under /opt (rocm-*), their .info/version, where /opt/rocm points",
              [](const ProbeContext& c, Facts& f) { f.rocm = probe_rocm(c); }},
    ProbeInfo{"env", "allow-listed environment variables (overrides, visible devices, paths)",
              [](const ProbeContext& c, Facts& f) {
                EnvFacts env;
                for (auto& [name, value] : c.host.environment()) {
                  env.variables.emplace(name, value);
                }
                f.env = std::move(env);
              }},
};

}  // namespace

std::span<const ProbeInfo> probe_table() { return k_probes; }

}  // namespace rocdoc
