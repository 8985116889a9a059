// A RuntimeReport in a snapshot manifest (`runtime`, docs/snapshot-extensions.md): written by
// `rocdoc snapshot --deep`, replayed by `check --snapshot` whether or not --deep is given.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocdoc/runtime.h"

namespace rocdoc::runtime {

nlohmann::json runtime_report_json(const RuntimeReport& report);

/// Reads a manifest's `runtime`; throws SnapshotError naming `file` and the key.
RuntimeReport parse_runtime_report(const nlohmann::json& value, const std::string& file);

std::string_view ending_name(ChildEnding ending);

/// The runtime probe's facts in the JSON report (`facts.runtime`, docs/report.schema.json).
nlohmann::ordered_json runtime_facts_json(const RuntimeFacts& facts);

}  // namespace rocdoc::runtime
