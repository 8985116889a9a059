// JSON form of the facts, for --json and for -v.
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/facts.h"

namespace rocdoc {

nlohmann::ordered_json facts_to_json(const Facts& facts);

}  // namespace rocdoc
