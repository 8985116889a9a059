// The Knowledge once loaded: its lookups (a target, a PCI id, a driver, a ROCm or torch
// release, a variable, a WSL release) and RulesError. Loading is load.cpp.
#include "rocdoc/knowledge.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "src/util/strings.h"

namespace rocdoc {

RulesError::RulesError(std::string file, int line, int column, const std::string& what)
    // Printable whatever the caller quoted: file names and values come from a rules directory.
    : std::runtime_error(util::printable(file) + ":" + std::to_string(line) + ":" +
                         std::to_string(column) + ": " + util::printable(what)),
      m_file(std::move(file)),
      m_line(line),
      m_column(column) {}

std::string_view to_string(Fp16Support value) {
  return value == Fp16Support::packed ? "packed" : "basic";
}

std::string_view to_string(Bf16Support value) {
  return value == Bf16Support::hardware ? "hardware" : "emulated";
}

std::string_view to_string(Fp8Format value) {
  switch (value) {
    case Fp8Format::fnuz:
      return "fnuz";
    case Fp8Format::ocp:
      return "ocp";
    case Fp8Format::none:
      break;
  }
  return "none";
}

std::string_view to_string(Int8Support value) {
  switch (value) {
    case Int8Support::matrix:
      return "matrix";
    case Int8Support::dot:
      return "dot";
    case Int8Support::none:
      break;
  }
  return "none";
}

std::string_view to_string(MatrixCores value) {
  switch (value) {
    case MatrixCores::mfma:
      return "mfma";
    case MatrixCores::wmma:
      return "wmma";
    case MatrixCores::none:
      break;
  }
  return "none";
}

std::string_view to_string(SdpaSupport value) {
  switch (value) {
    case SdpaSupport::stable:
      return "stable";
    case SdpaSupport::experimental:
      return "experimental";
    case SdpaSupport::tech_preview:
      return "tech-preview";
    case SdpaSupport::none:
      break;
  }
  return "none";
}

std::string_view to_string(Availability value) {
  switch (value) {
    case Availability::yes:
      return "yes";
    case Availability::no:
      return "no";
    case Availability::unknown:
      break;
  }
  return "unknown";
}

const AllocatorKey* AllocatorConfig::key(std::string_view name) const {
  for (const auto& entry : keys) {
    if (std::find(entry.names.begin(), entry.names.end(), name) != entry.names.end()) {
      return &entry;
    }
  }
  return nullptr;
}

void Knowledge::require(KnowledgeParts needed) const {
  if (!holds(built, needed)) {
    throw std::logic_error(
        "rocdoc's knowledge base was built without a part this command reads (a defect of "
        "rocdoc: please report it)");
  }
}

const GfxTarget* Knowledge::target(std::string_view name) const {
  const auto it = std::find_if(targets.begin(), targets.end(),
                               [&](const GfxTarget& t) { return t.name == name; });
  return it == targets.end() ? nullptr : &*it;
}

namespace {

bool has_digit(std::string_view word) {
  return std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "Radeon RX 6700 / Radeon RX 6700 XT / Radeon RX 6800M" as pci.ids writes such a list:
/// "Radeon RX 6700 / 6700 XT / 6800M". The leading words an item shares with the first, up to
/// the first with a digit (a model number is never dropped), are left out.
std::string compact_products(std::string_view list) {
  std::vector<std::string_view> items;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t end = std::min(list.find(" / ", at), list.size());
    items.push_back(list.substr(at, end - at));
    at = end + 3;
  }
  if (items.size() < 2) {
    return std::string(list);
  }
  const auto first_words = util::split_whitespace(items.front());
  std::vector<std::string> out;
  for (const auto item : items) {
    const auto words = util::split_whitespace(item);
    std::size_t shared = 0;
    while (!out.empty() && shared + 1 < words.size() && shared < first_words.size() &&
           words[shared] == first_words[shared] && !has_digit(words[shared])) {
      ++shared;
    }
    std::vector<std::string> kept(words.begin() + static_cast<std::ptrdiff_t>(shared), words.end());
    out.push_back(util::join(kept, " "));
  }
  return util::join(out, " / ");
}

}  // namespace

std::string PciIdEntry::name_for(std::optional<std::uint8_t> revision) const {
  const auto found =
      !revision ? products.end()
                : std::find_if(products.begin(), products.end(),
                               [&](const auto& product) { return product.first == *revision; });
  const std::size_t open = name.find(" (");
  if (open == std::string::npos || name.back() != ')') {
    // A plain list of products: the revision's one, else each named once, short.
    return found == products.end() ? compact_products(name) : found->second;
  }
  const std::string before = name.substr(0, open);
  const std::string inside = name.substr(open + 2, name.size() - open - 3);
  if (found == products.end()) {
    // One of the id's products, which the revision does not tell: each named once, short.
    return compact_products(before) + " (" + compact_products(inside) + ")";
  }
  if (inside.find(" / ") == std::string::npos && before.find(" / ") != std::string::npos) {
    // "Radeon 8060S / Radeon 8050S / Radeon 8040S (Strix Halo)": one product, the chip kept.
    return found->second + name.substr(open);
  }
  // "Phoenix1 iGPU (Radeon 780M / Radeon 760M / Radeon 740M)", "Picasso / Raven 2 iGPU
  // (Radeon Vega Series / …)": the chip, one product.
  return before + " (" + found->second + ")";
}

const PciIdEntry* Knowledge::amd_pci_id(std::uint16_t device) const {
  const auto it = std::find_if(pci_ids.begin(), pci_ids.end(),
                               [&](const PciIdEntry& e) { return e.device == device; });
  return it == pci_ids.end() ? nullptr : &*it;
}

const RocmInstaller* Knowledge::installer_for(std::string_view id, std::string_view id_like,
                                              std::string_view version_id) const {
  const auto matches = [&](std::string_view os) -> const RocmInstaller* {
    for (const auto& installer : installers) {
      if (installer.os == os && (installer.versions.empty() ||
                                 std::find(installer.versions.begin(), installer.versions.end(),
                                           version_id) != installer.versions.end())) {
        return &installer;
      }
    }
    return nullptr;
  };
  if (const RocmInstaller* own = matches(id); own != nullptr || id.empty()) {
    return own;
  }
  // A derivative (Linux Mint: ID_LIKE="ubuntu debian") only by a row without versions: its
  // VERSION_ID is its own, not its base's.
  for (const auto like : util::split_whitespace(id_like)) {
    const RocmInstaller* base = matches(like);
    if (base != nullptr && base->versions.empty()) {
      return base;
    }
  }
  return nullptr;
}

const DriverVersion* Knowledge::driver_version(std::string_view module) const {
  // From AMD GPU Driver 31.40 the module reports <module>.<release code> (6.19.14.31400000):
  // its first three parts are the module version.
  auto parts = util::version_numbers(module).value_or(std::vector<int>{});
  if (parts.size() > 3) {
    parts.resize(3);
  }
  const auto it =
      std::find_if(driver_versions.begin(), driver_versions.end(), [&](const DriverVersion& d) {
        return d.module == module || (!parts.empty() && util::version_numbers(d.module) == parts);
      });
  return it == driver_versions.end() ? nullptr : &*it;
}

std::optional<int> Knowledge::rocm_release_index(std::string_view major_minor) const {
  const auto it = std::find_if(rocm_releases.begin(), rocm_releases.end(),
                               [&](const RocmRelease& r) { return r.rocm == major_minor; });
  if (it == rocm_releases.end()) {
    return std::nullopt;
  }
  return static_cast<int>(it - rocm_releases.begin());
}

const RocmRelease* Knowledge::rocm_release(std::string_view major_minor) const {
  const auto index = rocm_release_index(major_minor);
  return index ? &rocm_releases[static_cast<std::size_t>(*index)] : nullptr;
}

std::optional<std::vector<std::string>> Knowledge::sdk_family(std::string_view family) const {
  const auto it = sdk_families.find(util::to_lower(family));
  if (it != sdk_families.end()) {
    return it->second;
  }
  // Every target is a family of its own name: rocm-sdk-libraries-gfx1151.
  if (const GfxTarget* known = target(util::to_lower(family))) {
    return std::vector<std::string>{known->name};
  }
  return std::nullopt;
}

const DriverVersion* Knowledge::driver_package(std::string_view package) const {
  const auto numbers = util::version_numbers(package);
  if (!numbers || numbers->size() < 2) {
    return nullptr;
  }
  const std::vector<int> major_minor(numbers->begin(), numbers->begin() + 2);
  const auto it =
      std::find_if(driver_versions.begin(), driver_versions.end(), [&](const DriverVersion& d) {
        return !d.package.empty() && util::version_numbers(d.package) == major_minor;
      });
  return it == driver_versions.end() ? nullptr : &*it;
}

std::optional<std::string> Knowledge::rocm_of_hip(std::string_view hip) const {
  const auto numbers = util::version_numbers(hip.substr(0, hip.find_first_of("-+ ")));
  if (!numbers || numbers->size() < 2) {
    return std::nullopt;
  }
  const std::vector<int> major_minor(numbers->begin(), numbers->begin() + 2);
  const std::string text = std::to_string(major_minor[0]) + "." + std::to_string(major_minor[1]);
  // Up to the newest release numbered as its HIP (7.14), HIP x.y is ROCm x.y (releases older than
  // the table included); a release with its own HIP number says which. TheRock's 7.9-7.13
  // previews shipped other HIP numbers (7.11.0a2026… reports 7.2.53150), but their builds carry
  // a +rocm tag, which is read first.
  std::optional<std::vector<int>> newest_same;
  for (const auto& release : rocm_releases) {
    if (release.hip == text) {
      return release.rocm;
    }
    const auto rocm = util::version_numbers(release.rocm);
    if (release.hip.empty() && rocm && (!newest_same || *rocm > *newest_same)) {
      newest_same = rocm;
    }
  }
  if (newest_same && major_minor <= *newest_same) {
    return text;
  }
  return std::nullopt;
}

const TorchRelease* Knowledge::torch_release(std::string_view version) const {
  version = version.substr(0, version.find('+'));  // local version: 2.6.0+rocm6.2.4
  const auto it = std::find_if(torch_releases.begin(), torch_releases.end(),
                               [&](const TorchRelease& t) { return t.torch == version; });
  return it == torch_releases.end() ? nullptr : &*it;
}

const AmdWheelSet* Knowledge::amd_wheels_of_release(std::string_view rocm,
                                                    std::string_view target) const {
  for (auto it = amd_wheels.rbegin(); it != amd_wheels.rend(); ++it) {
    if (it->rocm == rocm && (target.empty() || std::find(it->devices.begin(), it->devices.end(),
                                                         target) != it->devices.end())) {
      return &*it;
    }
  }
  return nullptr;
}

bool Knowledge::torch_newer_than_rules(std::string_view version) const {
  if (torch_releases.empty()) {
    return false;
  }
  const auto numbers = util::version_numbers(version.substr(0, version.find('+')));
  const auto newest = util::version_numbers(torch_releases.back().torch);
  return numbers && newest && *numbers > *newest;
}

const AmdWheelSet* Knowledge::amd_wheels_for(std::string_view target,
                                             const std::optional<std::string>& python) const {
  for (auto it = amd_wheels.rbegin(); it != amd_wheels.rend(); ++it) {
    const bool device =
        std::find(it->devices.begin(), it->devices.end(), target) != it->devices.end();
    if (device && has_python(it->python, python)) {
      return &*it;
    }
  }
  return nullptr;
}

const AmdWheelSet* Knowledge::amd_wheels_with_torch(std::string_view version) const {
  const auto it = std::find_if(amd_wheels.begin(), amd_wheels.end(),
                               [&](const AmdWheelSet& set) { return set.torch == version; });
  return it == amd_wheels.end() ? nullptr : &*it;
}

bool has_python(const std::vector<std::string>& versions,
                const std::optional<std::string>& python) {
  return !python || versions.empty() ||
         std::find(versions.begin(), versions.end(), *python) != versions.end();
}

const RadeonWheelSet* Knowledge::radeon_wheels_with_torch(std::string_view version) const {
  const auto it = std::find_if(radeon_wheels.begin(), radeon_wheels.end(),
                               [&](const RadeonWheelSet& set) { return set.torch == version; });
  return it == radeon_wheels.end() ? nullptr : &*it;
}

std::string radeon_wheel_file(std::string_view distribution, std::string_view version,
                              std::string_view python) {
  std::string cp = "cp";
  for (const char c : python) {
    if (c != '.') {
      cp += c;
    }
  }
  return std::string(distribution) + "-" + util::uri_path(version) + "-" + cp + "-" + cp +
         "-linux_x86_64.whl";
}

const PlaceRule* Knowledge::place(std::string_view variable) const {
  const EnvVariable* rule = env_variable(variable);
  return rule != nullptr && rule->place ? &*rule->place : nullptr;
}

const EnvVariable* Knowledge::env_variable(std::string_view name) const {
  const auto it = std::find_if(env_variables.begin(), env_variables.end(),
                               [&](const EnvVariable& v) { return v.name == name; });
  return it == env_variables.end() ? nullptr : &*it;
}

const WslRelease* Knowledge::wsl_release(std::string_view rocm_version) const {
  const WslRelease* best = nullptr;
  for (const auto& release : wsl_releases) {
    if (release.rocm == rocm_version) {
      return &release;
    }
    const auto dot = rocm_version.find('.', rocm_version.find('.') + 1);
    const std::string_view major_minor = rocm_version.substr(0, dot);
    if (util::version_within(release.rocm, major_minor)) {
      best = &release;
    }
  }
  return best;
}

bool CudaPackage::matches(std::string_view distribution) const {
  return util::wildcard_match(name, distribution) ||
         std::any_of(also.begin(), also.end(), [&](const std::string& pattern) {
           return util::wildcard_match(pattern, distribution);
         });
}

const CudaPackage* Knowledge::cuda_package(std::string_view distribution) const {
  for (const auto& package : cuda_packages) {
    if (package.matches(distribution)) {
      return &package;
    }
  }
  return nullptr;
}

const std::vector<std::string>& TorchRelease::targets_for(const std::string& index) const {
  const auto it = gfx_exceptions.find(index);
  return it == gfx_exceptions.end() ? gfx : it->second;
}

const std::vector<std::string>& TorchRelease::python_for(const std::string& index) const {
  const auto it = python_exceptions.find(index);
  return it == python_exceptions.end() ? python : it->second;
}

}  // namespace rocdoc
