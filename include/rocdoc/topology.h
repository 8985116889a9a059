// The GPU×GPU topology of the AMD GPUs: plain data, built from the facts by
// src/checks/gpu_topology.cpp and kept in the Report, where `rocdoc topology`, the JSON
// report, the Prometheus output and the fleet merge read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"

namespace rocdoc {

/// How two GPUs reach each other, nearest first (the letters of `nvidia-smi topo -m`).
enum class GpuLinkKind {
  xgmi,         ///< "XGMI": AMD's GPU-to-GPU fabric (KFD io_link type 11)
  pcie_switch,  ///< "PIX": PCIe through a switch below the root port, not the CPU
  pcie_host,    ///< "PHB": PCIe through one host bridge (root complex) of the CPU
  pcie_node,    ///< "NODE": PCIe through two host bridges of one NUMA node
  pcie_system,  ///< "SYS": PCIe across NUMA nodes (the CPUs' interconnect)
  unknown,      ///< a GPU's PCI path is not known
};

/// "XGMI", "PIX", "PHB", "NODE", "SYS", "?".
std::string_view link_label(GpuLinkKind kind);
/// "xgmi", "pcie_switch", …: as JSON writes it.
std::string_view to_string(GpuLinkKind kind);

/// Whether the kernel lets the two GPUs reach each other's memory directly.
enum class PeerAccess {
  yes,      ///< XGMI, or a KFD p2p_link between them (the kernel judged PCIe P2P possible)
  no,       ///< amdgpu can make p2p_links (it has pcie_p2p) and none joins them
  unknown,  ///< a kernel without p2p_links (before 6.0) or without CONFIG_HSA_AMD_P2P, or a
            ///< GPU KFD does not list
};
std::string_view to_string(PeerAccess access);

/// What stands in the way of PCIe peer-to-peer between two GPUs.
enum class PeerBlock {
  iommu_translation,  ///< a GPU's IOMMU domain translates DMA (not identity/passthrough)
  acs_redirect,       ///< a switch port on the path sends peer requests up to the root complex
  small_bar,          ///< a GPU's BAR is smaller than its VRAM: peers cannot map all of it
  p2p_switched_off,   ///< amdgpu's pcie_p2p parameter is off
};
std::string_view to_string(PeerBlock block);

struct TopologyGpu {
  std::string name;
  std::string bdf;  ///< empty when only KFD knows it
  std::string gfx_target;
  std::optional<int> kfd_node;
  bool integrated = false;
  std::optional<int> numa_node;
  std::optional<std::string> local_cpus;
  PciLink link;
  std::optional<std::uint64_t> bar;      ///< the largest memory BAR
  std::optional<std::uint64_t> vram;     ///< amdgpu's VRAM total, else KFD's local memory
  std::optional<std::uint64_t> hive_id;  ///< the XGMI hive; nullopt: in none
  std::optional<std::string> iommu_domain;
  std::string root_port;  ///< the first bridge above it; empty when unknown
};

/// One pair of GPUs (first < second, indexes into GpuTopology::gpus).
struct TopologyLink {
  int first = 0;
  int second = 0;
  GpuLinkKind kind = GpuLinkKind::unknown;
  std::optional<std::uint32_t> hops;           ///< XGMI hops (KFD weight / 15)
  std::optional<std::uint32_t> weight;         ///< KFD's weight, as rocm-smi --showtopo prints it
  std::optional<std::uint32_t> max_bandwidth;  ///< MB/s of an XGMI link, as KFD reports it
  PeerAccess p2p = PeerAccess::unknown;
  std::vector<PeerBlock> blocks;
  std::string meets_at;  ///< PIX: the switch port where the two paths meet
  /// Both GPUs name the same XGMI hive but KFD has no XGMI link between them.
  bool hive_without_xgmi = false;
};

struct GpuTopology {
  std::vector<TopologyGpu> gpus;    ///< the AMD GPUs, in the inventory's order
  std::vector<TopologyLink> links;  ///< every pair once

  const TopologyLink* link(int a, int b) const;
};

}  // namespace rocdoc
