// rocdoc fleet: the report reader on plain strings, the merge, host lists, durations and times.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "src/fleet/report_reader.h"
#include "src/fleet/summary.h"
#include "src/render/fleet.h"

using namespace rocdoc;

namespace {

std::string check(const std::string& id, const std::string& status, const std::string& severity,
                  const std::string& caused_by = "") {
  return R"({"id":")" + id + R"(","area":"A","title":"T","status":")" + status +
         R"(","severity":")" + severity + R"(","message":"m \"q\" \\","evidence":["e{[","]"],)" +
         R"("fix":[{"command":null}],"fix_order":"steps","caused_by":[)" + caused_by + "]}";
}

std::string report(const std::string& checks, const std::string& rocm = R"("6.4.1-118")",
                   const std::string& created = "2026-12-01T10:00:00Z") {
  return R"({"schema":"rocdoc-report/1","tool":{"name":"rocdoc","version":"0.1.0"},)"
         R"("created":")" +
         created +
         R"(","host":{"kind":"snapshot","origin":"x","os":"Ubuntu 24.04",)"
         R"("kernel":"6.8.0"},"inventory":{"gpus":[{"name":"MI300X","gfx_target":"gfx942"},)"
         R"({"name":"MI300X","gfx_target":"gfx942"}]},"notes":[],"summary":{"errors":1},)"
         R"("checks":[)" +
         checks +
         R"(],"facts":{"pci":{"devices":[{"bdf":"0000:03:00.0",)"
         R"("gpu":"amd","firmware":{"mes":"0x00000080"}},{"gpu":null,"firmware":{"x":"0x1"}}]},)"
         R"("driver":{"amdgpu_loaded":true,"dkms_version":null},"access":null,)"
         R"("rocm":{"installs":[],"opt_rocm_version":)" +
         rocm +
         R"(},)"
         R"("python":{"environments":[{"site_dir":"/s","torch":null},)"
         R"({"torch":{"version":"2.6.0+rocm6.2.4","hip":"6.2"}}]}},"probes":[]})";
}

FleetNode node(const std::string& name, const std::string& json) {
  FleetParse parse = parse_fleet_report(json);
  return {name, name + ".json", std::move(parse.report), parse.problem};
}

}  // namespace

TEST_CASE("fleet reader: the keys it needs, whatever else the report holds") {
  const FleetParse parse = parse_fleet_report(
      report(check("perm.kfd", "fail", "error") + "," +
             check("perm.render", "fail", "error", R"("perm.kfd")") + "," +
             check("os.wsl", "warn", "info") + "," + check("numa.balancing", "warn", "warning") +
             "," + check("gpu.none", "pass", "error")));
  REQUIRE(parse.problem.empty());
  const FleetReport& r = *parse.report;
  REQUIRE(r.causes.size() == 2);
  CHECK(r.causes[0].id == "perm.kfd");
  CHECK(r.causes[0].severity == "error");
  CHECK(r.causes[1].id == "numa.balancing");
  CHECK(r.causes[1].severity == "warning");
  CHECK(r.errors == 2);
  CHECK(r.warnings == 1);
  CHECK(r.created == "2026-12-01T10:00:00Z");
  CHECK(dimension_value(r, FleetDimension::rocm) == "6.4.1-118");
  CHECK(dimension_value(r, FleetDimension::torch) == "2.6.0+rocm6.2.4");
  CHECK(dimension_value(r, FleetDimension::driver) == "in-kernel");
  CHECK(dimension_value(r, FleetDimension::gfx) == "gfx942 x2");
  CHECK(dimension_value(r, FleetDimension::firmware) == "mes=0x00000080");
  CHECK(dimension_value(r, FleetDimension::kernel) == "6.8.0");
  CHECK(dimension_value(r, FleetDimension::os) == "Ubuntu 24.04");
}

TEST_CASE("fleet reader: escapes are decoded in what it extracts") {
  const FleetParse parse =
      parse_fleet_report(report(check("a.b", "pass", "error"), R"("6.4\u00e9\ud83d\ude00\n")"));
  REQUIRE(parse.problem.empty());
  CHECK(*parse.report->rocm == "6.4\xc3\xa9\xf0\x9f\x98\x80\n");
}

