// `rocdoc scan --format sarif`: a SARIF 2.1.0 log (OASIS), one run, one rule per code.* check,
// one result per finding with its region, the line as the snippet, and the finding's
// fingerprint as a partial fingerprint, so that viewers track it across edits.
// tests/e2e/test_scan.py validates it against the OASIS schema (tests/data/).
#include <nlohmann/json.hpp>

#include "rocdoc/render.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

using json = nlohmann::ordered_json;

std::string_view sarif_level(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      break;
  }
  return "note";
}

json rule_json(const CodeCheckRow& check) {
  return {{"id", check.id},
          {"shortDescription", {{"text", check.title}}},
          {"fullDescription",
           {{"text", check.title + " (rocdoc explain " + check.id +
                         " says what is and is not a finding, and why)"}}},
          {"defaultConfiguration", {{"level", sarif_level(check.severity)}}},
          {"properties", {{"tags", {"rocm", "portability", "cuda"}}}}};
}

json result_json(const CodeFinding& finding, std::size_t rule_index, bool with_base) {
  json location = {{"uri", util::uri_path(finding.path)}};
  if (with_base) {
    location["uriBaseId"] = "SRCROOT";
  }
  return {{"ruleId", finding.id},
          {"ruleIndex", rule_index},
          {"level", sarif_level(finding.severity)},
          {"message", {{"text", finding.what + ". Fix: " + finding.replacement + "."}}},
          {"locations",
           {{{"physicalLocation",
              {{"artifactLocation", location},
               {"region",
                {{"startLine", finding.line},
                 {"startColumn", finding.column},
                 {"endColumn", std::max(finding.end_column, finding.column + 1)},
                 {"snippet", {{"text", finding.line_text}}}}}}}}}},
          {"partialFingerprints", {{"rocdocFingerprint/v1", finding.fingerprint}}},
          {"properties", {{"pattern", finding.pattern}, {"matched", finding.text}}}};
}

}  // namespace

void render_scan_sarif(const ScanReport& report, std::ostream& out) {
  json rules = json::array();
  for (const CodeCheckRow& check : report.checks) {
    rules.push_back(rule_json(check));
  }
  json results = json::array();
  for (const CodeFinding& finding : report.scan.findings) {
    std::size_t index = 0;
    while (index < report.checks.size() && report.checks[index].id != finding.id) {
      ++index;
    }
    results.push_back(result_json(finding, index, !report.root_uri.empty()));
  }
  json run = {{"tool",
               {{"driver",
                 {{"name", "rocdoc"},
                  {"version", report.tool_version},
                  {"semanticVersion", report.tool_version},
                  {"rules", rules}}}}}};
  if (!report.root_uri.empty()) {
    run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", report.root_uri}}}};
  }
  run["results"] = results;
  run["invocations"] = {{{"executionSuccessful", true}, {"exitCode", report.exit_code}}};
  run["properties"] = {{"rulesRevision", report.rules_revision},
                       {"filesScanned", report.scan.files_scanned},
                       {"bytesScanned", report.scan.bytes_scanned},
                       {"suppressedInline", report.scan.suppressed_inline},
                       {"baselined", report.scan.baselined}};
  const json document = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                         {"version", "2.1.0"},
                         {"runs", {run}}};
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
