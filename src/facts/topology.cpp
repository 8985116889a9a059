// The names of the topology's kinds (rocdoc/topology.h), and its pair lookup.
#include "rocdoc/topology.h"

#include <algorithm>

namespace rocdoc {

std::string_view link_label(GpuLinkKind kind) {
  switch (kind) {
    case GpuLinkKind::xgmi:
      return "XGMI";
    case GpuLinkKind::pcie_switch:
      return "PIX";
    case GpuLinkKind::pcie_host:
      return "PHB";
    case GpuLinkKind::pcie_node:
      return "NODE";
    case GpuLinkKind::pcie_system:
      return "SYS";
    case GpuLinkKind::unknown:
      break;
  }
  return "?";
}

std::string_view to_string(GpuLinkKind kind) {
  switch (kind) {
    case GpuLinkKind::xgmi:
      return "xgmi";
    case GpuLinkKind::pcie_switch:
      return "pcie_switch";
    case GpuLinkKind::pcie_host:
      return "pcie_host_bridge";
    case GpuLinkKind::pcie_node:
      return "pcie_numa_node";
    case GpuLinkKind::pcie_system:
      return "pcie_across_numa";
    case GpuLinkKind::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(PeerAccess access) {
  switch (access) {
    case PeerAccess::yes:
      return "yes";
    case PeerAccess::no:
      return "no";
    case PeerAccess::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(PeerBlock block) {
  switch (block) {
    case PeerBlock::iommu_translation:
      return "iommu_translation";
    case PeerBlock::acs_redirect:
      return "acs_redirect";
    case PeerBlock::small_bar:
      return "small_bar";
    case PeerBlock::p2p_switched_off:
      return "pcie_p2p_off";
  }
  return "unknown";
}

const TopologyLink* GpuTopology::link(int a, int b) const {
  if (a > b) {
    std::swap(a, b);
  }
  const auto it = std::find_if(links.begin(), links.end(), [&](const TopologyLink& l) {
    return l.first == a && l.second == b;
  });
  return it == links.end() ? nullptr : &*it;
}

}  // namespace rocdoc
