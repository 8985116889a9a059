#include "src/checks/rocm_packages.h"

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

bool is_rocm_package(std::string_view name) {
  return name.starts_with("rocm") || name.starts_with("hip") || name.starts_with("hsa") ||
         name.starts_with("miopen") || name.starts_with("rccl");
}

bool older(const std::string& a, const std::string& b) {
  return util::version_numbers(a).value_or(std::vector<int>{}) <
         util::version_numbers(b).value_or(std::vector<int>{});
}

}  // namespace

std::string package_text(const FoundPackage& found) {
  return fmt::format("{} {} ({})", found.package->name, found.package->version,
                     to_string(found.database->manager));
}

std::optional<std::string> package_rocm_release(const InstalledPackage& package) {
  if (auto release = amd_package_rocm_release(package.version)) {
    return release;
  }
  const auto numbers = util::version_numbers(package_upstream_version(package.version));
  if (!numbers || numbers->size() < 2) {
    return std::nullopt;
  }
  return fmt::format("{}.{}.{}", (*numbers)[0], (*numbers)[1],
                     numbers->size() > 2 ? (*numbers)[2] : 0);
}

std::optional<PackagedRelease> packaged_rocm_release(const Facts& facts) {
  if (!facts.packages) {
    return std::nullopt;
  }
  std::set<std::string> releases;
  std::optional<PackagedRelease> found;
  for (const auto& meta : facts.packages->rocm_meta_packages()) {
    if (const auto release = package_rocm_release(*meta.package)) {
      releases.insert(*release);
      if (!found) {
        found = PackagedRelease{*release, package_text(meta)};
      }
    }
  }
  return releases.size() == 1 ? found : std::nullopt;
}

std::vector<ReleaseGroup> plain_rocm_package_releases(const Facts& facts) {
  std::vector<ReleaseGroup> groups;
  if (!facts.packages) {
    return groups;
  }
  for (const auto& database : facts.packages->databases) {
    for (const auto& package : database.packages) {
      const auto release = amd_package_rocm_release(package.version);
      const std::string_view name = package.name;
      if (!release || !is_rocm_package(name) ||
          (name.size() > release->size() &&
           name.substr(name.size() - release->size()) == *release)) {
        continue;
      }
      auto group = std::find_if(groups.begin(), groups.end(),
                                [&](const ReleaseGroup& g) { return g.release == *release; });
      if (group == groups.end()) {
        groups.push_back({*release, {}});
        group = std::prev(groups.end());
      }
      group->packages.push_back({&database, &package});
    }
  }
  std::sort(groups.begin(), groups.end(), [](const ReleaseGroup& a, const ReleaseGroup& b) {
    return older(a.release, b.release);
  });
  return groups;
}

}  // namespace rocdoc::checks
