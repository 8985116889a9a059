// Joins the PCI functions, KFD nodes and knowledge base into one list of AMD GPUs.
#include <algorithm>

#include "rocdoc/check.h"

namespace rocdoc {

namespace {

std::string product_name(const AmdGpu& gpu, const Knowledge& knowledge) {
  if (gpu.pci != nullptr && !gpu.pci->device_name.empty()) {
    return gpu.pci->device_name;
  }
  const std::uint16_t device = gpu.pci != nullptr   ? gpu.pci->device
                               : gpu.kfd != nullptr ? gpu.kfd->device_id
                                                    : 0;
  if (const auto* known = knowledge.amd_pci_id(device)) {
    return known->name;
  }
  if (gpu.target != nullptr && !gpu.target->products.empty()) {
    return gpu.target->products.front();
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "AMD GPU 1002:%04x", device);
  return buffer;
}

const GfxTarget* target_for(const AmdGpu& gpu, const Knowledge& knowledge) {
  if (gpu.kfd != nullptr && !gpu.kfd->gfx_target.empty()) {
    if (const auto* target = knowledge.target(gpu.kfd->gfx_target)) {
      return target;
    }
  }
  const std::uint16_t device = gpu.pci != nullptr   ? gpu.pci->device
                               : gpu.kfd != nullptr ? gpu.kfd->device_id
                                                    : 0;
  if (const auto* known = knowledge.amd_pci_id(device)) {
    return knowledge.target(known->gfx);
  }
  return nullptr;
}

}  // namespace

bool AmdGpu::integrated() const { return target != nullptr && target->kind == GpuKind::apu; }

bool AmdGpu::instinct() const { return target != nullptr && target->kind == GpuKind::instinct; }

std::vector<AmdGpu> build_gpu_inventory(const Facts& facts, const Knowledge& knowledge) {
  std::vector<AmdGpu> gpus;
  if (facts.pci) {
    for (const auto& device : facts.pci->devices) {
      if (!device.is_amd_gpu()) {
        continue;
      }
      AmdGpu gpu;
      gpu.pci = &device;
      gpu.bdf = device.bdf;
      gpu.kfd = facts.kfd ? facts.kfd->gpu_by_bdf(device.bdf) : nullptr;
      gpus.push_back(gpu);
    }
  }
  if (facts.kfd) {
    // GPUs KFD knows but the PCI bus does not show (some containers).
    for (const auto& node : facts.kfd->nodes) {
      const bool listed =
          std::any_of(gpus.begin(), gpus.end(), [&](const AmdGpu& g) { return g.kfd == &node; });
      if (node.is_gpu() && node.vendor_id == 0x1002 && !listed) {
        AmdGpu gpu;
        gpu.kfd = &node;
        gpu.bdf = node.bdf.value_or("");
        gpus.push_back(gpu);
      }
    }
  }
  for (auto& gpu : gpus) {
    gpu.target = target_for(gpu, knowledge);
    gpu.name = product_name(gpu, knowledge);
  }
  return gpus;
}

}  // namespace rocdoc
