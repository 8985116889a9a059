// Renderers: a Report (rocdoc/report.h) to text. They only format; they read nothing else.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "rocdoc/code_scan.h"
#include "rocdoc/report.h"

namespace rocdoc {

/// The values of `check --format`, in the order --help and the completions list them.
inline constexpr std::string_view k_report_formats[] = {"human", "json",       "markdown",
                                                        "slurm", "prometheus", "npd"};

enum class Color { off, on };
enum class Verbosity { normal, verbose };
/// The glyphs of the human report: Unicode (✓ ✗ ! • · ☠), or ASCII ([ok] [FAIL] [warn] [info]
/// -) for a terminal whose locale is not UTF-8, where all text is then made ASCII.
enum class Glyphs { unicode, ascii };

/// How the human report is laid out (the CLI decides each from the terminal and environment).
struct HumanOptions {
  Color color = Color::off;
  Verbosity verbosity = Verbosity::normal;
  /// Columns to wrap at, with hanging indentation; 0: no wrapping (a pipe or a file). Fix
  /// commands are never wrapped, so that a copy of the line still runs.
  std::size_t width = 0;
  Glyphs glyphs = Glyphs::unicode;
};

/// The report for people: an inventory, the checks grouped by area (areas with nothing wrong
/// in one line, unless verbose), each root cause with its fixes once and the findings that
/// follow from it under it, and a summary line. docs/rocdoc.1.md, "Reading the report".
void render_human(const Report& report, std::ostream& out, const HumanOptions& options);
/// render_human with Unicode glyphs and no wrapping.
inline void render_human(const Report& report, std::ostream& out, Color color,
                         Verbosity verbosity) {
  render_human(report, out, HumanOptions{color, verbosity, 0, Glyphs::unicode});
}
void render_json(const Report& report, std::ostream& out);
/// `rocdoc topology`: the GPU×GPU matrix (nvidia-smi topo -m's layout: XGMIn, PIX, PHB, NODE,
/// SYS), each GPU's NUMA node, CPUs, PCIe link, BAR and XGMI hive, the legend, and what
/// topology.p2p, gpu.small-bar and iommu.mode found. 80 columns for 8 GPUs.
void render_topology(const Report& report, std::ostream& out, Glyphs glyphs);
/// `rocdoc topology --json` (docs/topology.schema.json, rocdoc-topology/1).
void render_topology_json(const Report& report, std::ostream& out);
/// Markdown for a GitHub issue or a ticket (docs/rocdoc.1.md, --format markdown): the verdict,
/// the inventory (GPUs as a table), a summary, each root cause once with its evidence, fixes
/// as fenced `sh` blocks and what follows from it, the notes, every check (collapsed) and the
/// facts as JSON in a collapsed <details> block. Every value is escaped
/// (src/render/markdown_text.h).
void render_markdown(const Report& report, std::ostream& out);
/// JUnit XML (docs/rocdoc.1.md, --junit): one testcase per check; a finding is a <failure>
/// exactly when it counts under the report's --fail-on (report.outcome), as the exit code does.
void render_junit(const Report& report, std::ostream& out);
/// The longest line render_slurm() prints: Slurm keeps a longer reason whole, but people read
/// it (`sinfo -R` shows 20 characters by default; `sinfo -R -o '%100E %N'` all of these) and
/// 100 fit one terminal line beside the node name (contrib/slurm/README.md).
inline constexpr std::size_t k_slurm_reason_max = 100;
/// One line for a Slurm health check's drain reason (docs/rocdoc.1.md, --format slurm):
/// "rocdoc: ID, ID" naming the root causes of what fails under --fail-on (failures first), at
/// most k_slurm_reason_max characters (never an id cut: ", +N more"); "rocdoc: ok" otherwise.
std::string slurm_reason(const Report& report);
/// slurm_reason() and a newline.
void render_slurm(const Report& report, std::ostream& out);

/// The values of `scan --format`.
inline constexpr std::string_view k_scan_formats[] = {"human", "json", "sarif"};

/// A code.* check as the scan's outputs describe it (its row of the check table).
struct CodeCheckRow {
  std::string id;
  std::string title;
  Severity severity = Severity::warning;  ///< the most severe a finding of it can be
};

/// What `rocdoc scan` renders: the findings and how they were judged.
struct ScanReport {
  const CodeScanFacts& scan;
  std::vector<CodeCheckRow> checks;
  FailOn fail_on = FailOn::error;
  int exit_code = 0;
  std::string tool_version;
  std::string rules_revision;
  std::string root_uri;  ///< file:///abs/root/ for SARIF's SRCROOT; "" when unknown
};

/// ruff/clang-tidy style: "path:line:col: code.warp-size error: what", the line, the fix;
/// then a summary line (skipped paths listed when verbose).
void render_scan_human(const ScanReport& report, std::ostream& out, const HumanOptions& options);
/// JSON, schema "rocdoc-scan/1" (docs/scan.schema.json).
void render_scan_json(const ScanReport& report, std::ostream& out);
/// SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers (docs/scan.md).
void render_scan_sarif(const ScanReport& report, std::ostream& out);

}  // namespace rocdoc
