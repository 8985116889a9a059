// `rocdoc fleet REPORTS…|DIR`: the command around src/fleet/summary.cpp (inputs, reading them in
// parallel, options, output, exit code). docs/fleet.md.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/render.h"

namespace rocdoc {

struct FleetOptions {
  std::vector<std::string> inputs;  ///< report files, snapshot archives, directories
  std::string nodes;                ///< --nodes FILE: the expected node names
  std::string max_age;              ///< --max-age DURATION
  std::string now;                  ///< --now TIME (tests and replays)
  std::string format;               ///< --format human|markdown|json ("" = human)
  bool json = false;                ///< --json: --format json
  std::string rules;                ///< --rules DIR, for snapshot archives
  bool no_color = false;            ///< --no-color
  Color color = Color::off;         ///< chosen from the terminal (run_fleet's caller)
};

/// The help footer of `rocdoc fleet`.
inline constexpr std::string_view k_fleet_exit_codes =
    "Exit codes:\n"
    "  0  every node is healthy, present (--nodes), fresh (--max-age), readable, and no node\n"
    "     differs from the majority\n"
    "  1  anything else: findings, missing, stale or unreadable nodes, outliers\n"
    "  2  bad arguments, an input that does not exist, no report at all, or none readable\n";

/// Option values that cannot work, before anything is read; nullopt when fine.
std::optional<std::string> fleet_argument_problem(const FleetOptions& options);

/// Reads every report, merges them and writes the summary to `out`; returns the exit code.
int run_fleet(const FleetOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rocdoc
