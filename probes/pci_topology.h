// Where a PCI function sits in the machine's topology: its NUMA node and CPUs, its memory BARs,
// its IOMMU group, and (bridges) the ACS that decides whether peer traffic turns back up to the
// root complex. Parsers of the sysfs files take strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/host.h"

namespace rocdoc {

/// The memory BARs (lines 0..5) of a sysfs `resource` file: "0x<start> 0x<end> 0x<flags>" per
/// line; a line of zeros is no BAR, an I/O BAR is not memory.
std::vector<PciBar> parse_pci_resources(std::string_view content);

/// ACS from a function's config space as sysfs `config` hands it out: nullopt when the extended
/// space was not readable (only root reads past the first 64 bytes), absent when the function
/// has no ACS capability (or no extended space at all: 256 bytes, conventional PCI).
std::optional<PciAcs> parse_acs(std::string_view config);

/// sysfs `numa_node`: "-1" (no node) and garbage are nullopt.
std::optional<int> parse_numa_node(std::string_view content);

/// Reads numa_node, local_cpulist, resource and the IOMMU group of the function in `dir`.
void read_placement(const Host& host, const std::string& dir, PciDevice& device);

/// Reads the ACS of every bridge on the path of two or more AMD GPUs.
void read_bridge_acs(const Host& host, std::vector<PciDevice>& devices);

}  // namespace rocdoc
