// One node's report for `rocdoc fleet`: the few keys the fleet summary needs, read from a
// rocdoc-report/1 document by a small pull reader that skips everything else (docs/fleet.md,
// "Reading reports"). Untrusted input: sizes and depth are bounded, nothing throws out.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

/// Bounds of the reader: a report larger, deeper or with more entries is refused.
inline constexpr std::size_t k_fleet_max_report_bytes = 64u << 20;
inline constexpr int k_fleet_max_depth = 64;
inline constexpr std::size_t k_fleet_max_string_bytes = 4096;
inline constexpr std::size_t k_fleet_max_entries = 4096;  ///< checks, GPUs, devices, envs

/// A root cause of one report: an error or warning whose `caused_by` is empty.
struct FleetCause {
  std::string id;
  std::string severity;  ///< "error" or "warning"
};

struct FleetReport {
  std::string created;                         ///< top-level `created`; "" when absent
  std::optional<std::string> capture_created;  ///< host.snapshot.created
  std::vector<FleetCause> causes;              ///< in report order
  std::size_t errors = 0;                      ///< checks with status fail
  std::size_t warnings = 0;                    ///< status warn, severity warning
  // The facts the outlier dimensions are made of; nullopt: not in the report.
  std::optional<std::string> os;      ///< host.os
  std::optional<std::string> kernel;  ///< host.kernel
  bool rocm_known = false;            ///< facts.rocm is an object
  std::optional<std::string> rocm;    ///< facts.rocm.opt_rocm_version
  bool driver_known = false;          ///< facts.driver is an object
  bool amdgpu_loaded = false;
  std::optional<std::string> dkms_version;
  bool python_known = false;
  std::vector<std::string> torch;     ///< facts.python.environments[].torch.version
  std::vector<std::string> gfx;       ///< inventory.gpus[].gfx_target ("unknown" for null)
  std::vector<std::string> firmware;  ///< "name=0x…" of facts.pci.devices[] with gpu "amd"
  bool topology_known = false;        ///< `topology` is an object (reports from issue 25 on)
  /// Each pair of topology.links[]: its type, with " refused" (p2p no), " xgmi-down"
  /// (hive_without_xgmi) or " p2p-unknown" after it.
  std::vector<std::string> links;
};

/// A report, or why not: `problem` names what is wrong and where (byte offset).
struct FleetParse {
  std::optional<FleetReport> report;
  std::string problem;
};

/// Reads one rocdoc-report/1 document. Never throws; a document that is not JSON, not a
/// report, or over the bounds above gives `problem`.
FleetParse parse_fleet_report(std::string_view json);

}  // namespace rocdoc
