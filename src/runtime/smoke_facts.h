// --smoke's record and facts: a SmokeReport in a snapshot manifest (`smoke`, written by
// `snapshot --smoke`, replayed by `check --snapshot`), what one run's output says (parsed as
// untrusted text: an interpreter prints what it likes), and the facts in the JSON report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "rocdoc/smoke.h"

namespace rocdoc::runtime {

nlohmann::json smoke_report_json(const SmokeReport& report);

/// Reads a manifest's `smoke`; throws SnapshotError naming `file` and the key.
SmokeReport parse_smoke_report(const nlohmann::json& value, const std::string& file);

/// What a run's output says: its "# step" lines, then its JSON document (the last line).
SmokeResult parse_smoke_output(std::string_view output);

/// A run's facts: how it ended, and what its output says.
SmokeResult smoke_result(const SmokeRun& run);

/// `facts.smoke` of the JSON report (docs/report.schema.json).
nlohmann::ordered_json smoke_facts_json(const SmokeFacts& facts);

}  // namespace rocdoc::runtime
