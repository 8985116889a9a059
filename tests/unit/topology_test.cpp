// Issue 25: the topology facts on real strings (sysfs `resource`, config space, numa_node, KFD
// link properties), and topology.p2p, gpu.small-bar, env.rccl, the NCCL side of
// env.debug-left-on and `rocdoc topology` on the fixtures built from captured machines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "probes/kfd_topology.h"
#include "probes/pci_topology.h"
#include "rocdoc/render.h"
#include "src/checks/checks.h"
#include "src/fleet/report_reader.h"
#include "src/fleet/summary.h"
#include "src/hosts/redacting.h"
#include "tests/unit/report_support.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;
using test::check_result;
using test::fix_commands;
using test::fixture_report;

namespace {

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

/// Writes a little-endian 32-bit value into a config space at `at`.
void put32(std::string& config, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    config[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
}

}  // namespace

TEST_CASE("parse_pci_resources reads the memory BARs of sysfs resource", "[topology]") {
  // ROCm/rccl#1055's RX 7900 XTX (32G and 256M prefetchable, I/O 256, 1M) in sysfs's format.
  const std::string resource =
      "0x000007f000000000 0x000007f7ffffffff 0x000000000014220c\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
      "0x000007f800000000 0x000007f80fffffff 0x000000000014220c\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
      "0x0000000000003000 0x00000000000030ff 0x0000000000040101\n"
      "0x00000000f2000000 0x00000000f20fffff 0x0000000000040200\n"
      "0x00000000f2100000 0x00000000f211ffff 0x0000000000046200\n";
  const auto bars = parse_pci_resources(resource);
  REQUIRE(bars.size() == 3);
  CHECK(bars[0].index == 0);
  CHECK(bars[0].size == (32ULL << 30));
  CHECK(bars[0].prefetchable);
  CHECK(bars[0].is_64bit);
  CHECK(bars[1].index == 2);
  CHECK(bars[1].size == (256ULL << 20));
  CHECK(bars[2].index == 5);  // the I/O BAR (4) is not memory; the ROM (line 6) is not a BAR
  CHECK_FALSE(bars[2].prefetchable);
  CHECK(parse_pci_resources("").empty());
  CHECK(parse_pci_resources("garbage\n0x10 0x0f 0x200\n").empty());  // end before start
}

TEST_CASE("parse_acs reads ACS from a config space, or says it is unknown", "[topology]") {
  CHECK_FALSE(parse_acs(std::string(64, '\0')).has_value());  // a user who is not root
  const auto conventional = parse_acs(std::string(256, '\0'));
  REQUIRE(conventional);
  CHECK_FALSE(conventional->present);
  std::string config(4096, '\0');
  // An AER capability at 0x100 pointing to ACS at 0x148 (id 0x0d, control 0x001d: SV RR CR UF).
  put32(config, 0x100, 0x0001u | (1u << 16) | (0x148u << 20));
  put32(config, 0x148, 0x000du | (1u << 16));
  put32(config, 0x14c, 0x007fu | (0x001du << 16));
  const auto acs = parse_acs(config);
  REQUIRE(acs);
  CHECK(acs->present);
  CHECK(acs->control == 0x001d);
  CHECK(acs->redirects());
  put32(config, 0x14c, 0x007fu | (0x0001u << 16));  // source validation only
  CHECK_FALSE(parse_acs(config)->redirects());
  put32(config, 0x100, 0x0001u | (1u << 16) | (0x100u << 20));  // a loop: stops, never hangs
  CHECK_FALSE(parse_acs(config)->present);
}

TEST_CASE("numa_node -1 is no node: KFD link properties keep weight and bandwidth", "[topology]") {
  CHECK_FALSE(parse_numa_node("-1\n").has_value());
  CHECK(parse_numa_node("7\n") == 7);
  // RVS gpup's print of an MI300X GPU->CPU io_link (ROCm/system-acceptance-docs).
  const auto link = kfd_link_from_properties(
      0, parse_kfd_properties("type 2\nversion_major 0\nversion_minor 0\nnode_from 2\nnode_to 0\n"
                              "weight 20\nmin_latency 0\nmax_latency 0\nmin_bandwidth 312\n"
                              "max_bandwidth 64000\nrecommended_transfer_size 0\nflags 1\n"));
  CHECK(link.type == KfdIoLink::pcie);
  CHECK(link.weight == 20U);
  CHECK(link.min_bandwidth == 312U);
  CHECK(link.max_bandwidth == 64000U);
}

TEST_CASE("topology.p2p: one XGMI hive, every link up or one down", "[topology]") {
  const Report healthy = fixture_report("mi300x-xgmi-hive-healthy");
  REQUIRE(healthy.topology);
  CHECK(healthy.topology->gpus.size() == 8);
  CHECK(healthy.topology->links.size() == 28);
  CHECK(std::all_of(healthy.topology->links.begin(), healthy.topology->links.end(),
                    [](const TopologyLink& l) {
                      return l.kind == GpuLinkKind::xgmi && l.hops == 1U && l.weight == 15U &&
                             l.max_bandwidth == 64000U;
                    }));
  CHECK(check_result(healthy, "topology.p2p").status == Status::pass);
  CHECK(check_result(healthy, "topology.p2p").evidence ==
        std::vector<std::string>{"28 pairs XGMI"});

  const Report down = fixture_report("mi300x-xgmi-link-down");
  const CheckResult& p2p = check_result(down, "topology.p2p");
  CHECK(p2p.status == Status::warn);
  CHECK(p2p.severity == Severity::warning);
  CHECK(p2p.message ==
        "GPU 2 (0000:5b:00.0) and GPU 5 (0000:a5:00.0): GPUs of one XGMI hive have no XGMI link "
        "between them: a link is down, and their traffic falls back to PCIe");
  CHECK(fix_commands(p2p) ==
        std::vector<std::string>{"amd-smi xgmi; sudo dmesg | grep -i xgmi", ""});
  const TopologyLink* link = down.topology->link(2, 5);
  REQUIRE(link);
  CHECK(link->hive_without_xgmi);
}

TEST_CASE("topology.p2p: a translating IOMMU is reported once, under iommu.mode", "[topology]") {
  const Report report = fixture_report("mi100-2-iommu-translating");
  const CheckResult& p2p = check_result(report, "topology.p2p");
  const CheckResult& iommu = check_result(report, "iommu.mode");
  CHECK(p2p.status == Status::warn);
  CHECK(iommu.status == Status::warn);
  CHECK(p2p.caused_by == std::vector<std::string>{"iommu.mode"});
  CHECK(fix_commands(p2p) == fix_commands(iommu));
  CHECK(contains(fix_commands(p2p).front(), "iommu=pt"));
  CHECK(report.topology->links.front().blocks ==
        std::vector<PeerBlock>{PeerBlock::iommu_translation});
  CHECK(report.topology->links.front().p2p == PeerAccess::unknown);  // 5.15: no p2p_links

  const Report pt = fixture_report("mi100-2-iommu-pt");
  CHECK(check_result(pt, "iommu.mode").status == Status::pass);
  const CheckResult& note = check_result(pt, "topology.p2p");
  CHECK(note.status == Status::warn);
  CHECK(note.severity == Severity::info);
  CHECK(fix_commands(note) == std::vector<std::string>{"export NCCL_P2P_DISABLE=1"});
}

TEST_CASE("topology.p2p: ACS on a switch, and the kernel's p2p_links", "[topology]") {
  const Report healthy = fixture_report("radeon-2x7900xtx-plx-p2p");
  const TopologyLink& link = healthy.topology->links.front();
  CHECK(link.kind == GpuLinkKind::pcie_switch);
  CHECK(link.meets_at == "0000:01:00.0");
  CHECK(link.p2p == PeerAccess::yes);
  CHECK(link.weight == 40U);
  CHECK(check_result(healthy, "topology.p2p").status == Status::pass);
  CHECK(check_result(healthy, "gpu.small-bar").status == Status::pass);

  const Report acs = fixture_report("radeon-2x7900xtx-plx-acs");
  const CheckResult& p2p = check_result(acs, "topology.p2p");
  CHECK(p2p.status == Status::warn);
  CHECK(p2p.message ==
        "GPU 0 (0000:05:00.0) and GPU 1 (0000:08:00.0): ACS on the PCIe switch "
        "sends their peer traffic up to the root complex");
  REQUIRE(p2p.fix.size() == 1);
  CHECK(p2p.fix.front().kind == FixKind::manual);
  CHECK(p2p.fix.front().needs_reboot);
  CHECK(acs.topology->links.front().p2p == PeerAccess::no);
  CHECK(acs.topology->links.front().blocks == std::vector<PeerBlock>{PeerBlock::acs_redirect});
}

TEST_CASE("NCCL_P2P_DISABLE: a leftover on direct paths, the workaround across sockets",
          "[topology]") {
  const Report direct = fixture_report("radeon-2x7900xtx-plx-nccl-p2p-disabled");
  const CheckResult& left = check_result(direct, "env.debug-left-on");
  CHECK(left.status == Status::warn);
  CHECK(fix_commands(left) == std::vector<std::string>{"unset NCCL_P2P_DISABLE"});
  const CheckResult& p2p = check_result(direct, "topology.p2p");
  CHECK(p2p.caused_by == std::vector<std::string>{"env.debug-left-on"});
  CHECK(fix_commands(p2p) == std::vector<std::string>{"unset NCCL_P2P_DISABLE"});

  const Report across = fixture_report("dual-socket-nccl-p2p-disable-workaround");
  const CheckResult& kept = check_result(across, "env.debug-left-on");
  CHECK(kept.status == Status::pass);
  REQUIRE(kept.evidence.size() == 1);
  CHECK(contains(kept.evidence.front(), "NCCL_P2P_DISABLE=1: kept"));
  CHECK(check_result(across, "topology.p2p").status == Status::pass);
  CHECK(across.topology->links.front().kind == GpuLinkKind::pcie_system);
  CHECK(across.topology->links.front().weight == 72U);

  const Report numa = fixture_report("dual-socket-gpu-per-numa");
  const CheckResult& note = check_result(numa, "topology.p2p");
  CHECK(note.severity == Severity::info);
  CHECK(note.message == "2 notes on the GPUs' peer-to-peer paths");
  CHECK(note.evidence.size() == 2);
  CHECK(fix_commands(note) == std::vector<std::string>{"export NCCL_P2P_DISABLE=1",
                                                       "export HSA_FORCE_FINE_GRAIN_PCIE=1"});
}

TEST_CASE("gpu.small-bar: a 256 MiB BAR on a 24 GiB card", "[topology]") {
  const Report report = fixture_report("rx7900xtx-small-bar");
  const CheckResult& bar = check_result(report, "gpu.small-bar");
  CHECK(bar.status == Status::warn);
  CHECK(bar.message ==
        "GPU 0 (0000:03:00.0): largest BAR 256 MiB, VRAM 24 GiB: Resizable BAR (Above 4G "
        "Decoding) is off, which slows host-device copies and blocks PCIe peer-to-peer");
  REQUIRE(bar.fix.size() == 1);
  CHECK(bar.fix.front().kind == FixKind::manual);
  CHECK(check_result(fixture_report("full-stack-healthy"), "gpu.small-bar").status == Status::skip);
}

namespace {

/// alice on a snapshot with `env` and these network and InfiniBand devices.
Report rccl_report(const std::string& env, const std::vector<std::string>& net,
                   const std::vector<std::string>& ib, const std::string& check = "env.rccl") {
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "rocdoc-snapshot/1", "env": )" + env + "}");
  for (const auto& name : net) {
    snap.file("/sys/class/net/" + name + "/type", "1\n");
  }
  for (const auto& name : ib) {
    snap.file("/sys/class/infiniband/" + name + "/node_type", "1: CA\n");
  }
  CheckSelection only;
  only.only = {check};
  return run_report(SnapshotHost(snap.dir()), embedded_knowledge(), only);
}

}  // namespace