TEST_CASE("fleet reader: what is not a report is a problem, never a crash") {
  const auto problem = [](const std::string& text) { return parse_fleet_report(text).problem; };
  CHECK(problem("") == "empty");
  CHECK(problem("[]") == "expected '{' at byte 0");
  CHECK(problem(R"({"schema":"rocdoc-triage/1"})") ==
        "schema 'rocdoc-triage/1' is not rocdoc-report/1 at byte 27");
  CHECK(problem(R"({"schema":"rocdoc-report/1"})") == "no checks: not a complete rocdoc report");
  CHECK(problem(R"({"checks":[]})") == "no schema: not a rocdoc report");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[],"x":[1,2})") ==
        "unbalanced '}' at byte 48");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[],"x":"abc)") ==
        "unterminated string at byte 45");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[]} x)") ==
        "text after the document at byte 41");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[],"x":nope})") ==
        "not a JSON value at byte 48");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[{"id":"a.b","status":"bad",)"
                R"("severity":"error"}]})") ==
        "check a.b: status 'bad' is not pass, warn, fail or skip at byte 84");
  CHECK(problem(R"({"schema":"rocdoc-report/1","created":"\ud800"})") ==
        "lone surrogate at byte 45");
  CHECK(problem(std::string(R"({"schema":"rocdoc-report/1","created":")") + '\x01' + "\"}") ==
        "control character in a string at byte 40");
  // Depth is bounded, in skipped values as in read ones.
  CHECK(problem(R"({"x":)" + std::string(100, '[') + std::string(100, ']') + "}") ==
        "nested deeper than 64 at byte 68");
  CHECK(problem(R"({"schema":"rocdoc-report/1","checks":[],"created":")" + std::string(5000, 'a') +
                "\"}") == "a string over 4096 bytes at byte 4148");
}

TEST_CASE("fleet merge: causes by node, outliers, missing, stale and unreadable") {
  const std::string kfd = check("perm.kfd", "fail", "error");
  const std::string render = check("perm.render", "fail", "error", R"("perm.kfd")");
  const std::string numa = check("numa.balancing", "warn", "warning");
  const std::string ok = check("gpu.none", "pass", "error");
  std::vector<FleetNode> nodes = {
      node("node001", report(kfd + "," + render)),
      node("node002", report(kfd + "," + numa)),
      node("node003", report(ok)),
      node("node004", report(ok, R"("6.2.0")")),
      node("node005", report(kfd, R"("6.4.1-118")", "2026-11-30T10:00:00Z")),
      node("node010", "{not json"),
  };
  FleetExpectations expect;
  expect.expected = {"node001", "node002", "node003", "node004",
                     "node005", "node006", "node007", "node010"};
  expect.max_age_s = 3600;
  expect.now = *parse_fleet_time("2026-12-01T10:30:00Z");
  const FleetSummary summary = summarize_fleet(nodes, expect);
  CHECK(summary.nodes == 6);
  CHECK(summary.healthy == 2);
  CHECK(summary.with_findings == 3);
  REQUIRE(summary.causes.size() == 2);
  CHECK(summary.causes[0].value == "perm.kfd");
  CHECK(summary.causes[0].nodes == std::vector<std::string>{"node001", "node002", "node005"});
  CHECK(summary.causes[1].value == "numa.balancing");
  CHECK(summary.causes[1].severity == "warning");
  REQUIRE(summary.outliers.size() == 1);
  CHECK(summary.outliers[0].dimension == FleetDimension::rocm);
  CHECK(summary.outliers[0].majority == "6.4.1-118");
  CHECK(summary.outliers[0].majority_count == 4);
  REQUIRE(summary.outliers[0].others.size() == 1);
  CHECK(summary.outliers[0].others[0].value == "6.2.0");
  CHECK(summary.outliers[0].others[0].nodes == std::vector<std::string>{"node004"});
  CHECK(summary.missing == std::vector<std::string>{"node006", "node007"});
  CHECK(summary.unexpected.empty());
  // A node that reported but is not in --nodes is said (N19), and changes no exit code.
  FleetExpectations without_node003 = expect;
  without_node003.expected.erase(without_node003.expected.begin() + 2);
  const FleetSummary other = summarize_fleet(nodes, without_node003);
  CHECK(other.unexpected == std::vector<std::string>{"node003"});
  CHECK(other.exit_code() == summary.exit_code());
  REQUIRE(summary.stale.size() == 1);
  CHECK(summary.stale[0].node == "node005");
  CHECK(summary.stale[0].age_s == 88200);
  REQUIRE(summary.unreadable.size() == 1);
  CHECK(summary.unreadable[0].node == "node010");
  CHECK(summary.unreadable[0].problem == "expected a string at byte 1");
  CHECK(summary.exit_code() == 1);
}

TEST_CASE("fleet merge: a healthy, alike fleet exits 0") {
  const std::string ok = check("gpu.none", "pass", "error");
  const FleetSummary summary =
      summarize_fleet({node("a1", report(ok)), node("a2", report(ok))}, FleetExpectations{});
  CHECK(summary.healthy == 2);
  CHECK(summary.causes.empty());
  CHECK(summary.outliers.empty());
  CHECK(summary.exit_code() == 0);
}

