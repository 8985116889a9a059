// Probe "kfd_topology": KFD's view of CPU and GPU agents, their gfx targets and links.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

KfdFacts probe_kfd_topology(const ProbeContext& context);

/// A KFD `properties` file: "key value" lines with unsigned values.
std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view content);

/// Builds a node from its parsed properties (gfx target decoded, BDF from location_id).
/// An io_links/ or p2p_links/ entry from its properties (type, node_from, node_to, weight, …).
KfdIoLink kfd_link_from_properties(int index,
                                   const std::map<std::string, std::uint64_t>& properties);

KfdNode kfd_node_from_properties(int index, const std::map<std::string, std::uint64_t>& properties);

/// Kernels before gfx_target_version (and old DKMS builds): the target from the device id,
/// as libhsakmt derives it; records that it came from there.
void target_from_device_id(KfdNode& node, const Knowledge& knowledge);

/// The BDF at the end of a /sys/class/drm/renderD<N>/device link target.
std::optional<std::string> bdf_of_device_link(std::string_view target);

/// KFD's location_id is bus << 8 | device << 3 | function.
std::string bdf_from_location(std::uint32_t domain, std::uint32_t location_id);

}  // namespace rocdoc
