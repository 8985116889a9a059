// `rocdoc topology` for people: the GPU×GPU matrix in the layout of `nvidia-smi topo -m`, then
// each GPU's placement (NUMA node, CPUs, PCIe link, BAR, XGMI hive), the legend, and what the
// multi-GPU checks found. Fits 80 columns for 8 GPUs.
#include <fmt/format.h>

#include <sstream>

#include "rocdoc/render.h"
#include "src/render/text_layout.h"
#include "src/util/byte_size.h"

namespace rocdoc {

namespace {

constexpr std::size_t k_cell = 7;  // "XGMI15 " fits; 5 + 8 × 7 = 61 columns for 8 GPUs

/// A cell of the matrix: the link's label, its XGMI hops, and '!' where the kernel refuses
/// peer-to-peer or something stands in its way.
std::string cell(const GpuTopology& topology, int a, int b) {
  if (a == b) {
    return "X";
  }
  const TopologyLink* link = topology.link(a, b);
  if (link == nullptr) {
    return "?";
  }
  std::string text(link_label(link->kind));
  if (link->kind == GpuLinkKind::xgmi && link->hops) {
    text += std::to_string(*link->hops);
  }
  if (link->hive_without_xgmi || link->p2p == PeerAccess::no ||
      (link->kind != GpuLinkKind::xgmi && link->p2p != PeerAccess::yes && !link->blocks.empty())) {
    text += "!";
  }
  return text;
}

/// A line of the matrix, without the padding after its last cell.
void put_row(std::ostream& out, std::string row) {
  row.erase(row.find_last_not_of(' ') + 1);
  out << row << "\n";
}

void render_matrix(const GpuTopology& topology, std::ostream& out) {
  const int count = static_cast<int>(topology.gpus.size());
  std::string header = fmt::format("{:<6}", "");
  for (int b = 0; b < count; ++b) {
    header += fmt::format("{:<{}}", fmt::format("GPU{}", b), k_cell);
  }
  put_row(out, std::move(header));
  for (int a = 0; a < count; ++a) {
    std::string row = fmt::format("{:<6}", fmt::format("GPU{}", a));
    for (int b = 0; b < count; ++b) {
      row += fmt::format("{:<{}}", cell(topology, a, b), k_cell);
    }
    put_row(out, std::move(row));
  }
}

std::string pcie_text(const PciLink& link) {
  if (!link.current_speed && !link.current_width) {
    return "";
  }
  std::string speed = link.current_speed.value_or("?");
  const auto space = speed.find(' ');
  if (space != std::string::npos) {
    speed.resize(space);  // "16.0 GT/s PCIe" → "16.0"
  }
  return fmt::format("PCIe {} GT/s x{}", speed,
                     link.current_width ? std::to_string(*link.current_width) : "?");
}

std::string placement(const TopologyGpu& gpu) {
  std::vector<std::string> parts;
  parts.push_back(gpu.numa_node ? fmt::format("NUMA {}", *gpu.numa_node) : "NUMA -");
  if (gpu.local_cpus) {
    parts.push_back("CPUs " + *gpu.local_cpus);
  }
  if (auto pcie = pcie_text(gpu.link); !pcie.empty()) {
    parts.push_back(std::move(pcie));
  }
  if (gpu.bar) {
    parts.push_back(gpu.vram ? fmt::format("BAR {} (VRAM {})", util::byte_size_text(*gpu.bar),
                                           util::byte_size_text(*gpu.vram))
                             : "BAR " + util::byte_size_text(*gpu.bar));
  }
  if (gpu.hive_id) {
    parts.push_back(fmt::format("hive {:016x}", *gpu.hive_id));
  }
  if (gpu.iommu_domain) {
    parts.push_back("IOMMU " + *gpu.iommu_domain);
  }
  std::string text;
  for (const auto& part : parts) {
    text += (text.empty() ? "" : " · ") + part;
  }
  return text;
}

void render_gpus(const GpuTopology& topology, std::ostream& out) {
  for (std::size_t i = 0; i < topology.gpus.size(); ++i) {
    const TopologyGpu& gpu = topology.gpus[i];
    out << fmt::format("{:<6}{}{}{}\n", fmt::format("GPU{}", i),
                       gpu.bdf.empty() ? "" : gpu.bdf + "  ", gpu.name,
                       gpu.gfx_target.empty() ? "" : " · " + gpu.gfx_target);
    out << fmt::format("{:<6}{}\n", "", placement(gpu));
  }
}

constexpr std::string_view k_legend =
    "Legend:\n"
    "  X      the GPU itself\n"
    "  XGMIn  AMD's GPU-to-GPU link (XGMI), n hops\n"
    "  PIX    PCIe through a switch, not through the CPU\n"
    "  PHB    PCIe through one host bridge (root complex) of the CPU\n"
    "  NODE   PCIe through two host bridges of one NUMA node\n"
    "  SYS    PCIe across NUMA nodes (the CPUs' interconnect)\n"
    "  ?      unknown (no PCI path)\n"
    "  !      no direct peer-to-peer: the kernel refuses it, or something stands in its way\n"
    "         (rocdoc explain topology.p2p)\n";

constexpr std::string_view k_topology_checks[] = {"topology.p2p", "gpu.small-bar", "iommu.mode"};

void render_findings(const Report& report, std::ostream& out) {
  bool any = false;
  for (const auto& record : report.checks) {
    const std::string_view id = record.info->id;
    if (std::find(std::begin(k_topology_checks), std::end(k_topology_checks), id) ==
            std::end(k_topology_checks) ||
        (record.result.status != Status::warn && record.result.status != Status::fail)) {
      continue;
    }
    out << (any ? "" : "\n") << "[" << id << "] " << record.result.message << "\n";
    for (const auto& line : record.result.evidence) {
      out << "  " << line << "\n";
    }
    for (const auto& fix : record.result.fix) {
      out << "  " << fix.description << (fix.command.empty() ? "" : ":\n      " + fix.command)
          << "\n";
    }
    any = true;
  }
}

}  // namespace

void render_topology(const Report& report, std::ostream& out, Glyphs glyphs) {
  std::ostringstream text;
  const GpuTopology empty;
  const GpuTopology& topology = report.topology ? *report.topology : empty;
  if (topology.gpus.empty()) {
    text << "No AMD GPU: there is no topology to show.\n";
  } else {
    if (topology.gpus.size() == 1) {
      text << "One AMD GPU: no pairs.\n\n";
    } else {
      render_matrix(topology, text);
      text << "\n";
    }
    render_gpus(topology, text);
    if (topology.gpus.size() > 1) {
      text << "\n" << k_legend;
    }
    render_findings(report, text);
  }
  out << (glyphs == Glyphs::ascii ? text::to_ascii(text.str()) : text.str());
}

}  // namespace rocdoc
