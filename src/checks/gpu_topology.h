// The GPU×GPU topology (rocdoc/topology.h) from the facts: which pairs share an XGMI hive, where
// their PCIe paths meet, and whether the kernel lets them reach each other directly. Shared by
// topology.p2p, gpu.small-bar and the Report's `topology`.
#pragma once

#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/topology.h"

namespace rocdoc {

GpuTopology build_gpu_topology(const Facts& facts, const std::vector<AmdGpu>& gpus);

/// A GPU's largest memory BAR; nullopt when sysfs gave none.
std::optional<std::uint64_t> largest_bar(const PciDevice& device);

/// The kernel would not call this GPU's BAR large: the CPU and peers cannot map all of its VRAM
/// (amdgpu_device_is_peer_accessible's test: visible VRAM == VRAM). False when unknown.
bool bar_smaller_than_vram(const TopologyGpu& gpu);

/// The pairs of discrete GPUs: an APU's iGPU takes no part in peer-to-peer.
std::vector<const TopologyLink*> discrete_pairs(const GpuTopology& topology);

/// A direct peer path: XGMI, or one PCIe switch that the kernel does not refuse and nothing
/// (IOMMU, ACS, a small BAR) stands in.
bool direct_peer_path(const TopologyLink& link);

/// Two or more discrete GPUs, and every pair of them has a direct peer path.
bool every_pair_direct(const GpuTopology& topology);

/// The IOMMU domain type translates DMA ("DMA", "DMA-FQ"); identity is passthrough.
bool translating_domain(const std::optional<std::string>& domain);

}  // namespace rocdoc
