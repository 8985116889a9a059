// Joins the PCI functions, KFD nodes and knowledge base into one list of AMD GPUs.
#include <algorithm>
#include <map>
#include <set>

#include "rocdoc/check.h"

namespace rocdoc {

namespace {

constexpr std::uint16_t k_amd = 0x1002;

std::uint16_t device_id_of(const AmdGpu& gpu) {
  return gpu.pci != nullptr ? gpu.pci->device : gpu.kfd != nullptr ? gpu.kfd->device_id : 0;
}

std::string product_name(const AmdGpu& gpu, const Knowledge& knowledge) {
  if (gpu.pci != nullptr && !gpu.pci->device_name.empty()) {
    return gpu.pci->device_name;
  }
  if (const auto* known = knowledge.amd_pci_id(device_id_of(gpu))) {
    return known->name_for(gpu.pci != nullptr ? gpu.pci->revision : std::nullopt);
  }
  if (gpu.target != nullptr && !gpu.target->products.empty()) {
    return gpu.target->products.front();
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "AMD GPU 1002:%04x", device_id_of(gpu));
  return buffer;
}

bool amd_gpu_node(const KfdNode& node) { return node.is_gpu() && node.vendor_id == k_amd; }

bool on_amdgpu(const AmdGpu& gpu) { return gpu.pci != nullptr && gpu.pci->driver == "amdgpu"; }

/// Pairs KFD GPU nodes with PCI functions, most certain evidence first; a node is used once.
class KfdMatcher {
 public:
  KfdMatcher(std::vector<AmdGpu>& gpus, const KfdFacts& kfd) : m_gpus(gpus) {
    for (const auto& node : kfd.nodes) {
      if (amd_gpu_node(node)) {
        m_unmatched.push_back(&node);
      }
    }
  }

  void match() {
    // domain + location_id; further nodes at the same address are partitions of that GPU.
    take([&](const KfdNode& node) { return by_bdf(node.bdf, Partitions::join); },
         KfdMatch::location);
    // Partitions of an MI300 in CPX/DPX mode: older kernels OR the partition into location_id's
    // function bits (05:00.1 … 05:00.7), and every partition keeps the GPU's unique_id.
    take([&](const KfdNode& node) { return partition_owner(node); }, KfdMatch::location);
    take([&](const KfdNode& node) { return by_bdf(node.render_bdf, Partitions::separate); },
         KfdMatch::render_node);
    match_by_device_id();
    match_by_position();
  }

  /// Nodes no PCI function claimed: GPUs only KFD shows (the bus is not visible here).
  const std::vector<const KfdNode*>& unmatched() const { return m_unmatched; }

 private:
  enum class Partitions { join, separate };

  AmdGpu* by_bdf(const std::optional<std::string>& bdf, Partitions partitions) {
    if (!bdf) {
      return nullptr;
    }
    for (auto& gpu : m_gpus) {
      if (gpu.pci != nullptr && gpu.bdf == *bdf &&
          (gpu.kfd == nullptr || partitions == Partitions::join)) {
        return &gpu;
      }
    }
    return nullptr;
  }

  AmdGpu* partition_owner(const KfdNode& node) {
    for (auto& gpu : m_gpus) {
      if (gpu.kfd == nullptr || gpu.kfd->device_id != node.device_id) {
        continue;
      }
      const bool same_uuid =
          node.unique_id && *node.unique_id != 0 && gpu.kfd->unique_id == node.unique_id;
      const bool same_slot = node.bdf && node.bdf->size() == 12 && gpu.bdf.size() == 12 &&
                             node.bdf->substr(0, 10) == gpu.bdf.substr(0, 10);
      if (same_uuid || same_slot) {
        return &gpu;
      }
    }
    return nullptr;
  }

  template <typename Find>
  void take(Find find, KfdMatch how) {
    std::vector<const KfdNode*> left;
    for (const KfdNode* node : m_unmatched) {
      if (AmdGpu* gpu = find(*node)) {
        attach(*gpu, *node, how);
      } else {
        left.push_back(node);
      }
    }
    m_unmatched = std::move(left);
  }

  static void attach(AmdGpu& gpu, const KfdNode& node, KfdMatch how) {
    if (gpu.kfd == nullptr) {
      gpu.kfd = &node;
      gpu.matched_by = how;
    }
    gpu.kfd_nodes.push_back(&node);
  }

  std::vector<AmdGpu*> open_functions() {
    std::vector<AmdGpu*> open;
    for (auto& gpu : m_gpus) {
      if (gpu.kfd == nullptr && on_amdgpu(gpu)) {
        open.push_back(&gpu);
      }
    }
    return open;
  }

