// --format npd: one status line for Kubernetes' node-problem-detector custom plugin protocol
// (docs/node-problem-detector.md). The exit code carries the status: 0 OK, 1 NonOK.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/report.h"
#include "src/render/status_line.h"  // fit_line, which the tests reach through this header

namespace rocdoc {

/// NPD keeps at most this many bytes of a plugin's standard output (max_output_length).
constexpr std::size_t k_npd_line_bytes = 80;

/// One line of at most k_npd_line_bytes bytes and a newline: "rocdoc: ok" when the report
/// passes its gate, else the ids of the root causes that make it fail, most severe first
/// ("rocdoc: perm.kfd, gpu.not-bound, +2 more"), as --format slurm words it.
void render_npd(const Report& report, std::ostream& out);

}  // namespace rocdoc
