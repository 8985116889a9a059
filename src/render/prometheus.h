// --format prometheus: the report as node_exporter's textfile collector reads it (the
// Prometheus text exposition format, 0.0.4). docs/prometheus.md lists every metric.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "rocdoc/report.h"

namespace rocdoc {

/// Gauges with HELP and TYPE lines: rocdoc_check_status{check,area,severity} for every check
/// of the report (0 pass, 1 warn, 2 fail, -1 skipped), rocdoc_findings{severity} (error,
/// warning, info; zeros included), rocdoc_gpu_info{bdf,gfx,name,driver}, the exit code, the
/// report's creation time and the rules' revision. Every label value is from a bounded set.
void render_prometheus(const Report& report, std::ostream& out);

/// A label value escaped for the exposition format: \ as \\, " as \", a newline as \n.
std::string prometheus_label_value(std::string_view value);

/// Seconds since the epoch of a UTC time "2026-12-01T17:57:08Z" or a date "2026-12-01";
/// nullopt for anything else.
std::optional<long long> prometheus_epoch_seconds(std::string_view utc);

}  // namespace rocdoc
