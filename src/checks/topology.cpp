// Many GPUs: topology.p2p, gpu.small-bar and env.rccl, over the GPU×GPU topology
// (gpu_topology.h) and RCCL's settings.
#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "src/checks/checks.h"
#include "src/checks/gpu_topology.h"
#include "src/checks/runtime_causes.h"
#include "src/util/byte_size.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

std::string gpu_label(const GpuTopology& topology, int index) {
  const TopologyGpu& gpu = topology.gpus[static_cast<std::size_t>(index)];
  return gpu.bdf.empty() ? fmt::format("GPU {}", index)
                         : fmt::format("GPU {} ({})", index, gpu.bdf);
}

std::string pair_label(const GpuTopology& topology, const TopologyLink& link) {
  return gpu_label(topology, link.first) + " and " + gpu_label(topology, link.second);
}

/// NCCL_P2P_DISABLE is set to what RCCL honours (its rule's left_on: exactly 1).
bool p2p_disabled_by_env(const CheckContext& context) {
  const std::string name = "NCCL_P2P_DISABLE";
  const std::string* value = context.facts.env ? context.facts.env->find(name) : nullptr;
  const EnvVariable* variable = context.knowledge.env_variable(name);
  return value != nullptr && variable != nullptr && variable->left_on &&
         is_left_on(*variable->left_on, *value);
}

/// HSA_FORCE_FINE_GRAIN_PCIE is 1, as RCCL wants it for PCIe peer-to-peer.
bool fine_grain_pcie(const CheckContext& context) {
  const std::string* value =
      context.facts.env ? context.facts.env->find("HSA_FORCE_FINE_GRAIN_PCIE") : nullptr;
  return value != nullptr && *value == "1";
}

/// What one cause of missing peer-to-peer is, with its pairs and fixes.
struct Cause {
  std::string message;
  std::vector<std::string> pairs;
  std::vector<Fix> fix;
  Severity severity = Severity::warning;
};

Fix firmware_bar_fix() {
  return {
      "Enable Above 4G Decoding and Re-Size BAR Support (Resizable BAR) in the firmware setup, "
      "then reboot: the BAR then covers all of the VRAM",
      "", true, FixKind::manual, true};
}

Fix firmware_acs_fix() {
  return {
      "Turn off ACS for the PCIe switch in the firmware setup (often 'ACS Enable' or "
      "'PCIe ACS' under the PCIe or chipset settings), then reboot; or put the GPUs on a "
      "switch without it",
      "", true, FixKind::manual, true};
}

/// With --deep (or a snapshot's runtime record): what rocm_smi says of a pair, found by the
/// devices' BDFs; empty when it said nothing of it.
std::string smi_says(const CheckContext& context, const GpuTopology& topology,
                     const TopologyLink& link) {
  if (!context.facts.runtime || !context.facts.runtime->smi) {
    return "";
  }
  const SmiRuntimeFacts& smi = *context.facts.runtime->smi;
  const auto index_of = [&](int gpu) -> std::optional<int> {
    const std::string& bdf = topology.gpus[static_cast<std::size_t>(gpu)].bdf;
    for (const auto& device : smi.devices) {
      if (device.pci_id && !bdf.empty() && bdf_of(*device.pci_id) == util::to_lower(bdf)) {
        return device.index;
      }
    }
    return std::nullopt;
  };
  const auto a = index_of(link.first);
  const auto b = index_of(link.second);
  for (const auto& smi_link : smi.links) {
    if (a && b &&
        ((smi_link.from == *a && smi_link.to == *b) ||
         (smi_link.from == *b && smi_link.to == *a))) {
      return fmt::format(" (rocm_smi, --deep: {}{})", smi_link_name(smi_link.type),
                         smi_link.hops ? fmt::format(", {} hops", *smi_link.hops) : "");
    }
  }
  return "";
}

