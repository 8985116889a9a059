#include "src/knowledge/lookup.h"

#include <algorithm>
#include <cctype>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool version_like(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
         text.find('.') != std::string_view::npos &&
         text.substr(0, text.find('+'))
                 .find_first_not_of("0123456789.abcdefghijklmnopqrstuvwxyz") ==
             std::string_view::npos;
}

/// The product names a PCI entry or a target lists: "A / B / C" and "Phoenix1 (780M / 760M)".
std::vector<std::string> product_names(std::string_view text) {
  std::vector<std::string> names;
  std::string flat(text);
  std::replace(flat.begin(), flat.end(), '(', '/');
  std::replace(flat.begin(), flat.end(), ')', '/');
  std::replace(flat.begin(), flat.end(), '[', '/');
  std::replace(flat.begin(), flat.end(), ']', '/');
  for (const auto part : util::split(flat, '/')) {
    if (!util::trim(part).empty()) {
      names.emplace_back(util::trim(part));
    }
  }
  return names;
}

void add_unique(std::vector<const GfxTarget*>& targets, const GfxTarget* target) {
  if (target != nullptr && std::find(targets.begin(), targets.end(), target) == targets.end()) {
    targets.push_back(target);
  }
}

/// The rest of a list after a leading "Radeon RX 7900 XT / 7900 XTX": pci.ids writes the
/// family once ("Radeon RX 7900 XT/7900 XTX/7900 GRE"), so a bare model inherits it.
bool product_matches(const std::string& folded_query, const std::string& name) {
  const std::string folded = fold_product_name(name);
  if (folded.empty()) {
    return false;
  }
  return folded == folded_query ||
         (folded_query.size() >= 4 && folded.size() > folded_query.size() &&
          folded.compare(folded.size() - folded_query.size(), folded_query.size(), folded_query) ==
              0 &&
          std::isalpha(
              static_cast<unsigned char>(folded[folded.size() - folded_query.size() - 1]))) ||
         (folded.size() >= 4 && folded_query.size() > folded.size() &&
          folded_query.compare(folded_query.size() - folded.size(), folded.size(), folded) == 0 &&
          std::isalpha(
              static_cast<unsigned char>(folded_query[folded_query.size() - folded.size() - 1])));
}

}  // namespace

std::string fold_product_name(std::string_view name) {
  std::string folded;
  const std::string lower = util::to_lower(name);
  for (const auto word : util::split_whitespace(lower)) {
    if (word == "amd" || word == "radeon" || word == "graphics" || word == "gpu" ||
        word == "igpu" || word == "instinct" || word == "the") {
      continue;
    }
    for (const char c : word) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        folded += c;
      }
    }
  }
  return folded;
}

bool RulesLookup::pci_ids_map_to(const GfxTarget& target) const {
  return std::any_of(pci_ids.begin(), pci_ids.end(),
                     [&](const PciIdEntry* entry) { return entry->gfx == target.name; });
}