TEST_CASE("env.rccl judges RCCL's settings against what exists", "[topology]") {
  const std::vector<std::string> net = {"eno1", "ibp65s0", "lo"};
  CHECK(check_result(rccl_report(R"({"NCCL_SOCKET_IFNAME": "eno"})", net, {}), "env.rccl").status ==
        Status::pass);
  CHECK(check_result(rccl_report(R"({"NCCL_SOCKET_IFNAME": "^docker,lo"})", net, {}), "env.rccl")
            .status == Status::pass);
  const CheckResult missing =
      check_result(rccl_report(R"({"NCCL_SOCKET_IFNAME": "eth0,ens"})", net, {}), "env.rccl");
  CHECK(missing.status == Status::warn);
  CHECK(contains(missing.message,
                 "NCCL_SOCKET_IFNAME=eth0,ens names no network interface of "
                 "this machine (it has eno1, ibp65s0, lo)"));
  CHECK(fix_commands(missing) == std::vector<std::string>{"unset NCCL_SOCKET_IFNAME"});
  CHECK(
      check_result(rccl_report(R"({"NCCL_SOCKET_IFNAME": "=eno"})", net, {}), "env.rccl").status ==
      Status::warn);  // = asks for the whole name
  CHECK(check_result(rccl_report(R"({"NCCL_IB_HCA": "mlx5_0:1"})", net, {"mlx5_0", "mlx5_1"}),
                     "env.rccl")
            .status == Status::pass);
  const CheckResult no_ib =
      check_result(rccl_report(R"({"NCCL_IB_HCA": "mlx5"})", net, {}), "env.rccl");
  CHECK(contains(no_ib.message, "names no InfiniBand device of this machine (it has none)"));
  const CheckResult nvl =
      check_result(rccl_report(R"({"NCCL_P2P_LEVEL": "NVL"})", net, {}), "env.rccl");
  CHECK(nvl.status == Status::warn);
  CHECK(contains(nvl.message, "RCCL calls that level XGMI"));
  for (const char* fine : {"PIX", "XGMI", "SYS", "3"}) {
    CHECK(check_result(rccl_report(std::string(R"({"NCCL_P2P_LEVEL": ")") + fine + "\"}", net, {}),
                       "env.rccl")
              .status == Status::pass);
  }
  CHECK(check_result(rccl_report(R"({"NCCL_NET_GDR_LEVEL": "pix"})", net, {}), "env.rccl").status ==
        Status::warn);  // case-sensitive
}

