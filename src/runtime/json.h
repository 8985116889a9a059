// A RuntimeReport in a snapshot manifest (`runtime`, docs/snapshot-extensions.md): written by
// `rocdoc snapshot --deep`, replayed by `check --snapshot` whether or not --deep is given.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "rocdoc/runtime.h"

namespace rocdoc::runtime {

nlohmann::json runtime_report_json(const RuntimeReport& report);

/// Reads a manifest's `runtime`; throws SnapshotError naming `file` and the key.
RuntimeReport parse_runtime_report(const nlohmann::json& value, const std::string& file);

std::string_view ending_name(ChildEnding ending);
/// The ending a manifest names ("exited", "signaled", "timed_out", "not_started"); nullopt for
/// any other text.
std::optional<ChildEnding> ending_from_name(std::string_view name);

/// A value in a JSON report, or null when unknown.
template <typename T>
nlohmann::ordered_json maybe(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

/// The runtime probe's facts in the JSON report (`facts.runtime`, docs/report.schema.json).
nlohmann::ordered_json runtime_facts_json(const RuntimeFacts& facts);

}  // namespace rocdoc::runtime