/// iommu=pt on the command line; or, where it is there and the kernel still translates, where
/// to look (a later iommu.passthrough=0 or iommu=nopt wins over it).
Fix iommu_fix(const CheckContext& context) {
  if (context.facts.system && iommu_passes_dma_through(*context.facts.system)) {
    return {
        "The command line asks for passthrough but the GPUs' IOMMU groups still translate: "
        "look for a later iommu.passthrough=0 or iommu=nopt, "
        "remove it, then reboot",
        "cat /proc/cmdline; cat /sys/kernel/iommu_groups/*/type | sort | uniq -c", false};
  }
  return {"Add iommu=pt to the kernel command line, then reboot",
          add_kernel_argument_command(context.facts, "iommu=pt"), true, FixKind::kernel_argument,
          true};
}

std::vector<Cause> peer_causes(const CheckContext& context, const GpuTopology& topology,
                               const std::vector<const TopologyLink*>& pairs) {
  std::map<PeerBlock, Cause> by_block;
  Cause hive;
  Cause refused;
  for (const TopologyLink* link : pairs) {
    if (link->hive_without_xgmi) {
      hive.pairs.push_back(pair_label(topology, *link) + smi_says(context, topology, *link));
    }
    if (link->kind == GpuLinkKind::xgmi || link->p2p == PeerAccess::yes) {
      continue;
    }
    if (link->blocks.empty() && link->p2p == PeerAccess::no) {
      refused.pairs.push_back(pair_label(topology, *link));
    }
    for (const PeerBlock block : link->blocks) {
      by_block[block].pairs.push_back(pair_label(topology, *link));
    }
  }
  std::vector<Cause> causes;
  if (!hive.pairs.empty()) {
    hive.message =
        "GPUs of one XGMI hive have no XGMI link between them: a link is down, and "
        "their traffic falls back to PCIe";
    hive.fix = {{"See which XGMI links are up and what the kernel said when it trained them",
                 "amd-smi xgmi; sudo dmesg | grep -i xgmi", true},
                {"A link that stays down after a cold boot is a hardware or firmware matter: "
                 "report it to the system's vendor with that output",
                 "", false, FixKind::manual}};
    causes.push_back(std::move(hive));
  }
  for (auto& [block, cause] : by_block) {
    switch (block) {
      case PeerBlock::iommu_translation:
        cause.message =
            "the IOMMU translates the GPUs' DMA, so their peer traffic goes through "
            "translation: slow, and RCCL warns of hangs without iommu=pt";
        cause.fix = {iommu_fix(context)};
        break;
      case PeerBlock::acs_redirect:
        cause.message = "ACS on the PCIe switch sends their peer traffic up to the root complex";
        cause.fix = {firmware_acs_fix()};
        break;
      case PeerBlock::small_bar:
        cause.message =
            "a GPU's BAR is smaller than its VRAM, and the kernel allows PCIe "
            "peer-to-peer only to a GPU whose VRAM is all mapped";
        cause.fix = {firmware_bar_fix()};
        break;
      case PeerBlock::p2p_switched_off:
        cause.message =
            "amdgpu's pcie_p2p parameter is off, so the kernel allows no PCIe "
            "peer-to-peer";
        cause.fix = {
            {"Take amdgpu.pcie_p2p=0 (or an `options amdgpu pcie_p2p=0` line) out of the "
             "kernel command line or /etc/modprobe.d, then reboot",
             "grep -rn pcie_p2p /proc/cmdline /etc/modprobe.d", false}};
        break;
    }
    causes.push_back(std::move(cause));
  }
  if (!refused.pairs.empty()) {
    refused.message = "the kernel found no PCIe peer-to-peer path between them (no KFD p2p_link)";
    refused.fix = {
        {"See the kernel's reason (newer kernels log 'PCIe P2P access from peer device "
         "… is not supported by the chipset'); a root complex without peer-to-peer "
         "(Intel hosts outside the kernel's list) needs the GPUs under one PCIe switch",
         "sudo dmesg | grep -i 'p2p'", true}};
    causes.push_back(std::move(refused));
  }
  return causes;
}

