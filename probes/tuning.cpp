#include "probes/tuning.h"

#include <optional>
#include <vector>

#include "probes/python_locations.h"
#include "probes/system.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// Path components walked up from a directory that does not exist, at most.
constexpr int k_max_walk_up = 64;

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  return path;
}

bool is_within(const std::string& path, const std::string& directory) {
  return path == directory || path.rfind(directory + "/", 0) == 0;
}

/// The directory itself when it exists, else its nearest ancestor that does. Unknown (nothing
/// recorded) when only / exists, or, for a place under the home, when the home itself does
/// not: a snapshot or image that lacks them says nothing about who may write there.
void find_existing(const Host& host, const std::string& home, TuningDirectory& directory) {
  const bool in_home = !home.empty() && home != "/" && is_within(directory.path, home);
  std::string path = directory.path;
  for (int step = 0; step < k_max_walk_up && !path.empty() && path != "/"; ++step) {
    if (in_home && !is_within(path, home)) {
      return;
    }
    if (auto stat = host.stat(path)) {
      directory.existing = path;
      directory.stat = std::move(stat);
      return;
    }
    path = util::parent_path(path);
  }
}

struct Setting {
  TuningUse use;
  const char* variable;
  PathKind kind;
  HomeExpansion expansion;
};

// The defaults are the rules' (rules/env_vars.yaml `place`, with sources): MIOpen's
// ~/.config/miopen and ~/.cache/miopen. TunableOp's default file is tunableop_results<device>.csv
// in the working directory of the run: no default there, so not judged.
constexpr Setting k_settings[] = {
    {TuningUse::miopen_user_db, "MIOPEN_USER_DB_PATH", PathKind::directory,
     HomeExpansion::expanded},
    {TuningUse::miopen_cache, "MIOPEN_CUSTOM_CACHE_DIR", PathKind::directory,
     HomeExpansion::expanded},
    {TuningUse::tunableop_results, "PYTORCH_TUNABLEOP_FILENAME", PathKind::file,
     HomeExpansion::literal},
};

/// The rules' default place of a variable under the home ("/.config/miopen"), or "".
std::string default_under_home(const Knowledge& knowledge, std::string_view variable) {
  const PlaceRule* place = knowledge.place(variable);
  if (place == nullptr || !place->default_place.starts_with("~/")) {
    return "";
  }
  return place->default_place.substr(1);
}

}  // namespace

std::string tuning_directory(std::string_view value, PathKind kind, HomeExpansion expansion,
                             const std::string& home) {
  std::string path(value);
  if (expansion == HomeExpansion::expanded && (path == "~" || path.rfind("~/", 0) == 0)) {
    if (home.empty()) {
      return "";
    }
    path = home + path.substr(1);
  }
  if (path.empty() || path.front() != '/') {
    return "";
  }
  if (kind == PathKind::file) {
    path = util::parent_path(path);
  }
  return without_trailing_slashes(std::move(path));
}

TuningFacts probe_tuning(const ProbeContext& context) {
  const Host& host = context.host;
  TuningFacts facts;
  const std::vector<std::string> homes = user_homes(host);
  if (!homes.empty()) {
    facts.home = homes.front();
  }
  const std::string home = facts.home.value_or("");
  std::vector<TuningDirectory> directories;
  for (const Setting& setting : k_settings) {
    TuningDirectory directory;
    directory.use = setting.use;
    directory.variable = setting.variable;
    const auto value = host.env(setting.variable);
    if (value && !value->empty()) {
      directory.given = *value;
      directory.path = tuning_directory(*value, setting.kind, setting.expansion, home);
    } else if (const std::string under =
                   default_under_home(context.knowledge.get(), setting.variable);
               !under.empty()) {
      directory.is_default = true;
      directory.path = home.empty() ? std::string() : home + under;
    } else {
      continue;
    }
    find_existing(host, home, directory);
    directories.push_back(std::move(directory));
  }
  std::vector<Mount> mounts;
  if (const auto table = host.read_file("/proc/mounts", 1 << 20)) {
    mounts = parse_mounts(*table);
  }
  for (auto& directory : directories) {
    if (directory.existing) {
      directory.mount = mount_holding(mounts, *directory.existing);
    }
  }
  if (facts.home) {
    facts.home_mount = mount_holding(mounts, *facts.home);
  }
  facts.directories = std::move(directories);
  return facts;
}

}  // namespace rocdoc
