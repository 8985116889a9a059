// `rocdoc scan --format json`: schema "rocdoc-scan/1" (docs/scan.schema.json).
#include <nlohmann/json.hpp>

#include "rocdoc/render.h"

namespace rocdoc {

namespace {

using json = nlohmann::ordered_json;

json finding_json(const CodeFinding& finding, FailOn fail_on) {
  return {{"id", finding.id},
          {"pattern", finding.pattern},
          {"severity", to_string(finding.severity)},
          {"counts", code_finding_counts(finding.severity, fail_on)},
          {"path", finding.path},
          {"line", finding.line},
          {"column", finding.column},
          {"end_column", finding.end_column},
          {"text", finding.text},
          {"line_text", finding.line_text},
          {"what", finding.what},
          {"replacement", finding.replacement},
          {"sources", finding.sources},
          {"fingerprint", finding.fingerprint}};
}

}  // namespace

void render_scan_json(const ScanReport& report, std::ostream& out) {
  const CodeScanFacts& scan = report.scan;
  json findings = json::array();
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  for (const CodeFinding& finding : scan.findings) {
    findings.push_back(finding_json(finding, report.fail_on));
    (finding.severity == Severity::error     ? errors
     : finding.severity == Severity::warning ? warnings
                                             : infos)++;
  }
  json skipped = json::array();
  for (const CodeSkip& skip : scan.skipped) {
    skipped.push_back({{"path", skip.path}, {"why", skip.why}});
  }
  json checks = json::array();
  for (const CodeCheckRow& check : report.checks) {
    checks.push_back({{"id", check.id}, {"title", check.title}});
  }
  const json document = {{"schema", "rocdoc-scan/1"},
                         {"tool_version", report.tool_version},
                         {"rules_revision", report.rules_revision},
                         {"root", scan.root},
                         {"fail_on", to_string(report.fail_on)},
                         {"exit_code", report.exit_code},
                         {"verdict", report.exit_code == 0 ? "pass" : "fail"},
                         {"summary",
                          {{"findings", scan.findings.size()},
                           {"errors", errors},
                           {"warnings", warnings},
                           {"info", infos}}},
                         {"files_scanned", scan.files_scanned},
                         {"bytes_scanned", scan.bytes_scanned},
                         {"suppressed_inline", scan.suppressed_inline},
                         {"baselined", scan.baselined},
                         {"truncated", scan.truncated},
                         {"checks", checks},
                         {"findings", findings},
                         {"skipped", skipped}};
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
