#include "src/checks/gpu_topology.h"

#include <algorithm>

namespace rocdoc {

namespace {

/// KFD's weight of one XGMI hop (KFD_CRAT_XGMI_WEIGHT): an XGMI io_link weighs hops × 15.
constexpr std::uint32_t k_xgmi_hop_weight = 15;

const KfdNode* node_of(const AmdGpu& gpu) {
  return gpu.kfd_nodes.empty() ? gpu.kfd : gpu.kfd_nodes.front();
}

std::optional<std::uint64_t> vram_of(const AmdGpu& gpu) {
  if (gpu.pci != nullptr && gpu.pci->memory.vram_total) {
    return gpu.pci->memory.vram_total;
  }
  return std::nullopt;
}

TopologyGpu topology_gpu(const AmdGpu& gpu) {
  TopologyGpu out;
  out.name = gpu.name;
  out.bdf = gpu.bdf;
  out.gfx_target = gpu.gfx_target();
  out.integrated = gpu.integrated();
  if (const KfdNode* node = node_of(gpu)) {
    out.kfd_node = node->index;
    if (node->hive_id && *node->hive_id != 0) {
      out.hive_id = node->hive_id;
    }
  }
  if (gpu.pci != nullptr) {
    out.numa_node = gpu.pci->numa_node;
    out.local_cpus = gpu.pci->local_cpus;
    out.link = gpu.pci->link;
    out.bar = largest_bar(*gpu.pci);
    out.iommu_domain = gpu.pci->iommu_domain;
    if (!gpu.pci->upstream.empty()) {
      out.root_port = gpu.pci->upstream.front();
    }
  }
  out.vram = vram_of(gpu);
  return out;
}

/// KFD's link from node `from` to node `to` among `links`; null when there is none.
const KfdIoLink* link_to(const std::vector<KfdIoLink>& links, int to) {
  const auto it = std::find_if(links.begin(), links.end(),
                               [&](const KfdIoLink& link) { return link.node_to == to; });
  return it == links.end() ? nullptr : &*it;
}

/// KFD lists every io_link the node counts: a missing link is a fact, not a truncated tree.
bool io_links_complete(const KfdNode& node) {
  return node.io_links_count && *node.io_links_count == node.io_links.size();
}

bool p2p_links_complete(const KfdNode& node) {
  return node.p2p_links_count && *node.p2p_links_count == node.p2p_links.size();
}

/// "0000:05" of "0000:05:00.0": the domain and bus of a root port, that is its host bridge.
std::string host_bridge_of(const std::string& root_port) { return root_port.substr(0, 7); }

/// The PCIe kind of a pair from their paths (upstream BDFs from the root port down).
GpuLinkKind pcie_kind(const PciDevice& a, const PciDevice& b, std::string& meets_at) {
  if (a.upstream.empty() || b.upstream.empty()) {
    return GpuLinkKind::unknown;
  }
  const auto [end_a, end_b] =
      std::mismatch(a.upstream.begin(), a.upstream.end(), b.upstream.begin(), b.upstream.end());
  if (end_a != a.upstream.begin()) {
    meets_at = *(end_a - 1);
    return GpuLinkKind::pcie_switch;  // a root port has one link: below it the paths met in a
                                      // switch
  }
  if (a.numa_node && b.numa_node && *a.numa_node != *b.numa_node) {
    return GpuLinkKind::pcie_system;
  }
  return host_bridge_of(a.upstream.front()) == host_bridge_of(b.upstream.front())
             ? GpuLinkKind::pcie_host
             : GpuLinkKind::pcie_node;
}

/// The bridge where a path enters the switch both paths meet in: its first port below `meets_at`.
const PciDevice* port_below(const Facts& facts, const PciDevice& gpu, const std::string& meets_at) {
  const auto at = std::find(gpu.upstream.begin(), gpu.upstream.end(), meets_at);
  if (at == gpu.upstream.end() || at + 1 == gpu.upstream.end()) {
    return nullptr;
  }
  return facts.pci ? facts.pci->find(*(at + 1)) : nullptr;
}

/// rocm-smi's weight of a PCIe pair: each GPU's io_link to its CPU node, and the CPU nodes'
/// link between them when those differ.
std::optional<std::uint32_t> pcie_weight(const Facts& facts, const KfdNode& a, const KfdNode& b) {
  const auto to_cpu = [&](const KfdNode& node) -> const KfdIoLink* {
    for (const auto& link : node.io_links) {
      if (link.type == KfdIoLink::pcie && link.weight) {
        return &link;
      }
    }
    return nullptr;
  };
  const KfdIoLink* from_a = to_cpu(a);
  const KfdIoLink* from_b = to_cpu(b);
  if (from_a == nullptr || from_b == nullptr) {
    return std::nullopt;
  }
  std::uint32_t weight = *from_a->weight + *from_b->weight;
  if (from_a->node_to != from_b->node_to) {
    const auto cpu = std::find_if(facts.kfd->nodes.begin(), facts.kfd->nodes.end(),
                                  [&](const KfdNode& n) { return n.index == from_a->node_to; });
    const KfdIoLink* between =
        cpu == facts.kfd->nodes.end() ? nullptr : link_to(cpu->io_links, from_b->node_to);
    if (between == nullptr || !between->weight) {
      return std::nullopt;
    }
    weight += *between->weight;
  }
  return weight;
}

/// amdgpu's pcie_p2p as sysfs shows it ("Y", "N"); null when not read.
const std::string* pcie_p2p(const Facts& facts) {
  return facts.driver ? facts.driver->parameter("amdgpu", "pcie_p2p") : nullptr;
}

/// amdgpu can make GPU→GPU p2p_links: it has pcie_p2p (CONFIG_HSA_AMD_P2P upstream).
bool kernel_makes_peer_links(const Facts& facts) { return pcie_p2p(facts) != nullptr; }

void judge_pcie_pair(const Facts& facts, const AmdGpu& a, const AmdGpu& b,
                     const GpuTopology& topology, TopologyLink& link) {
  if (a.pci == nullptr || b.pci == nullptr) {
    return;
  }
  link.kind = pcie_kind(*a.pci, *b.pci, link.meets_at);
  const TopologyGpu& ta = topology.gpus[static_cast<std::size_t>(link.first)];
  const TopologyGpu& tb = topology.gpus[static_cast<std::size_t>(link.second)];
  if (translating_domain(ta.iommu_domain) || translating_domain(tb.iommu_domain)) {
    link.blocks.push_back(PeerBlock::iommu_translation);
  }
  if (link.kind == GpuLinkKind::pcie_switch) {
    for (const AmdGpu* gpu : {&a, &b}) {
      const PciDevice* port = port_below(facts, *gpu->pci, link.meets_at);
      if (port != nullptr && port->acs && port->acs->redirects()) {
        link.blocks.push_back(PeerBlock::acs_redirect);
        break;
      }
    }
  }
  if (bar_smaller_than_vram(ta) || bar_smaller_than_vram(tb)) {
    link.blocks.push_back(PeerBlock::small_bar);
  }
  if (const std::string* p2p = pcie_p2p(facts); p2p != nullptr && *p2p == "N") {
    link.blocks.push_back(PeerBlock::p2p_switched_off);
  }
}

void judge_pair(const Facts& facts, const AmdGpu& a, const AmdGpu& b, GpuTopology& topology,
                TopologyLink& link) {
  const KfdNode* na = node_of(a);
  const KfdNode* nb = node_of(b);
  if (na != nullptr && nb != nullptr) {
    const KfdIoLink* xgmi = link_to(na->io_links, nb->index);
    if (xgmi != nullptr && xgmi->type == KfdIoLink::xgmi) {
      link.kind = GpuLinkKind::xgmi;
      link.weight = xgmi->weight;
      link.max_bandwidth = xgmi->max_bandwidth;
      if (xgmi->weight && *xgmi->weight % k_xgmi_hop_weight == 0) {
        link.hops = *xgmi->weight / k_xgmi_hop_weight;
      }
      link.p2p = PeerAccess::yes;
      return;
    }
    const auto& ga = topology.gpus[static_cast<std::size_t>(link.first)];
    const auto& gb = topology.gpus[static_cast<std::size_t>(link.second)];
    if (ga.hive_id && ga.hive_id == gb.hive_id) {
      if (io_links_complete(*na) && io_links_complete(*nb)) {
        link.hive_without_xgmi = true;  // KFD gives every pair of a hive an XGMI io_link
      } else {
        // A tree without all of its io_links (a partial capture): one hive is the kernel's
        // word that they share XGMI; its hops and weight are unknown.
        link.kind = GpuLinkKind::xgmi;
        link.p2p = PeerAccess::yes;
        return;
      }
    }
  }
  judge_pcie_pair(facts, a, b, topology, link);
  if (na != nullptr && nb != nullptr && facts.kfd) {
    link.weight = pcie_weight(facts, *na, *nb);
    if (link_to(na->p2p_links, nb->index) != nullptr ||
        link_to(nb->p2p_links, na->index) != nullptr) {
      link.p2p = PeerAccess::yes;
    } else if (kernel_makes_peer_links(facts) && p2p_links_complete(*na) &&
               p2p_links_complete(*nb)) {
      link.p2p = PeerAccess::no;
    }
  }
}

}  // namespace

std::optional<std::uint64_t> largest_bar(const PciDevice& device) {
  std::optional<std::uint64_t> largest;
  for (const auto& bar : device.bars) {
    largest = std::max(largest.value_or(0), bar.size);
  }
  return largest;
}

bool bar_smaller_than_vram(const TopologyGpu& gpu) {
  return !gpu.integrated && gpu.bar && gpu.vram && *gpu.bar < *gpu.vram;
}

bool translating_domain(const std::optional<std::string>& domain) {
  return domain && (*domain == "DMA" || *domain == "DMA-FQ");
}

std::vector<const TopologyLink*> discrete_pairs(const GpuTopology& topology) {
  std::vector<const TopologyLink*> pairs;
  for (const auto& link : topology.links) {
    if (!topology.gpus[static_cast<std::size_t>(link.first)].integrated &&
        !topology.gpus[static_cast<std::size_t>(link.second)].integrated) {
      pairs.push_back(&link);
    }
  }
  return pairs;
}

bool direct_peer_path(const TopologyLink& link) {
  return link.kind == GpuLinkKind::xgmi || (link.kind == GpuLinkKind::pcie_switch &&
                                            link.p2p != PeerAccess::no && link.blocks.empty());
}

bool every_pair_direct(const GpuTopology& topology) {
  const auto pairs = discrete_pairs(topology);
  return !pairs.empty() && std::all_of(pairs.begin(), pairs.end(), [](const TopologyLink* link) {
    return direct_peer_path(*link);
  });
}

GpuTopology build_gpu_topology(const Facts& facts, const std::vector<AmdGpu>& gpus) {
  GpuTopology topology;
  for (const AmdGpu& gpu : gpus) {
    topology.gpus.push_back(topology_gpu(gpu));
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      TopologyLink link;
      link.first = static_cast<int>(i);
      link.second = static_cast<int>(j);
      judge_pair(facts, gpus[i], gpus[j], topology, link);
      topology.links.push_back(std::move(link));
    }
  }
  return topology;
}

}  // namespace rocdoc