TEST_CASE("NCCL_P2P_DISABLE=1 without two GPUs is not judged", "[topology]") {
  const Report report =
      rccl_report(R"({"NCCL_P2P_DISABLE": "1"})", {"lo"}, {}, "env.debug-left-on");
  const CheckResult& result = check_result(report, "env.debug-left-on");
  CHECK(result.status == Status::pass);
  CHECK(result.evidence ==
        std::vector<std::string>{"NCCL_P2P_DISABLE=1: not judged: fewer than two discrete GPUs "
                                 "here (or their paths are unknown), where it changes nothing"});
  // RCCL reads 1 only: "true" and 2 are not its switch.
  CHECK(
      check_result(rccl_report(R"({"NCCL_P2P_DISABLE": "true"})", {"lo"}, {}, "env.debug-left-on"),
                   "env.debug-left-on")
          .evidence.empty());
}

TEST_CASE("rocdoc topology: 8 GPUs in 80 columns, ASCII, and its JSON", "[topology]") {
  CheckSelection selection;
  selection.only = {"topology.p2p", "gpu.small-bar", "iommu.mode"};
  selection.needed_probes_only = true;
  const Report report = fixture_report("mi300x-xgmi-link-down", selection);
  CHECK(std::none_of(report.probes.begin(), report.probes.end(),
                     [](const ProbeRecord& p) { return p.name == "python"; }));
  std::ostringstream text;
  render_topology(report, text, Glyphs::unicode);
  std::istringstream lines(text.str());
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) {
    all.push_back(line);
  }
  REQUIRE(all.size() > 9);
  CHECK(all[0] == "      GPU0   GPU1   GPU2   GPU3   GPU4   GPU5   GPU6   GPU7");
  CHECK(all[3] == "GPU2  XGMI1  XGMI1  X      XGMI1  XGMI1  SYS!   XGMI1  XGMI1");
  for (std::size_t i = 0; i < 9; ++i) {
    CHECK(all[i].size() <= 80);
  }
  CHECK(contains(text.str(), "[topology.p2p] GPU 2 (0000:5b:00.0) and GPU 5 (0000:a5:00.0)"));
  std::ostringstream ascii;
  render_topology(report, ascii, Glyphs::ascii);
  const std::string a = ascii.str();
  CHECK(std::none_of(a.begin(), a.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x80; }));
  std::ostringstream json_text;
  render_topology_json(report, json_text);
  const auto json = nlohmann::json::parse(json_text.str());
  CHECK(json["schema"] == "rocdoc-topology/1");
  CHECK(json["topology"]["gpus"].size() == 8);
  CHECK(json["topology"]["links"].size() == 28);
  CHECK(json["topology"]["gpus"][0]["hive_id"] == "0x938b1e71a8e9ae5f");
}

