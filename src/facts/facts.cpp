#include <algorithm>
#include <functional>

#include "rocdoc/facts.h"

namespace rocdoc {

std::string_view build_words(TorchBuild build) {
  switch (build) {
    case TorchBuild::rocm:
      return "ROCm build";
    case TorchBuild::cuda:
      return "CUDA build";
    case TorchBuild::cpu:
      break;
  }
  return "CPU-only build";
}

std::string_view to_string(TorchBuild build) {
  return build == TorchBuild::rocm ? "rocm" : build == TorchBuild::cuda ? "cuda" : "cpu";
}

std::string_view to_string(PackageManager manager) {
  return manager == PackageManager::dpkg  ? "dpkg"
         : manager == PackageManager::rpm ? "rpm"
                                          : "pacman";
}

namespace {

/// Every package of every database whose name passes `test`.
std::vector<FoundPackage> packages_where(const std::vector<PackageDatabase>& databases,
                                         const std::function<bool(std::string_view)>& test) {
  std::vector<FoundPackage> found;
  for (const auto& database : databases) {
    for (const auto& package : database.packages) {
      if (test(package.name)) {
        found.push_back({&database, &package});
      }
    }
  }
  return found;
}

}  // namespace

std::vector<FoundPackage> PackageFacts::named(std::string_view name) const {
  return packages_where(databases, [&](std::string_view candidate) { return candidate == name; });
}

std::vector<FoundPackage> PackageFacts::rocm_meta_packages() const {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (const auto& test : std::vector<std::function<bool(std::string_view)>>{
           [&](std::string_view name) {
             return name == "rocm-core" ||
                    (name.size() > 9 && name.substr(0, 9) == "rocm-core" && is_digit(name[9]));
           },
           [](std::string_view name) { return name == "rocm"; },
           [](std::string_view name) { return name == "rocm-hip-runtime"; },
           [](std::string_view name) { return name == "hip-runtime-amd"; },
           [&](std::string_view name) {
             return name.size() > 12 && name.substr(0, 12) == "libamdhip64-" && is_digit(name[12]);
           }}) {
    if (auto found = packages_where(databases, test); !found.empty()) {
      return found;
    }
  }
  return {};
}

std::string_view package_upstream_version(std::string_view version) {
  if (const auto colon = version.find(':'); colon != std::string_view::npos) {
    version.remove_prefix(colon + 1);
  }
  return version.substr(0, version.rfind('-'));
}

namespace {

/// The last dot-separated part of the upstream version that is exactly `digits` digits long.
std::optional<std::uint64_t> last_part_of(std::string_view version, std::size_t digits) {
  std::string_view upstream = package_upstream_version(version);
  while (!upstream.empty()) {
    const auto dot = upstream.rfind('.');
    const std::string_view part =
        dot == std::string_view::npos ? upstream : upstream.substr(dot + 1);
    if (part.size() == digits &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      std::uint64_t value = 0;
      for (const char c : part) {
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
      }
      return value;
    }
    if (dot == std::string_view::npos) {
      break;
    }
    upstream = upstream.substr(0, dot);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> amd_package_rocm_release(std::string_view version) {
  const auto code = last_part_of(version, 5);
  if (!code || *code < 10000) {
    return std::nullopt;
  }
  return std::to_string(*code / 10000) + "." + std::to_string(*code / 100 % 100) + "." +
         std::to_string(*code % 100);
}

std::optional<std::string> amd_package_driver_release(std::string_view version) {
  const auto code = last_part_of(version, 8);
  if (!code || *code < 10000000) {
    return std::nullopt;
  }
  return std::to_string(*code / 1000000) + "." + std::to_string(*code / 10000 % 100);
}

std::string_view to_string(KernelEventKind kind) {
  switch (kind) {
    case KernelEventKind::atomics_rejected:
      return "atomics_rejected";
    case KernelEventKind::not_supported_in_kfd:
      return "not_supported_in_kfd";
    case KernelEventKind::kfd_not_added:
      return "kfd_not_added";
    case KernelEventKind::module_refused:
      return "module_refused";
    case KernelEventKind::firmware_failed:
      return "firmware_failed";
    case KernelEventKind::gpu_reset:
      return "gpu_reset";
    case KernelEventKind::iommu_fault:
      return "iommu_fault";
    case KernelEventKind::vm_fault:
      return "vm_fault";
    case KernelEventKind::scheduler_hang:
      return "scheduler_hang";
    case KernelEventKind::ras_error:
      return "ras_error";
    case KernelEventKind::trap_handler_refused:
      break;
  }
  return "trap_handler_refused";
}

const PciDevice* PciFacts::find(const std::string& bdf) const {
  const auto it = std::find_if(devices.begin(), devices.end(),
                               [&](const PciDevice& d) { return d.bdf == bdf; });
  return it == devices.end() ? nullptr : &*it;
}

const std::string* DriverFacts::parameter(const std::string& module,
                                          const std::string& name) const {
  const auto parameters = module_parameters.find(module);
  if (parameters == module_parameters.end()) {
    return nullptr;
  }
  const auto value = parameters->second.values.find(name);
  return value == parameters->second.values.end() ? nullptr : &value->second;
}

const GroupEntry* AccessFacts::group_by_gid(std::uint32_t gid) const {
  if (!etc_group) {
    return nullptr;
  }
  const auto it = std::find_if(etc_group->begin(), etc_group->end(),
                               [&](const GroupEntry& g) { return g.gid == gid; });
  return it == etc_group->end() ? nullptr : &*it;
}

bool AccessFacts::process_has_gid(std::uint32_t gid) const {
  const Identity& who = subject();
  return who.gid == gid || std::any_of(who.groups.begin(), who.groups.end(),
                                       [&](const Group& g) { return g.gid == gid; });
}

bool AccessFacts::group_file_lists_user(std::uint32_t gid) const {
  const GroupEntry* group = group_by_gid(gid);
  const std::string& user = subject().user;
  if (group == nullptr || user.empty()) {
    return false;
  }
  return std::find(group->members.begin(), group->members.end(), user) != group->members.end();
}

int KfdFacts::gpu_count() const {
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [](const KfdNode& n) { return n.is_gpu(); }));
}

int KfdFacts::withheld_count() const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const KfdNode& n) {
    return n.unreadable == std::optional<std::string>("EPERM");
  }));
}

bool Mount::has(std::string_view option) const {
  return std::find(options.begin(), options.end(), option) != options.end();
}

const std::string* EnvFacts::find(const std::string& name) const {
  const auto it = variables.find(name);
  return it == variables.end() ? nullptr : &it->second;
}

const PythonPackage* PythonEnvironment::package(const std::string& name) const {
  const auto it = std::find_if(packages.begin(), packages.end(),
                               [&](const PythonPackage& p) { return p.name == name; });
  return it == packages.end() ? nullptr : &*it;
}

std::string PythonEnvironment::describe() const {
  std::string by;
  for (const auto& way : found_by) {
    by += (by.empty() ? "" : ", ") + way;
  }
  return site_dir + " (" + by + ")";
}

std::optional<std::string> RocmFacts::active_major_minor() const {
  std::optional<std::string> version = opt_rocm_version;
  if (!version && installs.size() == 1) {
    version = installs.front().version;
  }
  if (!version) {
    return std::nullopt;
  }
  const auto first = version->find('.');
  const auto second =
      first == std::string::npos ? first : version->find_first_not_of("0123456789", first + 1);
  if (first == std::string::npos || second == first + 1) {
    return std::nullopt;
  }
  return version->substr(0, second);
}

}  // namespace rocdoc
