// `rocdoc fleet`'s report reader (src/fleet/report_reader.cpp): any bytes as one node's report. The
// reader must hold its bounds (no string over the limit, no more entries than allowed), give a
// report or a problem (never both, never neither), and the merge and every renderer must take
// what it gives; the fleet JSON must parse back. The same bytes as a --nodes file give host
// names only (a ',' in a host list would read as two nodes), or a problem.
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/fleet/report_reader.h"
#include "src/fleet/summary.h"
#include "src/render/fleet.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const FleetParse parse = parse_fleet_report(fuzz::text(data, size));
  ROCDOC_FUZZ_CHECK(parse.report.has_value() == parse.problem.empty(),
                    "a report or a problem: " + parse.problem);
  if (parse.report) {
    const FleetReport& report = *parse.report;
    ROCDOC_FUZZ_CHECK(report.causes.size() <= k_fleet_max_entries &&
                          report.gfx.size() <= k_fleet_max_entries &&
                          report.torch.size() <= k_fleet_max_entries,
                      "entries are bounded");
    ROCDOC_FUZZ_CHECK(report.created.size() <= k_fleet_max_string_bytes,
                      "strings are bounded: " + std::to_string(report.created.size()));
    ROCDOC_FUZZ_CHECK(report.causes.size() <= report.errors + report.warnings,
                      "a cause is an error or a warning");
    for (const auto& cause : report.causes) {
      ROCDOC_FUZZ_CHECK(!cause.id.empty() && cause.id.size() <= k_fleet_max_string_bytes,
                        "a cause has an id");
      ROCDOC_FUZZ_CHECK(cause.severity == "error" || cause.severity == "warning",
                        "a cause's severity: " + cause.severity);
    }
  }
  // The merge of this report with a copy of itself and an unreadable node.
  std::vector<FleetNode> nodes;
  nodes.push_back({"node1", "node1.json", parse.report, parse.problem});
  nodes.push_back({"node2", "node2.json", parse.report, parse.problem});
  nodes.push_back({"node3", "node3.json", std::nullopt, "unreadable"});
  FleetExpectations expect;
  expect.expected = {"node1", "node4"};
  expect.max_age_s = 3600;
  expect.now = 1796147828;
  const FleetSummary summary = summarize_fleet(nodes, expect);
  ROCDOC_FUZZ_CHECK(summary.nodes == 3 && summary.missing.size() == 1, "counts");
  ROCDOC_FUZZ_CHECK(summary.healthy + summary.with_findings + summary.unreadable.size() == 3,
                    "every node counted once");
  ROCDOC_FUZZ_CHECK(summary.outliers.empty(), "two equal reports are alike");
  const FleetContext context{3, "2026-12-01T17:57:08Z", 2};
  std::ostringstream human;
  render_fleet_human(summary, context, human);
  ROCDOC_FUZZ_CHECK(human.str().find('\x1b') == std::string::npos, "no escape byte on a terminal");
  std::ostringstream markdown;
  render_fleet_markdown(summary, context, markdown);
  std::ostringstream json;
  render_fleet_json(summary, context, json);
  const auto parsed = nlohmann::json::parse(json.str(), nullptr, false);
  ROCDOC_FUZZ_CHECK(!parsed.is_discarded(), "the JSON parses back");
  ROCDOC_FUZZ_CHECK(parsed["counts"]["nodes"] == 3, "the JSON counts the nodes");
  const FleetNodeList list = parse_fleet_nodes(fuzz::text(data, size));
  ROCDOC_FUZZ_CHECK(list.names.size() <= k_fleet_max_nodes_names, "names are bounded");
  for (const auto& name : list.names) {
    ROCDOC_FUZZ_CHECK(is_fleet_node_name(name) && name.find(',') == std::string::npos,
                      "a --nodes name is a host name: " + name);
  }
  return 0;
}