TEST_CASE("fleet: GPU links are an outlier dimension", "[topology]") {
  const auto fleet_report = [](const std::string& fixture) {
    std::ostringstream json;
    render_json(fixture_report(fixture), json);
    const FleetParse parse = parse_fleet_report(json.str());
    REQUIRE(parse.report);
    return *parse.report;
  };
  const FleetReport healthy = fleet_report("mi300x-xgmi-hive-healthy");
  const FleetReport down = fleet_report("mi300x-xgmi-link-down");
  CHECK(dimension_value(healthy, FleetDimension::topology) == "28 xgmi");
  CHECK(dimension_value(down, FleetDimension::topology) == "27 xgmi, 1 pcie_across_numa xgmi-down");
  CHECK(dimension_value(fleet_report("full-stack-healthy"), FleetDimension::topology) ==
        "no pairs");
  FleetReport old = healthy;
  old.topology_known = false;  // a report of rocdoc before the topology
  CHECK(dimension_value(old, FleetDimension::topology) == "unknown");
  std::vector<FleetNode> nodes;
  for (const auto& [name, report] :
       {std::pair{"n1", healthy}, std::pair{"n2", healthy}, std::pair{"n3", down}}) {
    FleetNode node;
    node.name = name;
    node.report = report;
    nodes.push_back(std::move(node));
  }
  const FleetSummary summary = summarize_fleet(nodes, {});
  const auto outlier =
      std::find_if(summary.outliers.begin(), summary.outliers.end(),
                   [](const FleetOutlier& o) { return o.dimension == FleetDimension::topology; });
  REQUIRE(outlier != summary.outliers.end());
  CHECK(outlier->majority == "28 xgmi");
  REQUIRE(outlier->others.size() == 1);
  CHECK(outlier->others.front().nodes == std::vector<std::string>{"n3"});
}

