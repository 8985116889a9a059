// The memory part of a GPU's inventory line, shared by the text and Markdown reports.
#pragma once

#include <string>

#include "rocdoc/report.h"

namespace rocdoc {

/// "VRAM 24 GiB (256 MiB CPU-visible), GTT 31.3 GiB"; an APU's VRAM is its BIOS carve-out:
/// "VRAM 512 MiB (BIOS carve-out), GTT 46 GiB". Unknown parts are left out; "" when amdgpu
/// told nothing (older snapshots, a GPU without the amdgpu driver).
std::string gpu_memory_text(const InventoryGpu& gpu);

}  // namespace rocdoc
