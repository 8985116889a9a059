// A fix as JSON, in the one shape the check report (docs/report.schema.json) and triage
// (docs/triage.schema.json) share.
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/check_result.h"

namespace rocdoc {

nlohmann::ordered_json fix_json(const Fix& fix);

}  // namespace rocdoc
