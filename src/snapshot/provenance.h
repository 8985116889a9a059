// What a snapshot made by `rocdoc snapshot` says about its capture, and where today's findings
// differ from the report it holds (report.json).
#pragma once

#include <optional>
#include <string>

#include "rocdoc/report.h"
#include "src/hosts/snapshot.h"

namespace rocdoc {

/// nullopt for a snapshot that records no capture (a hand-written fixture): one without
/// `rules_revision` in its manifest and without report.json. `capture_report` is the text of
/// report.json; one that is not a rocdoc report is ignored (no comparison).
std::optional<CaptureProvenance> capture_provenance(
    const SnapshotManifest& manifest, const std::optional<std::string>& capture_report,
    const Report& now);

/// The report's note lines for it: when and with what it was made, and what changed.
std::vector<std::string> capture_notes(const CaptureProvenance& capture,
                                       const std::string& rules_revision_now);

}  // namespace rocdoc