/// Pairs whose path crosses CPU root ports: RCCL's direct P2P can be slower than host memory.
std::vector<std::string> across_root_ports(const GpuTopology& topology,
                                           const std::vector<const TopologyLink*>& pairs) {
  std::vector<std::string> labels;
  for (const TopologyLink* link : pairs) {
    if ((link->kind == GpuLinkKind::pcie_host || link->kind == GpuLinkKind::pcie_node ||
         link->kind == GpuLinkKind::pcie_system) &&
        link->p2p != PeerAccess::no && link->blocks.empty() && !link->hive_without_xgmi) {
      labels.push_back(fmt::format("{}: {}", pair_label(topology, *link), link_label(link->kind)));
    }
  }
  return labels;
}

std::string cause_text(const Cause& cause) {
  return cause.pairs.empty() ? cause.message
                             : fmt::format("{}: {}", util::join(cause.pairs, "; "), cause.message);
}

/// The pairs a cause names, short: "every pair of the 8 GPUs", or the first few and a count.
std::vector<std::string> short_pairs(std::vector<std::string> pairs, std::size_t all_pairs,
                                     std::size_t gpus) {
  constexpr std::size_t k_shown = 4;
  if (pairs.size() == all_pairs && all_pairs > 1) {
    return {fmt::format("every pair of the {} GPUs", gpus)};
  }
  if (pairs.size() > k_shown) {
    const std::size_t more = pairs.size() - k_shown;
    pairs.resize(k_shown);
    pairs.back() += fmt::format(" and {} more pair{}", more, more == 1 ? "" : "s");
  }
  return pairs;
}

CheckResult combine(std::vector<Cause> causes) {
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  Severity severity = Severity::info;
  for (auto& cause : causes) {
    evidence.push_back(cause_text(cause));
    for (auto& f : cause.fix) {
      fix.push_back(std::move(f));
    }
    if (cause.severity == Severity::warning) {
      severity = Severity::warning;
    }
  }
  std::string headline =
      causes.size() == 1 ? cause_text(causes.front())
      : severity == Severity::info
          ? fmt::format("{} notes on the GPUs' peer-to-peer paths", causes.size())
          : fmt::format("Peer-to-peer between the GPUs is impaired for {} reasons", causes.size());
  return finding(severity, std::move(headline),
                 causes.size() == 1 ? std::vector<std::string>{} : std::move(evidence),
                 std::move(fix));
}

}  // namespace

