// `rocdoc scan` for people, in the style of compilers, ruff and clang-tidy, so editors and
// terminals link each finding: "path:line:col: code.warp-size error: what", the line itself,
// then the fix. A summary line ends it; -v lists what was not scanned.
#include <fmt/format.h>

#include <algorithm>

#include "rocdoc/render.h"
#include "src/render/page.h"
#include "src/util/byte_size.h"

namespace rocdoc {

namespace {

std::string_view severity_colour(Severity severity) {
  return severity == Severity::error ? k_red : severity == Severity::warning ? k_yellow : k_cyan;
}

std::string plural(std::size_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

void render_finding(Page& page, const CodeFinding& finding) {
  const std::string place =
      page.clean(fmt::format("{}:{}:{}: ", finding.path, finding.line, finding.column));
  const std::string_view severity = to_string(finding.severity);
  const std::string lead = place + page.paint(finding.id, k_bold) + " " +
                           page.paint(severity, severity_colour(finding.severity)) + ": ";
  // The place, the id and the severity take their columns on the first line; the text wraps
  // after them (the lead is never cut, so a terminal still links the place).
  const std::size_t lead_columns =
      text::display_width(place) + finding.id.size() + 1 + severity.size() + 2;
  page.paragraph(lead, lead_columns, page.clean(finding.what), 4);
  page.whole(4, page.clean(finding.line_text), k_dim);
  page.indented(4, page.own("fix: ") + page.clean(finding.replacement));
}

/// "678 vendored or generated, 2 over 16777216 bytes": the paths not scanned, by why.
std::string skipped_words(const std::vector<CodeSkip>& skipped) {
  std::vector<std::pair<std::string_view, std::size_t>> reasons;
  for (const CodeSkip& skip : skipped) {
    // The reason without its ": not scanned" tail ("vendored or generated").
    const std::string_view why = std::string_view(skip.why).substr(0, skip.why.find(':'));
    const auto it = std::find_if(reasons.begin(), reasons.end(),
                                 [&](const auto& reason) { return reason.first == why; });
    if (it == reasons.end()) {
      reasons.emplace_back(why, 1);
    } else {
      ++it->second;
    }
  }
  std::string words;
  for (const auto& [why, count] : reasons) {
    words += fmt::format("{}{} {}", words.empty() ? "" : ", ", count, why);
  }
  return words;
}

std::string summary_line(const ScanReport& report) {
  const CodeScanFacts& scan = report.scan;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t counted = 0;
  std::vector<std::string_view> files;
  for (const CodeFinding& finding : scan.findings) {
    errors += finding.severity == Severity::error ? 1 : 0;
    warnings += finding.severity == Severity::warning ? 1 : 0;
    counted += code_finding_counts(finding.severity, report.fail_on) ? 1 : 0;
    if (files.empty() || files.back() != finding.path) {
      files.push_back(finding.path);
    }
  }
  const std::size_t notes = scan.findings.size() - errors - warnings;
  std::string line =
      scan.findings.empty()
          ? std::string("no CUDA-only code found")
          : fmt::format("{} ({}, {}, {}) in {}",
                        plural(scan.findings.size(), "finding", "findings"),
                        plural(errors, "error", "errors"), plural(warnings, "warning", "warnings"),
                        plural(notes, "note", "notes"), plural(files.size(), "file", "files"));
  line += fmt::format("; {} scanned ({})", plural(scan.files_scanned, "file", "files"),
                      util::byte_size_text(scan.bytes_scanned));
  if (scan.suppressed_inline > 0) {
    line += fmt::format("; {} suppressed inline", scan.suppressed_inline);
  }
  if (scan.baselined > 0) {
    line += fmt::format("; {} in the baseline", scan.baselined);
  }
  if (!scan.skipped.empty()) {
    line += fmt::format("; not scanned: {} (-v lists them)", skipped_words(scan.skipped));
  }
  if (scan.truncated) {
    line += "; the walk stopped at its limit of entries: files beyond it were not scanned";
  }
  if (counted > 0 && report.fail_on != FailOn::never) {
    line += fmt::format("; {} at --fail-on {}", counted, to_string(report.fail_on));
  }
  return line;
}

}  // namespace

void render_scan_human(const ScanReport& report, std::ostream& out, const HumanOptions& options) {
  Page page(out, options);
  for (const CodeFinding& finding : report.scan.findings) {
    render_finding(page, finding);
  }
  if (page.verbose()) {
    for (const CodeSkip& skip : report.scan.skipped) {
      page.indented(0, page.clean(skip.path) + ": " + page.clean(skip.why), k_dim);
    }
  }
  if (!report.scan.findings.empty() || (page.verbose() && !report.scan.skipped.empty())) {
    page.blank();
  }
  page.indented(0, page.own(summary_line(report)));
}

}  // namespace rocdoc
