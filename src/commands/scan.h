// `rocdoc scan DIR`: the source scan as a command (options, the baseline file, output, exit
// code), and what `check --scan DIR` shares with it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/code_scan.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/render.h"

namespace rocdoc {

/// The help footer of `rocdoc scan`.
inline constexpr std::string_view k_scan_exit_codes =
    "Exit codes:\n"
    "  0  no finding at the --fail-on level (default: error); findings in the --baseline file\n"
    "     and those silenced with a `rocdoc: ignore[code.ID]` comment do not count\n"
    "  1  a finding at the --fail-on level\n"
    "  2  DIR is not a directory, the baseline cannot be read, invalid rules, bad arguments,\n"
    "     or the output could not be written\n";

/// Scans DIR with the rules' code patterns; `vendored` scans third_party/, vendor/ … too.
/// Throws std::runtime_error when DIR cannot be scanned.
CodeScanFacts scan_directory(const std::string& dir, const Knowledge& knowledge, bool vendored);

/// The code.* checks of the check table, for the scan's outputs.
std::vector<CodeCheckRow> code_check_rows();

/// Why a --baseline file cannot be used; nullopt when it was applied to `scan`.
std::optional<std::string> apply_baseline_file(const std::string& path, CodeScanFacts& scan);

}  // namespace rocdoc
