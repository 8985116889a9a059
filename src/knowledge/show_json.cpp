#include "src/knowledge/show_json.h"
#include "src/render/compute_json.h"

#include "src/knowledge/show.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace rocdoc {

namespace {

using json = nlohmann::ordered_json;

std::string_view verdict_word(OverrideVerdict verdict) {
  switch (verdict) {
    case OverrideVerdict::works:
      return "works";
    case OverrideVerdict::unneeded:
      return "unneeded";
    case OverrideVerdict::dangerous:
      return "dangerous";
    case OverrideVerdict::none:
      break;
  }
  return "none";
}

std::string_view kind_word(GpuKind kind) {
  return kind == GpuKind::radeon ? "radeon" : kind == GpuKind::instinct ? "instinct" : "apu";
}

std::string_view lookup_word(RulesLookup::Kind kind) {
  switch (kind) {
    case RulesLookup::Kind::gfx_target:
      return "gfx_target";
    case RulesLookup::Kind::pci_id:
      return "pci_id";
    case RulesLookup::Kind::product:
      return "product";
    case RulesLookup::Kind::torch:
      return "torch";
    case RulesLookup::Kind::torch_version:
      return "torch_version";
    case RulesLookup::Kind::rocm:
      return "rocm";
    case RulesLookup::Kind::driver:
      return "driver";
    case RulesLookup::Kind::newer:
      return "newer";
    case RulesLookup::Kind::none:
      break;
  }
  return "none";
}

json target_json(const Knowledge& knowledge, const GfxTarget& target) {
  json rocm = json::object();
  for (const auto& [release, status] : target.rocm) {
    rocm[release] = status;
  }
  json wheels = json::array();
  for (const auto& release : knowledge.torch_releases) {
    if (std::find(release.gfx.begin(), release.gfx.end(), target.name) != release.gfx.end()) {
      wheels.push_back(release.torch);
    }
  }
  json amd = json::array();
  for (const auto& set : knowledge.amd_wheels) {
    if (std::find(set.devices.begin(), set.devices.end(), target.name) != set.devices.end()) {
      amd.push_back({{"torch", set.torch}, {"rocm", set.rocm}, {"index_url", set.index_url}});
    }
  }
  json override_value = nullptr;
  if (target.override_value) {
    const GfxOverride& o = *target.override_value;
    override_value = {
        {"value", o.value.empty() ? json(nullptr) : json(o.value)},
        {"verdict", verdict_word(o.verdict)},
        {"unneeded_since_torch",
         o.unneeded_since_torch.empty() ? json(nullptr) : json(o.unneeded_since_torch)},
        {"says", o.says},
        {"source", o.source}};
  }
  json ids = json::array();
  for (const auto& entry : knowledge.pci_ids) {
    if (entry.gfx == target.name) {
      ids.push_back(fmt::format("{:04x}", entry.device));
    }
  }
  return {{"name", target.name},
          {"kfd", target.kfd},
          {"family", target.family},
          {"kind", kind_word(target.kind)},
          {"products", target.products},
          {"processors", target.processors},
          {"generic", target.generic.empty() ? json(nullptr) : json(target.generic)},
          {"rocm", rocm},
          {"torch_wheels", wheels},
          {"amd_wheels", amd},
          {"override", override_value},
          {"memory_kernel", target.memory_kernel ? json{{"version", target.memory_kernel->version},
                                                        {"says", target.memory_kernel->says},
                                                        {"source", target.memory_kernel->source}}
                                                 : json(nullptr)},
          {"compute", target.compute ? compute_to_json(*target.compute) : json(nullptr)},
          {"pci_ids", ids},
          {"source", target.source}};
}

json pci_json(const PciIdEntry& entry) {
  json products = json::object();
  for (const auto& [revision, product] : entry.products) {
    products[fmt::format("{:02x}", revision)] = product;
  }
  return {{"id", fmt::format("{:04x}", entry.device)},
          {"name", entry.name},
          {"gfx", entry.gfx},
          {"products", products},
          {"source", entry.source}};
}

json torch_json(const TorchRelease& release) {
  json indexes = json::array();
  for (const auto& index : release.rocm_indexes) {
    indexes.push_back({{"index", index},
                       {"gfx", release.targets_for(index)},
                       {"python", release.python_for(index)}});
  }
  return {{"torch", release.torch},
          {"torchvision", release.torchvision},
          {"torchaudio", release.audio()},
          {"triton_rocm", release.triton_rocm.empty() ? json(nullptr) : json(release.triton_rocm)},
          {"indexes", indexes},
          {"source", release.source}};
}

json rocm_json(const Knowledge& knowledge, const RocmRelease& release) {
  json os = json::array();
  for (const auto& support : release.os) {
    os.push_back({{"id", support.id},
                  {"versions", support.versions},
                  {"since", support.since.empty() ? json(nullptr) : json(support.since)}});
  }
  json targets = json::object();
  for (const auto& target : knowledge.targets) {
    if (const auto it = target.rocm.find(release.rocm); it != target.rocm.end()) {
      targets[target.name] = it->second;
    }
  }
  return {{"rocm", release.rocm},
          {"os", os},
          {"targets", targets},
          {"library_targets", release.library_targets},
          {"hip", release.hip.empty() ? release.rocm : release.hip},
          {"without", release.without},
          {"source", release.source}};
}

}  // namespace

void render_rules_show_json(const Knowledge& knowledge, std::string_view query,
                            const RulesLookup& found, std::ostream& out) {
  json targets = json::array();
  for (const GfxTarget* target : found.targets) {
    targets.push_back(target_json(knowledge, *target));
  }
  json pci_ids = json::array();
  for (const PciIdEntry* entry : found.pci_ids) {
    pci_ids.push_back(pci_json(*entry));
  }
  // A torch version: every release it names ("2.6" names 2.6.0 and its patch releases).
  json torch = json::array();
  if (found.kind == RulesLookup::Kind::torch || found.kind == RulesLookup::Kind::torch_version) {
    for (const TorchRelease* release : torch_releases_named(knowledge, found.text)) {
      torch.push_back(torch_json(*release));
    }
  }
  // A torch.__version__ string: what build it is, and where it comes from.
  json torch_version = nullptr;
  if (found.kind == RulesLookup::Kind::torch_version) {
    const TorchInstall install = torch_of_version(knowledge, found.text);
    torch_version = {{"version", found.text},
                     {"build", to_string(install.build)},
                     {"origin", install.origin_detail}};
  }
  const json document = {
      {"schema", "rocdoc-rules-show/1"},
      {"query", std::string(query)},
      {"kind", lookup_word(found.kind)},
      {"rules_revision", knowledge.revision},
      {"targets", targets},
      {"pci_ids", pci_ids},
      {"torch_releases", torch},
      {"rocm_release", found.rocm != nullptr ? rocm_json(knowledge, *found.rocm) : json(nullptr)},
      {"driver", found.driver != nullptr ? json{{"module", found.driver->module},
                                                {"package", found.driver->package.empty()
                                                                ? json(nullptr)
                                                                : json(found.driver->package)},
                                                {"rocm", found.driver->rocm},
                                                {"source", found.driver->source}}
                                         : json(nullptr)},
      {"torch_version", torch_version},
      {"newer", found.kind == RulesLookup::Kind::newer ? json(found.text) : json(nullptr)},
      {"note", found.note.empty() ? json(nullptr) : json(found.note)},
  };
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
