// The one-line statuses of --format slurm and --format npd: which root causes make the report
// fail its gate, and a bounded line naming them ("rocdoc: perm.kfd, numa.balancing, +2 more").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/report.h"

namespace rocdoc {

/// The root causes of the findings that count under the report's --fail-on, each once, failed
/// checks first and otherwise in report order; then each --require check that did not run, as
/// "ID not run".
std::vector<std::string> gate_causes(const Report& report);

/// `prefix` and as many of `items` (", " between them) as fit in `max_bytes`, with ", +N more"
/// for the N left out; never splits a UTF-8 character (an item too long for the line is cut at a
/// character boundary and ends with "...").
std::string fit_line(std::string_view prefix, const std::vector<std::string>& items,
                     std::size_t max_bytes);

/// What a user whose report shows no problem, and who still has one, does next: the deeper
/// checks not yet run (--deep, --smoke), a redacted snapshot, and where to report it. Plain
/// text with `code` spans, for the human and Markdown reports.
std::string still_a_problem(const Report& report);

}  // namespace rocdoc
