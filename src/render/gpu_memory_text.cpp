#include "src/render/gpu_memory_text.h"

#include <vector>

#include "src/util/byte_size.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::string vram_text(const GpuMemory& memory, bool integrated) {
  std::string text = "VRAM " + util::byte_size_text(*memory.vram_total);
  if (integrated) {
    return text + " (BIOS carve-out)";
  }
  if (!memory.vis_vram_total) {
    return text;
  }
  if (*memory.vis_vram_total >= *memory.vram_total) {
    return text + " (all CPU-visible)";
  }
  return text + " (" + util::byte_size_text(*memory.vis_vram_total) + " CPU-visible)";
}

}  // namespace

std::string gpu_memory_text(const InventoryGpu& gpu) {
  std::vector<std::string> parts;
  if (gpu.memory.vram_total) {
    parts.push_back(vram_text(gpu.memory, gpu.integrated));
  }
  if (gpu.memory.gtt_total) {
    parts.push_back("GTT " + util::byte_size_text(*gpu.memory.gtt_total));
  }
  return util::join(parts, ", ");
}

}  // namespace rocdoc