TEST_CASE("fleet host lists fold numbered names into ranges") {
  CHECK(hostlist({}) == "");
  CHECK(hostlist({"node017"}) == "node017");
  CHECK(hostlist({"node003", "node001", "node002", "node004", "node017"}) == "node[001-004,017]");
  // Unpadded numbers of any length in one range, as Slurm writes them (issue 22, N19).
  CHECK(hostlist({"gpu2", "gpu1", "login", "gpu10", "gpu3", "gpu11"}) == "gpu[1-3,10-11],login");
  CHECK(hostlist({"node1", "node2", "node3", "node4", "node5", "node6", "node7", "node8", "node9",
                  "node10", "node11", "node12"}) == "node[1-12]");
  CHECK(hostlist({"node998", "node1002", "node1011"}) == "node[998,1002,1011]");
  CHECK(hostlist({"node007", "node100", "node008"}) == "node[007-008,100]");
  CHECK(hostlist({"a1", "a1", "b7"}) == "a1,b7");
  CHECK(hostlist({"rack1-n01", "rack1-n02", "rack2-n01"}) == "rack1-n[01-02],rack2-n01");
  CHECK(hostlist({"x[1]", "y,2"}) == "x[1],y,2");
}

TEST_CASE("fleet durations and times") {
  CHECK(parse_fleet_duration("90s") == 90);
  CHECK(parse_fleet_duration("30m") == 1800);
  CHECK(parse_fleet_duration("2h") == 7200);
  CHECK(parse_fleet_duration("1d") == 86400);
  CHECK(parse_fleet_duration("1w") == 604800);
  CHECK_FALSE(parse_fleet_duration("2"));
  CHECK_FALSE(parse_fleet_duration("h"));
  CHECK_FALSE(parse_fleet_duration("0h"));
  CHECK_FALSE(parse_fleet_duration("-1h"));
  CHECK_FALSE(parse_fleet_duration("2y"));
  CHECK(parse_fleet_time("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_fleet_time("2026-12-01T17:57:08Z") == 1796147828);
  CHECK_FALSE(parse_fleet_time("2026-12-01 17:57:08Z"));
  CHECK_FALSE(parse_fleet_time("2026-13-01T17:57:08Z"));
  CHECK_FALSE(parse_fleet_time("2026-12-01T17:57:08"));
}

TEST_CASE("fleet node names are host names a host list holds unambiguously") {
  for (const char* name : {"node017", "gpu-a.rack2", "login_1", "N1"}) {
    CHECK(is_fleet_node_name(name));
  }
  for (const char* name : {"", "node2,login1", "node[3]", "node 4", "-w", ".hidden", "a\tb", "nöde",
                           "a;b", "a$(id)"}) {
    CHECK_FALSE(is_fleet_node_name(name));
  }
  CHECK(is_fleet_node_name(std::string(253, 'a')));
  CHECK_FALSE(is_fleet_node_name(std::string(254, 'a')));
}

TEST_CASE("fleet --nodes files: one host name a line, bounded") {
  const auto list = parse_fleet_nodes("# rack 1\n node001 \r\n\nnode002\n#node003");
  CHECK(list.names == std::vector<std::string>{"node001", "node002"});
  CHECK_FALSE(list.problem);
  const auto comma = parse_fleet_nodes("node1\nnode2,login1\n");
  REQUIRE(comma.problem);
  CHECK(comma.problem->rfind("line 2: 'node2,login1' is not a node name", 0) == 0);
  const auto range = parse_fleet_nodes("node[001-004]");
  REQUIRE(range.problem);
  CHECK(range.problem->find("scontrol show hostnames") != std::string::npos);
  const auto long_line = parse_fleet_nodes("node1\n#" + std::string(k_fleet_max_nodes_line, 'x'));
  REQUIRE(long_line.problem);
  CHECK(*long_line.problem == "line 2: over 4096 bytes; one node name a line");
  CHECK(parse_fleet_nodes(std::string(1 << 20, '\n')).names.empty());
}

TEST_CASE("a long host list is cut between its parts in the human output", "[fleet]") {
  // Issue 22, N19: 3,000 reports made lines of 1.6 kB naming 333 nodes.
  FleetSummary summary;
  summary.nodes = 400;
  summary.with_findings = 400;
  FleetGroup cause;
  cause.value = "perm.kfd";
  cause.severity = "error";
  for (int i = 0; i < 400; ++i) {
    cause.nodes.push_back("node" + std::to_string(2 * i + 1));  // no two in a row: no ranges
  }
  summary.causes.push_back(cause);
  std::ostringstream out;
  render_fleet_human(summary, {400, "2026-12-05T12:00:00Z", 0}, out);
  const std::string text = out.str();
  const auto line_start = text.find("  perm.kfd (error): 400 nodes  ");
  REQUIRE(line_start != std::string::npos);
  const std::string line = text.substr(line_start, text.find('\n', line_start) - line_start);
  CHECK(line.size() < 280);
  CHECK(line.find(",…] (every node: rocdoc fleet --json)") != std::string::npos);
  CHECK(line.find("node[1,3,5,") != std::string::npos);
}
