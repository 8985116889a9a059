// JSON form of the facts, for --json and for -v.
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/facts.h"

namespace rocdoc {

nlohmann::ordered_json facts_to_json(const Facts& facts);

/// An open() result as the report and a snapshot's `nodes` write it: "rw", "r", "w", "none".
std::string_view access_name(OpenAccess access);

}  // namespace rocdoc