RulesLookup lookup_rules(const Knowledge& knowledge, std::string_view raw) {
  RulesLookup result;
  std::string query(util::trim(raw));
  const std::string lower = util::to_lower(query);
  const auto strip = [&](std::string_view prefix) {
    if (lower.rfind(prefix, 0) == 0) {
      query = std::string(util::trim(query.substr(prefix.size())));
      return true;
    }
    return false;
  };
  if (strip("torch==") || strip("torch ")) {  // pip's spelling too: torch==2.7.1 (N27)
    result.kind = query.find('+') != std::string::npos ? RulesLookup::Kind::torch_version
                                                       : RulesLookup::Kind::torch;
    result.text = query;
    return result;
  }
  const bool rocm_asked = strip("rocm ");
  const bool driver_asked = !rocm_asked && (strip("amdgpu ") || strip("driver "));
  const std::string q = util::to_lower(query);
  if (!rocm_asked && !driver_asked) {
    if (const GfxTarget* target = knowledge.target(q)) {
      result.kind = RulesLookup::Kind::gfx_target;
      result.targets.push_back(target);
      return result;
    }
    const std::string id = q.rfind("1002:", 0) == 0 ? q.substr(5) : q;
    if (id.size() == 4) {
      if (const auto device = util::parse_unsigned(id, 16)) {
        if (const PciIdEntry* entry = knowledge.amd_pci_id(static_cast<std::uint16_t>(*device))) {
          result.kind = RulesLookup::Kind::pci_id;
          result.pci_ids.push_back(entry);
          return result;
        }
      }
    }
  }
  if (version_like(q)) {
    if (!rocm_asked && !driver_asked &&
        (q.find('+') != std::string::npos || q.rfind("2.", 0) == 0 || q.rfind("1.", 0) == 0)) {
      result.kind = q.find('+') != std::string::npos ? RulesLookup::Kind::torch_version
                                                     : RulesLookup::Kind::torch;
      result.text = query;
      return result;
    }
    if (!rocm_asked) {
      if (const DriverVersion* driver = knowledge.driver_version(q)) {
        result.kind = RulesLookup::Kind::driver;
        result.driver = driver;
        return result;
      }
    }
    const auto numbers = util::version_numbers(q.substr(0, q.find('-')));
    if (numbers && numbers->size() >= 2) {
      const std::string major_minor =
          std::to_string((*numbers)[0]) + "." + std::to_string((*numbers)[1]);
      if (const RocmRelease* release = knowledge.rocm_release(major_minor);
          release && !driver_asked) {
        result.kind = RulesLookup::Kind::rocm;
        result.rocm = release;
        return result;
      }
      const auto newest_rocm = knowledge.rocm_releases.empty()
                                   ? std::nullopt
                                   : util::version_numbers(knowledge.rocm_releases.back().rocm);
      if (newest_rocm && std::vector<int>(numbers->begin(), numbers->begin() + 2) > *newest_rocm) {
        result.kind = RulesLookup::Kind::newer;
        result.text = (driver_asked ? "amdgpu driver " : "ROCm ") + query;
        return result;
      }
    }
    return result;
  }
  // A marketing name: every target and PCI entry that lists it.
  const std::string folded = fold_product_name(query);
  if (folded.size() >= 3) {
    for (const auto& target : knowledge.targets) {
      for (const auto& product : target.products) {
        for (const auto& name : product_names(product)) {
          if (product_matches(folded, name)) {
            add_unique(result.targets, &target);
          }
        }
      }
    }
    for (const auto& entry : knowledge.pci_ids) {
      std::vector<std::string> names = product_names(entry.name);
      for (const auto& [revision, product] : entry.products) {
        names.push_back(product);  // "Radeon 8060S Graphics", as rocminfo names it
      }
      for (const auto& name : names) {
        if (product_matches(folded, name) && std::find(result.pci_ids.begin(), result.pci_ids.end(),
                                                       &entry) == result.pci_ids.end()) {
          result.pci_ids.push_back(&entry);
          add_unique(result.targets, knowledge.target(entry.gfx));
        }
      }
    }
    if (!result.targets.empty()) {
      // The targets the product's PCI ids map to first: a product name also lists the targets
      // of its engineering samples and older kernels (MI300X: gfx941 before gfx942), which a
      // reader of the first block would take for the GPU's (N6).
      std::stable_partition(
          result.targets.begin(), result.targets.end(),
          [&](const GfxTarget* target) { return result.pci_ids_map_to(*target); });
      result.kind = RulesLookup::Kind::product;
      return result;
    }
  }
  std::size_t best = 3;
  for (const auto& target : knowledge.targets) {
    const std::size_t distance = util::edit_distance(q, target.name);
    if (distance < best) {
      best = distance;
      result.suggestion = target.name;
    }
  }
  return result;
}

}  // namespace rocdoc
