// Probe "pci": PCI functions from /sys/bus/pci/devices, named through libpci and rules/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

PciFacts probe_pci(const ProbeContext& context);

/// Display (0x03) and processing-accelerator (0x12) functions are GPUs; which kind.
std::optional<GpuVendor> classify_gpu(std::uint16_t vendor, std::uint32_t class_code);

/// True for "0000:03:00.0".
bool is_bdf(std::string_view text);

/// The BDFs above a function in its sysfs path ("…/0000:00:01.1/0000:01:00.0/0000:03:00.0"
/// → ["0000:00:01.1", "0000:01:00.0"]).
std::vector<std::string> upstream_from_sysfs_path(std::string_view path);

/// "16\n" → 16; "0" or garbage → nullopt.
std::optional<int> parse_link_width(std::string_view text);

/// amdgpu's ras/<block>_err_count: "ue: 1\nce: 0\n"; nullopt unless both counts are there.
std::optional<RasCount> parse_ras_count(std::string_view text);

}  // namespace rocdoc