TEST_CASE("redaction keeps a PCI config space's header and ACS, nothing else", "[topology]") {
  std::string config(4096, '\0');
  put32(config, 0x00, 0x872510b5);  // PLX PEX 8725
  // A Device Serial Number capability (0x03) at 0x100, then ACS (0x0d) at 0x10c.
  put32(config, 0x100, 0x0003u | (1u << 16) | (0x10cu << 20));
  put32(config, 0x104, 0xdeadbeef);
  put32(config, 0x108, 0x00c0ffee);
  put32(config, 0x10c, 0x000du | (1u << 16));
  put32(config, 0x110, 0x007fu | (0x001du << 16));
  test::TempSnapshot snap;
  snap.manifest(test::k_minimal_manifest);
  snap.file("/sys/bus/pci/devices/0000:02:08.0/config", config);
  const SnapshotHost host(snap.dir());
  const RedactingHost redacted(host);
  const auto kept = redacted.read_file("/sys/bus/pci/devices/0000:02:08.0/config", 4096);
  REQUIRE(kept);
  CHECK(kept->size() == 4096);
  CHECK(kept->substr(0, 64) == config.substr(0, 64));
  CHECK(kept->find("\xef\xbe\xad\xde") == std::string::npos);  // the serial is gone
  const auto acs = parse_acs(*kept);
  REQUIRE(acs);
  CHECK(acs->present);
  CHECK(acs->control == 0x001d);
  CHECK(parse_acs(config)->control == 0x001d);  // the same answer as the unredacted file
}