CheckResult topology_p2p(const CheckContext& context) {
  const GpuTopology topology = build_gpu_topology(context.facts, context.amd_gpus);
  const auto pairs = discrete_pairs(topology);
  if (pairs.empty()) {
    return pass("fewer than two discrete AMD GPUs: peer-to-peer does not apply");
  }
  std::vector<Cause> causes = peer_causes(context, topology, pairs);
  const bool p2p_disabled = p2p_disabled_by_env(context);
  if (p2p_disabled && every_pair_direct(topology)) {
    causes.push_back(
        {"NCCL_P2P_DISABLE is set, so RCCL does not use the direct paths these GPUs "
         "have (XGMI or one PCIe switch) and stages every transfer through host "
         "memory",
         {},
         {{"Unset it, and take it out of where it is set (a shell profile, a job "
           "script, a container's ENV)",
           "unset NCCL_P2P_DISABLE", false}}});
  }
  const auto crossing = across_root_ports(topology, pairs);
  if (!crossing.empty() && !p2p_disabled) {
    causes.push_back(
        {"their path crosses CPU root ports, where RCCL's direct peer-to-peer can "
         "be slower than staging through host memory: if collectives are slow, "
         "NCCL_P2P_DISABLE=1 is the workaround",
         crossing,
         {{"Only if RCCL's collectives measure slow (rccl-tests): turn direct "
           "peer-to-peer off for the job",
           "export NCCL_P2P_DISABLE=1", false}},
         Severity::info});
  }
  const bool pcie_peers = std::any_of(pairs.begin(), pairs.end(), [](const TopologyLink* link) {
    return link->kind != GpuLinkKind::xgmi && link->p2p == PeerAccess::yes;
  });
  if (pcie_peers && !p2p_disabled && !fine_grain_pcie(context)) {
    causes.push_back(
        {"HSA_FORCE_FINE_GRAIN_PCIE=1 is not set, which RCCL needs for peer-to-peer "
         "between PCIe-connected GPUs (it warns 'Missing \"HSA_FORCE_FINE_GRAIN_PCIE=1\"' "
         "at every start)",
         {},
         {{"Set it where RCCL jobs start (a job script, the container's ENV)",
           "export HSA_FORCE_FINE_GRAIN_PCIE=1", false}},
         Severity::info});
  }
  std::size_t discrete = 0;
  for (const auto& gpu : topology.gpus) {
    discrete += gpu.integrated ? 0 : 1;
  }
  for (auto& cause : causes) {
    cause.pairs = short_pairs(std::move(cause.pairs), pairs.size(), discrete);
  }
  if (causes.empty()) {
    std::map<GpuLinkKind, int> kinds;
    for (const TopologyLink* link : pairs) {
      ++kinds[link->kind];
    }
    std::vector<std::string> evidence;
    for (const auto& [kind, count] : kinds) {
      evidence.push_back(
          fmt::format("{} pair{} {}", count, count == 1 ? "" : "s", link_label(kind)));
    }
    return pass("the GPUs reach each other directly", evidence);
  }
  return combine(std::move(causes));
}

CheckResult gpu_small_bar(const CheckContext& context) {
  const GpuTopology topology = build_gpu_topology(context.facts, context.amd_gpus);
  std::vector<std::string> small;
  int judged = 0;
  for (std::size_t i = 0; i < topology.gpus.size(); ++i) {
    const TopologyGpu& gpu = topology.gpus[i];
    if (gpu.integrated || !gpu.bar || !gpu.vram) {
      continue;
    }
    ++judged;
    if (bar_smaller_than_vram(gpu)) {
      small.push_back(fmt::format("{}: largest BAR {}, VRAM {}",
                                  gpu_label(topology, static_cast<int>(i)),
                                  util::byte_size_text(*gpu.bar), util::byte_size_text(*gpu.vram)));
    }
  }
  if (judged == 0) {
    return skip("no discrete AMD GPU with both its BARs and its VRAM known");
  }
  if (small.empty()) {
    return pass("every discrete GPU's BAR covers its VRAM");
  }
  return finding(Severity::warning,
                 small.size() == 1
                     ? small.front() +
                           ": Resizable BAR (Above 4G Decoding) is off, which slows "
                           "host-device copies and blocks PCIe peer-to-peer"
                     : fmt::format("{} GPUs have a BAR smaller than their VRAM: Resizable BAR "
                                   "(Above 4G Decoding) is off, which slows host-device copies "
                                   "and blocks PCIe peer-to-peer",
                                   small.size()),
                 small.size() == 1 ? std::vector<std::string>{} : small, {firmware_bar_fix()});
}

}  // namespace rocdoc::checks

