// Probe "access": /dev/kfd and render nodes, the process identity, /etc/group.
#pragma once

#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

AccessFacts probe_access(const ProbeContext& context);

/// Parses /etc/group ("render:x:110:alice,bob"); malformed lines are skipped.
std::vector<GroupEntry> parse_group_file(std::string_view content);

}  // namespace rocdoc