TEST_CASE("with --deep, rocm_smi's link type of a flagged pair is in the finding", "[topology]") {
  Report report = fixture_report("mi300x-xgmi-link-down");
  SmiRuntimeFacts smi;
  // rocm_smi's BDFIDs of 0000:5b:00.0 and 0000:a5:00.0 (bus << 8), and its link between them.
  for (const auto& [index, bus] : {std::pair{2, 0x5bULL}, std::pair{5, 0xa5ULL}}) {
    SmiDevice device;
    device.index = index;
    device.pci_id = bus << 8;
    smi.devices.push_back(device);
  }
  SmiLink link;
  link.from = 2;
  link.to = 5;
  link.type = 1;  // RSMI_IOLINK_TYPE_PCIEXPRESS
  link.hops = 3;
  smi.links.push_back(link);
  report.facts.runtime = RuntimeFacts{};
  report.facts.runtime->smi = smi;
  const CheckResult result = checks::topology_p2p(test::check_context(report.facts));
  CHECK(result.message ==
        "GPU 2 (0000:5b:00.0) and GPU 5 (0000:a5:00.0) (rocm_smi, --deep: PCIe, 3 hops): GPUs of "
        "one XGMI hive have no XGMI link between them: a link is down, and their traffic falls "
        "back to PCIe");
}

TEST_CASE("a refusal with no cause rocdoc can see points at the kernel's log", "[topology]") {
  Report report = fixture_report("radeon-2x7900xtx-plx-acs");
  for (auto& device : report.facts.pci->devices) {
    device.acs.reset();  // as a user who is not root reads it: 64 bytes, ACS unknown
  }
  const CheckResult result = checks::topology_p2p(test::check_context(report.facts));
  CHECK(result.status == Status::warn);
  CHECK(result.message ==
        "GPU 0 (0000:05:00.0) and GPU 1 (0000:08:00.0): the kernel found no PCIe "
        "peer-to-peer path between them (no KFD p2p_link)");
  CHECK(fix_commands(result) == std::vector<std::string>{"sudo dmesg | grep -i 'p2p'"});
}

TEST_CASE("iommu=pt asked but the groups still translate: where to look, not iommu=pt again",
          "[topology]") {
  Report report = fixture_report("mi100-2-iommu-translating");
  report.facts.system->iommu_params = {"iommu=pt"};
  const CheckResult result = checks::topology_p2p(test::check_context(report.facts));
  CHECK(fix_commands(result) ==
        std::vector<std::string>{"cat /proc/cmdline; cat /sys/kernel/iommu_groups/*/type | sort "
                                 "| uniq -c"});
}
