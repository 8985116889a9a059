#include "src/hosts/declared_gpus.h"

#include <fmt/format.h>

#include <algorithm>

#include "src/knowledge/lookup.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

[[noreturn]] void refuse(std::string_view item, std::string_view why) {
  throw DeclaredGpuError(fmt::format("--gpu '{}': {}", util::excerpt(item, 40), why));
}

/// ":sramecc+:xnack-" after a gfx target: each feature once, sramecc or xnack, then + or -.
void check_features(std::string_view item, std::string_view features) {
  std::vector<std::string_view> seen;
  for (const auto feature : util::split(features, ':')) {
    const std::string_view name = feature.substr(0, feature.empty() ? 0 : feature.size() - 1);
    const bool known =
        (name == "sramecc" || name == "xnack") && (feature.back() == '+' || feature.back() == '-');
    if (!known) {
      refuse(item, fmt::format("'{}' is not a target feature (sramecc+, sramecc-, xnack+ or "
                               "xnack-, as in gfx942:sramecc+:xnack-)",
                               util::excerpt(feature, 20)));
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      refuse(item, fmt::format("{} is given twice", name));
    }
    seen.push_back(name);
  }
}

/// The one target a product name names: its PCI entries' target when they agree (the shipped
/// products: "MI300X" is gfx942, not the revision-0 gfx941), else the only target listing it.
const GfxTarget* product_target(const Knowledge& knowledge, const RulesLookup& found) {
  std::vector<const GfxTarget*> from_pci;
  for (const PciIdEntry* entry : found.pci_ids) {
    const GfxTarget* target = knowledge.target(entry->gfx);
    if (target != nullptr &&
        std::find(from_pci.begin(), from_pci.end(), target) == from_pci.end()) {
      from_pci.push_back(target);
    }
  }
  if (from_pci.size() == 1) {
    return from_pci.front();
  }
  return found.targets.size() == 1 ? found.targets.front() : nullptr;
}

std::string target_names(const std::vector<const GfxTarget*>& targets) {
  std::vector<std::string> names;
  for (const GfxTarget* target : targets) {
    names.push_back(target->name);
  }
  return util::join(names, ", ");
}

DeclaredGpu declared_gpu(const Knowledge& knowledge, std::string_view item) {
  DeclaredGpu gpu;
  gpu.given = std::string(item);
  std::string_view base = item;
  if (const auto colon = item.find(':');
      colon != std::string_view::npos && util::to_lower(item.substr(0, 3)) == "gfx") {
    base = item.substr(0, colon);
    check_features(item, item.substr(colon + 1));
  }
  const RulesLookup found = lookup_rules(knowledge, base);
  const GfxTarget* target = nullptr;
  switch (found.kind) {
    case RulesLookup::Kind::gfx_target:
      target = found.targets.front();
      gpu.name = target->products.empty() ? target->name : target->products.front();
      break;
    case RulesLookup::Kind::pci_id:
      target = knowledge.target(found.pci_ids.front()->gfx);
      gpu.name = found.pci_ids.front()->name;
      break;
    case RulesLookup::Kind::product:
      target = product_target(knowledge, found);
      if (target == nullptr) {
        refuse(item, fmt::format("names GPUs of several gfx targets ({}); give the target",
                                 target_names(found.targets)));
      }
      gpu.name = util::printable(util::trim(base));  // the user's words, as they match
      break;
    default:
      refuse(item, "not a GPU these rules know" +
                       (found.suggestion.empty() ? std::string()
                                                 : "; did you mean " + found.suggestion + "?") +
                       " (--gpu takes gfx targets such as gfx942,gfx1100, PCI device ids such as "
                       "744c, or product names such as MI300X; `rocdoc rules show WHAT` looks "
                       "one up)");
  }
  if (target == nullptr) {
    refuse(item, "its gfx target is not in these rules");
  }
  gpu.gfx_target = target->name;
  return gpu;
}

}  // namespace

std::vector<DeclaredGpu> parse_declared_gpus(const Knowledge& knowledge,
                                             const std::vector<std::string>& values) {
  std::vector<DeclaredGpu> gpus;
  for (const auto& value : values) {
    for (const auto part : util::split(value, ',')) {
      const std::string_view item = util::trim(part);
      if (item.empty()) {
        continue;
      }
      if (gpus.size() == k_max_declared_gpus) {
        throw DeclaredGpuError(fmt::format("--gpu: more than {} GPUs", k_max_declared_gpus));
      }
      gpus.push_back(declared_gpu(knowledge, item));
    }
  }
  if (gpus.empty()) {
    throw DeclaredGpuError("--gpu: no GPU given (e.g. --gpu gfx942,gfx1100)");
  }
  return gpus;
}

}  // namespace rocdoc
