#include "src/render/topology_json.h"

#include <fmt/format.h>

#include "rocdoc/render.h"
#include "src/facts/json.h"

namespace rocdoc {

namespace {

using json = nlohmann::ordered_json;

json gpu_json(const TopologyGpu& gpu, std::size_t index) {
  return {{"index", index},
          {"name", gpu.name},
          {"bdf", gpu.bdf.empty() ? json(nullptr) : json(gpu.bdf)},
          {"gfx_target", gpu.gfx_target.empty() ? json(nullptr) : json(gpu.gfx_target)},
          {"kfd_node", optional_json(gpu.kfd_node)},
          {"integrated", gpu.integrated},
          {"numa_node", optional_json(gpu.numa_node)},
          {"local_cpus", optional_json(gpu.local_cpus)},
          {"pcie",
           {{"current_speed", optional_json(gpu.link.current_speed)},
            {"current_width", optional_json(gpu.link.current_width)},
            {"max_speed", optional_json(gpu.link.max_speed)},
            {"max_width", optional_json(gpu.link.max_width)}}},
          {"bar", optional_json(gpu.bar)},
          {"vram", optional_json(gpu.vram)},
          {"hive_id", gpu.hive_id ? json(fmt::format("0x{:016x}", *gpu.hive_id)) : json(nullptr)},
          {"iommu_domain", optional_json(gpu.iommu_domain)},
          {"root_port", gpu.root_port.empty() ? json(nullptr) : json(gpu.root_port)}};
}

json link_json(const TopologyLink& link) {
  json blocks = json::array();
  for (const PeerBlock block : link.blocks) {
    blocks.push_back(to_string(block));
  }
  return {{"gpus", {link.first, link.second}},
          {"type", to_string(link.kind)},
          {"label", link_label(link.kind)},
          {"hops", optional_json(link.hops)},
          {"weight", optional_json(link.weight)},
          {"max_bandwidth", optional_json(link.max_bandwidth)},
          {"p2p", to_string(link.p2p)},
          {"blocks", blocks},
          {"meets_at", link.meets_at.empty() ? json(nullptr) : json(link.meets_at)},
          {"hive_without_xgmi", link.hive_without_xgmi}};
}

}  // namespace

json topology_to_json(const GpuTopology& topology) {
  json gpus = json::array();
  for (std::size_t i = 0; i < topology.gpus.size(); ++i) {
    gpus.push_back(gpu_json(topology.gpus[i], i));
  }
  json links = json::array();
  for (const auto& link : topology.links) {
    links.push_back(link_json(link));
  }
  return {{"gpus", gpus}, {"links", links}};
}

void render_topology_json(const Report& report, std::ostream& out) {
  json findings = json::array();
  for (const auto& record : report.checks) {
    findings.push_back({{"id", record.info->id},
                        {"status", to_string(record.result.status)},
                        {"severity", to_string(record.result.severity)},
                        {"message", record.result.message}});
  }
  const GpuTopology empty;
  json document = {{"schema", "rocdoc-topology/1"},
                   {"tool", {{"name", "rocdoc"}, {"version", report.tool_version}}},
                   {"host",
                    {{"kind", report.host_kind == HostKind::live      ? "live"
                              : report.host_kind == HostKind::sysroot ? "sysroot"
                                                                      : "snapshot"},
                     {"origin", report.host_origin}}},
                   {"topology", topology_to_json(report.topology ? *report.topology : empty)},
                   {"checks", findings}};
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
