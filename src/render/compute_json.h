// The JSON form of a target's compute abilities (rules/gfx_targets.yaml `compute`), shared by
// the report's inventory and `rules show --json`.
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/knowledge.h"

namespace rocdoc {

nlohmann::ordered_json compute_to_json(const TargetCompute& compute);

}  // namespace rocdoc
