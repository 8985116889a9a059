// `rocdoc fleet`: many nodes' reports merged into one summary (docs/fleet.md): root causes by
// node, outliers per dimension, missing, stale and unreadable nodes. Pure: no files, no clock.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/fleet/report_reader.h"

namespace rocdoc {

/// One input of the fleet: a node's report, or why it could not be read.
struct FleetNode {
  std::string name;  ///< the node (docs/fleet.md: the file's name without .json/.tar.gz)
  std::string file;  ///< as found
  std::optional<FleetReport> report;
  std::string problem;  ///< why `report` is missing
};

/// What the fleet is compared against.
struct FleetExpectations {
  std::vector<std::string> expected;      ///< --nodes: the nodes that should report; empty: any
  std::optional<std::int64_t> max_age_s;  ///< --max-age in seconds
  std::int64_t now = 0;                   ///< Unix seconds the ages are measured from
};

enum class FleetDimension { rocm, torch, driver, firmware, gfx, topology, kernel, os };
inline constexpr std::array<FleetDimension, 8> k_fleet_dimensions{
    FleetDimension::rocm,     FleetDimension::torch, FleetDimension::driver,
    FleetDimension::firmware, FleetDimension::gfx,   FleetDimension::topology,
    FleetDimension::kernel,   FleetDimension::os};

/// "rocm", "torch", … (the JSON key) and "ROCm", "torch", … (the human heading).
std::string_view dimension_key(FleetDimension dimension);
std::string_view dimension_title(FleetDimension dimension);
/// The value a report has in one dimension, as compared and printed ("none", "unknown"…).
std::string dimension_value(const FleetReport& report, FleetDimension dimension);

/// Nodes that share one value (a cause, a version); names sorted.
struct FleetGroup {
  std::string value;
  std::string severity;  ///< causes only: "error" or "warning"
  std::vector<std::string> nodes;
};

struct FleetOutlier {
  FleetDimension dimension;
  std::string majority;
  std::size_t majority_count = 0;
  std::vector<FleetGroup> others;  ///< by count, largest first
};

struct FleetStale {
  std::string node;
  std::string created;                ///< "" when the report has no readable time
  std::optional<std::int64_t> age_s;  ///< nullopt when unknown
};

struct FleetUnreadable {
  std::string node;
  std::string file;
  std::string problem;
};

struct FleetSummary {
  std::size_t nodes = 0;  ///< every input, readable or not
  std::size_t healthy = 0;
  std::size_t with_findings = 0;
  std::vector<FleetGroup> causes;  ///< by node count, largest first, then id
  std::vector<FleetOutlier> outliers;
  std::vector<std::string> missing;
  /// Nodes that reported but are not in --nodes (a decommissioned node, a typo in the list):
  /// said, without changing the exit code.
  std::vector<std::string> unexpected;
  std::vector<FleetStale> stale;
  std::vector<FleetUnreadable> unreadable;
  std::optional<std::int64_t> max_age_s;

  /// 0: every node healthy, present, fresh, readable and alike; 1 otherwise.
  int exit_code() const;
};

FleetSummary summarize_fleet(const std::vector<FleetNode>& nodes,
                             const FleetExpectations& expectations);

/// Slurm-style host list: "node[001-004,017],login1"; names sharing a prefix and a numeric
/// suffix of the same width are folded into ranges. The names need not be sorted.
std::string hostlist(std::vector<std::string> names);

/// The most bytes of a host name, as DNS has it.
inline constexpr std::size_t k_fleet_max_node_name = 253;
/// Bounds of a --nodes file: its size, one line, and how many names it gives.
inline constexpr std::size_t k_fleet_max_nodes_bytes = std::size_t{16} << 20;
inline constexpr std::size_t k_fleet_max_nodes_line = 4096;
inline constexpr std::size_t k_fleet_max_nodes_names = std::size_t{1} << 20;

/// A name that a host list can hold unambiguously and a shell word needs no quoting for: 1 to
/// 253 letters, digits, '.', '-' and '_', not starting with '-' or '.'. A ',' would read as two
/// nodes, brackets as a range, a space as two arguments.
bool is_fleet_node_name(std::string_view name);

/// The names of a --nodes file (one a line, trimmed; blank lines and lines starting with '#'
/// ignored), or the first problem ("line 3: ..."): a line over k_fleet_max_nodes_line bytes,
/// a name that is not is_fleet_node_name, more than k_fleet_max_nodes_names names.
struct FleetNodeList {
  std::vector<std::string> names;
  std::optional<std::string> problem;
};
FleetNodeList parse_fleet_nodes(std::string_view text);

/// "90s", "30m", "2h", "1d", "1w" (a whole number and a unit) in seconds; nullopt otherwise.
std::optional<std::int64_t> parse_fleet_duration(std::string_view text);
/// "2026-12-01T17:57:08Z" in Unix seconds; nullopt when not exactly that form.
std::optional<std::int64_t> parse_fleet_time(std::string_view text);

}  // namespace rocdoc
