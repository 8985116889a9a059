#include "src/scan/baseline.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace rocdoc {

Baseline parse_baseline(std::string_view json_text) {
  Baseline baseline;
  const auto document = nlohmann::json::parse(json_text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    baseline.error = "not JSON (write one with rocdoc scan DIR --format json > FILE)";
    return baseline;
  }
  const auto schema = document.find("schema");
  if (schema == document.end() || !schema->is_string() || *schema != "rocdoc-scan/1") {
    baseline.error = "not a rocdoc scan report (its \"schema\" is not \"rocdoc-scan/1\")";
    return baseline;
  }
  const auto findings = document.find("findings");
  if (findings == document.end() || !findings->is_array()) {
    baseline.error = "its \"findings\" is not a list";
    return baseline;
  }
  for (std::size_t i = 0; i < findings->size(); ++i) {
    const auto& finding = (*findings)[i];
    const auto fingerprint = finding.is_object() ? finding.find("fingerprint") : finding.end();
    if (!finding.is_object() || fingerprint == finding.end() || !fingerprint->is_string()) {
      baseline.error = "finding " + std::to_string(i + 1) + " has no \"fingerprint\" string";
      return baseline;
    }
    baseline.fingerprints.insert(fingerprint->get<std::string>());
  }
  return baseline;
}

void apply_baseline(CodeScanFacts& scan, const Baseline& baseline) {
  const auto known = [&](const CodeFinding& finding) {
    return baseline.fingerprints.count(finding.fingerprint) != 0;
  };
  const auto before = scan.findings.size();
  scan.findings.erase(std::remove_if(scan.findings.begin(), scan.findings.end(), known),
                      scan.findings.end());
  scan.baselined += before - scan.findings.size();
}

}  // namespace rocdoc