  void match_by_device_id() {
    std::map<std::uint16_t, std::vector<AmdGpu*>> functions;
    for (AmdGpu* gpu : open_functions()) {
      functions[gpu->pci->device].push_back(gpu);
    }
    std::map<std::uint16_t, int> nodes;
    for (const KfdNode* node : m_unmatched) {
      ++nodes[node->device_id];
    }
    take(
        [&](const KfdNode& node) -> AmdGpu* {
          const auto it = functions.find(node.device_id);
          if (it == functions.end() || it->second.size() != 1 || nodes[node.device_id] != 1) {
            return nullptr;
          }
          return it->second.front();
        },
        KfdMatch::device_id);
  }

  /// Last resort when the bus is visible: an unclaimed node beside an unclaimed function on
  /// amdgpu is that function (never a second GPU), paired in topology and BDF order.
  void match_by_position() {
    auto open = open_functions();
    std::size_t next = 0;
    take([&](const KfdNode&) { return next < open.size() ? open[next++] : nullptr; },
         KfdMatch::position);
  }

  std::vector<AmdGpu>& m_gpus;
  std::vector<const KfdNode*> m_unmatched;
};

/// GPUs of the host this process was not given: the device cgroup refuses their KFD
/// properties (EPERM), and a container lacks their render node. Only when some GPU was given:
/// a container with no GPU at all is driver.kfd-missing's finding.
void separate_withheld(GpuInventory& inventory, const Facts& facts) {
  int refused = facts.kfd ? facts.kfd->withheld_count() : 0;
  const bool container = facts.system && facts.system->container.has_value();
  std::set<std::uint32_t> present;
  if (facts.access) {
    for (const auto& node : facts.access->render_nodes) {
      if (node.stat.minor) {
        present.insert(*node.stat.minor);
      }
    }
  }
  std::vector<AmdGpu> given;
  std::vector<AmdGpu> withheld;
  for (auto& gpu : inventory.gpus) {
    bool out = false;
    if (gpu.kfd == nullptr && on_amdgpu(gpu)) {
      const bool render_missing =
          container && !present.empty() && gpu.pci->render_minor &&
          present.count(static_cast<std::uint32_t>(*gpu.pci->render_minor)) == 0;
      out = render_missing || refused > 0;
      if (out && refused > 0) {
        --refused;
      }
    }
    (out ? withheld : given).push_back(std::move(gpu));
  }
  if (given.empty()) {
    return;
  }
  inventory.gpus = std::move(given);
  inventory.withheld = std::move(withheld);
}

}  // namespace

std::string AmdGpu::gfx_target() const {
  if (kfd != nullptr && !kfd->gfx_target.empty()) {
    return kfd->gfx_target;
  }
  return target != nullptr ? target->name : std::string();
}

bool CheckContext::reachable(const AmdGpu& gpu) const {
  if (gpu.kfd != nullptr || gpu.declared) {
    return true;
  }
  const bool kfd_lists_gpus = std::any_of(amd_gpus.begin(), amd_gpus.end(),
                                          [](const AmdGpu& g) { return g.kfd != nullptr; });
  return !kfd_lists_gpus && on_amdgpu(gpu);
}

bool AmdGpu::integrated() const { return target != nullptr && target->kind == GpuKind::apu; }

bool AmdGpu::instinct() const { return target != nullptr && target->kind == GpuKind::instinct; }

GpuInventory build_gpu_inventory(const Facts& facts, const Knowledge& knowledge) {
  GpuInventory inventory;
  auto& gpus = inventory.gpus;
  if (facts.pci) {
    for (const auto& device : facts.pci->devices) {
      if (device.is_amd_gpu()) {
        AmdGpu gpu;
        gpu.pci = &device;
        gpu.bdf = device.bdf;
        gpus.push_back(gpu);
      }
    }
  }
  if (facts.kfd) {
    KfdMatcher matcher(gpus, *facts.kfd);
    matcher.match();
    for (const KfdNode* node : matcher.unmatched()) {
      AmdGpu gpu;
      gpu.kfd = node;
      gpu.kfd_nodes.push_back(node);
      gpu.matched_by = KfdMatch::kfd_only;
      gpu.bdf = node->bdf.value_or("");
      gpus.push_back(gpu);
    }
  }
  for (auto& gpu : gpus) {
    if (gpu.kfd != nullptr && !gpu.kfd->gfx_target.empty()) {
      gpu.target = knowledge.target(gpu.kfd->gfx_target);  // KFD is believed, known or not
    } else if (const auto* known = knowledge.amd_pci_id(device_id_of(gpu))) {
      gpu.target = knowledge.target(known->gfx);
    }
    gpu.name = product_name(gpu, knowledge);
  }
  separate_withheld(inventory, facts);
  return inventory;
}

GpuInventory declared_gpu_inventory(const std::vector<DeclaredGpu>& declared,
                                    const Knowledge& knowledge) {
  GpuInventory inventory;
  for (const auto& entry : declared) {
    AmdGpu gpu;
    gpu.target = knowledge.target(entry.gfx_target);
    gpu.name = entry.name;
    gpu.declared = true;
    inventory.gpus.push_back(std::move(gpu));
  }
  return inventory;
}

}  // namespace rocdoc
