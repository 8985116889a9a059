#include "src/knowledge/lookup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

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
  if (text.find('/') == std::string_view::npos && text.find('(') != std::string_view::npos) {
    // One product with a qualifier, "Radeon RX 9050 (4GB)": the whole name is one too.
    names.emplace_back(text);
  }
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

/// What a version number the user has in hand names, by its shape alone.
enum class NumberKind {
  rocm,                     ///< "6.3", "7.2.1", "10.1": a ROCm (or, as 7.15, a HIP) version
  driver_package,           ///< "31.40", "30.10.1": an AMD GPU Driver release (30.x and up)
  driver_module_with_code,  ///< "6.19.14.31400000": a module version with its release code
};

NumberKind number_kind(const std::vector<int>& numbers) {
  // From AMD GPU Driver 31.40 the module version carries the driver's release code as a
  // fourth part of eight digits (31400000 = 31.40.0); AMD GPU Driver numbers start at 30.10.
  if (numbers.size() >= 4 && numbers[3] >= 10000000) {
    return NumberKind::driver_module_with_code;
  }
  if (numbers[0] >= 30 && numbers[0] < 100) {
    return NumberKind::driver_package;
  }
  return NumberKind::rocm;
}

std::string major_minor_of(const std::vector<int>& numbers) {
  return std::to_string(numbers[0]) + "." + std::to_string(numbers[1]);
}

bool newer_than(const std::vector<int>& numbers, const std::optional<std::vector<int>>& newest) {
  return newest && std::vector<int>(numbers.begin(), numbers.begin() + 2) > *newest;
}

std::optional<std::vector<int>> newest_of(const std::vector<std::string>& versions) {
  std::optional<std::vector<int>> newest;
  for (const auto& version : versions) {
    auto numbers = util::version_numbers(version);
    if (numbers && numbers->size() >= 2) {
      numbers->resize(2);
      if (!newest || *numbers > *newest) {
        newest = numbers;
      }
    }
  }
  return newest;
}

std::optional<std::vector<int>> newest_package(const Knowledge& knowledge) {
  std::vector<std::string> packages;
  for (const auto& driver : knowledge.driver_versions) {
    packages.push_back(driver.package);
  }
  return newest_of(packages);
}

std::optional<std::vector<int>> newest_module(const Knowledge& knowledge) {
  std::vector<std::string> modules;
  for (const auto& driver : knowledge.driver_versions) {
    modules.push_back(driver.module);
  }
  return newest_of(modules);
}

RulesLookup driver_package(const Knowledge& knowledge, const std::string& query,
                           const std::vector<int>& numbers) {
  RulesLookup result;
  if (const DriverVersion* driver = knowledge.driver_package(query)) {
    result.kind = RulesLookup::Kind::driver;
    result.driver = driver;
  } else if (newer_than(numbers, newest_package(knowledge))) {
    result.kind = RulesLookup::Kind::newer;
    result.text = "AMD GPU Driver " + query;
  }
  return result;
}

/// "7.2.0.32000000": a driver module, never ROCm 7.2; known by its first three parts, else by
/// its release code (32000000 = AMD GPU Driver 32.0).
RulesLookup driver_module_with_code(const Knowledge& knowledge, const std::string& query,
                                    const std::vector<int>& numbers) {
  RulesLookup result;
  const std::string module = fmt::format("{}.{}.{}", numbers[0], numbers[1], numbers[2]);
  if (const DriverVersion* driver = knowledge.driver_version(module)) {
    result.kind = RulesLookup::Kind::driver;
    result.driver = driver;
    return result;
  }
  const int code = numbers[3];
  const std::vector<int> package{code / 1000000, code / 10000 % 100};
  if (newer_than(package, newest_package(knowledge))) {
    result.kind = RulesLookup::Kind::newer;
    result.text = fmt::format("amdgpu driver module {} (AMD GPU Driver {}.{})", query, package[0],
                              package[1]);
  }
  return result;
}

/// A ROCm release, or a HIP version: from ROCm 10.0 HIP is not numbered as ROCm (HIP 7.15 is
/// ROCm 10.0's), so 7.15 names ROCm 10.0 and 7.17 a HIP newer than the rules.
RulesLookup rocm_or_hip(const Knowledge& knowledge, const std::string& query,
                        const std::vector<int>& numbers) {
  RulesLookup result;
  const std::string major_minor = major_minor_of(numbers);
  if (const RocmRelease* release = knowledge.rocm_release(major_minor)) {
    result.kind = RulesLookup::Kind::rocm;
    result.rocm = release;
    return result;
  }
  if (const auto rocm = knowledge.rocm_of_hip(major_minor); rocm && *rocm != major_minor) {
    result.kind = RulesLookup::Kind::rocm;
    result.rocm = knowledge.rocm_release(*rocm);
    result.note = fmt::format(
        "{} is no ROCm release; HIP {} is ROCm {}'s (from ROCm 10.0 HIP is "
        "not numbered as ROCm)",
        query, major_minor, *rocm);
    return result;
  }
  std::vector<std::string> rocm_numbers;
  std::vector<std::string> hip_numbers;
  for (const auto& release : knowledge.rocm_releases) {
    rocm_numbers.push_back(release.rocm);
    hip_numbers.push_back(release.hip.empty() ? release.rocm : release.hip);
  }
  const auto newest_rocm = newest_of(rocm_numbers);
  const auto newest_hip = newest_of(hip_numbers);
  if (newer_than(numbers, newest_rocm)) {
    result.kind = RulesLookup::Kind::newer;
    result.text = "ROCm " + query;
  } else if (newest_hip && newer_than(numbers, newest_hip) && numbers[0] == (*newest_hip)[0]) {
    // 7.17: between the last ROCm numbered as its HIP (7.14) and 10.0, only HIP numbers live.
    result.kind = RulesLookup::Kind::newer;
    result.text = "HIP " + query;
    result.note = fmt::format("{} is no ROCm release (ROCm went from 7.14 to 10.0)", query);
  }
  return result;
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
    const auto numbers = util::version_numbers(q.substr(0, q.find('-')));
    if (numbers && numbers->size() >= 2) {
      const NumberKind kind = rocm_asked ? NumberKind::rocm : number_kind(*numbers);
      if (kind == NumberKind::driver_module_with_code) {
        return driver_module_with_code(knowledge, query, *numbers);
      }
      if (kind == NumberKind::driver_package) {
        return driver_package(knowledge, query, *numbers);
      }
      if (!rocm_asked) {
        if (const DriverVersion* driver = knowledge.driver_version(q)) {
          result.kind = RulesLookup::Kind::driver;
          result.driver = driver;
          if (!driver_asked && knowledge.rocm_release(major_minor_of(*numbers)) != nullptr) {
            result.note = fmt::format(
                "{} is read as an amdgpu driver module; as a ROCm {} point release ask "
                "'rules show rocm {}'",
                query, major_minor_of(*numbers), query);
          }
          return result;
        }
      }
      if (!driver_asked) {
        return rocm_or_hip(knowledge, query, *numbers);
      }
      if (newer_than(*numbers, newest_module(knowledge))) {
        result.kind = RulesLookup::Kind::newer;
        result.text = "amdgpu driver " + query;
      }
    }
    return result;
  }
  // A marketing name: every target and PCI entry that lists it.
  const std::string folded = fold_product_name(query);
  if (folded.size() >= 3) {
    for (const auto& target : knowledge.targets) {
      for (const auto* names : {&target.products, &target.processors}) {
        for (const auto& product : *names) {
          for (const auto& name : product_names(product)) {
            if (product_matches(folded, name)) {
              add_unique(result.targets, &target);
            }
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
