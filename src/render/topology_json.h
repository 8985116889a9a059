// The JSON form of the GPU×GPU topology (rocdoc/topology.h), shared by the report's `topology`
// and `rocdoc topology --json` (docs/topology.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/topology.h"

namespace rocdoc {

nlohmann::ordered_json topology_to_json(const GpuTopology& topology);

}  // namespace rocdoc