namespace rocdoc::checks {

namespace {

/// An entry of NCCL_SOCKET_IFNAME or NCCL_IB_HCA matches a name: a prefix, or with a leading
/// '=' the whole name (RCCL's matchIfList); an HCA entry's ":port" is not part of the name.
bool entry_matches(std::string_view entry, std::string_view name, bool exact) {
  return exact ? name == entry : name.substr(0, entry.size()) == entry;
}

struct NameList {
  bool exclude = false;  ///< '^': every name but these
  bool exact = false;    ///< '=': whole names
  std::vector<std::string> entries;
};

NameList parse_name_list(std::string_view value, bool ports) {
  NameList list;
  value = util::trim(value);
  if (!value.empty() && value.front() == '^') {
    list.exclude = true;
    value.remove_prefix(1);
  }
  if (!value.empty() && value.front() == '=') {
    list.exact = true;
    value.remove_prefix(1);
  }
  for (auto entry : util::split(value, ',')) {
    entry = util::trim(entry);
    if (ports) {
      entry = entry.substr(0, entry.find(':'));
    }
    if (!entry.empty()) {
      list.entries.emplace_back(entry);
    }
  }
  return list;
}

/// The entries that name nothing on this machine; empty for an exclusion list (it cannot).
std::vector<std::string> unmatched(const NameList& list, const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  if (list.exclude) {
    return missing;
  }
  for (const auto& entry : list.entries) {
    if (std::none_of(names.begin(), names.end(), [&](const std::string& name) {
          return entry_matches(entry, name, list.exact);
        })) {
      missing.push_back(entry);
    }
  }
  return missing;
}

struct RcclProblem {
  std::string text;
  std::optional<Fix> fix;  ///< none for a name no shell variable can have
};

void judge_interface_list(const CheckContext& context, const std::string& variable,
                          const std::optional<std::vector<std::string>>& present, bool ports,
                          std::string_view what, std::string_view consequence,
                          std::vector<RcclProblem>& problems) {
  const std::string* value = context.facts.env->find(variable);
  if (value == nullptr || !present) {
    return;
  }
  const NameList list = parse_name_list(*value, ports);
  const auto missing = unmatched(list, *present);
  if (missing.empty() || missing.size() < list.entries.size()) {
    return;  // at least one entry names something here
  }
  problems.push_back(
      {fmt::format(
           "{}={} names no {} of this machine ({}): {}", variable, util::excerpt(*value, 60), what,
           present->empty() ? "it has none" : "it has " + util::join(*present, ", "), consequence),
       Fix{"Name one that exists (a prefix, or =NAME for the whole name), or unset it and let "
           "RCCL choose",
           "unset " + variable, false}});
}

}  // namespace

CheckResult env_rccl(const CheckContext& context) {
  std::vector<RcclProblem> problems;
  const SystemFacts* system = context.facts.system ? &*context.facts.system : nullptr;
  if (system != nullptr) {
    judge_interface_list(context, "NCCL_SOCKET_IFNAME", system->net_interfaces, false,
                         "network interface",
                         "RCCL finds no interface for its bootstrap and fails to start "
                         "(\"Bootstrap : no socket interface found\")",
                         problems);
    judge_interface_list(context, "NCCL_IB_HCA", system->infiniband_devices, true,
                         "InfiniBand device",
                         "RCCL finds no InfiniBand device (\"NET/IB : No device found\") and "
                         "falls back to TCP sockets between nodes, far slower",
                         problems);
  }
  for (const auto& unaccepted : unaccepted_values(context, ValueJudge::rccl)) {
    RcclProblem problem{fmt::format("{}={} is not a value RCCL takes: {}", unaccepted.name,
                                    util::excerpt(unaccepted.value, 40), unaccepted.accepts->says),
                        std::nullopt};
    if (util::is_shell_name(unaccepted.name)) {
      problem.fix = Fix{fmt::format("Set one of {}, or unset it (the default applies)",
                                    util::join(unaccepted.accepts->values, ", ")),
                        "unset " + unaccepted.name, false};
    }
    problems.push_back(std::move(problem));
  }
  if (problems.empty()) {
    return pass("RCCL's settings name what exists here");
  }
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  for (auto& problem : problems) {
    evidence.push_back(problem.text);
    if (problem.fix) {
      fix.push_back(std::move(*problem.fix));
    }
  }
  return finding(Severity::warning,
                 problems.size() == 1
                     ? evidence.front()
                     : fmt::format("{} RCCL settings are wrong here", problems.size()),
                 problems.size() == 1 ? std::vector<std::string>{} : evidence, std::move(fix));
}

}  // namespace rocdoc::checks
