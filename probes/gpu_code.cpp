#include "probes/gpu_code.h"

#include <algorithm>

#include "src/binaries/tensile_names.h"

namespace rocdoc {

namespace {

bool is_shared_library(const std::string& name) {
  const auto so = name.find(".so");
  return so != std::string::npos && (so + 3 == name.size() || name[so + 3] == '.');
}

}  // namespace

std::vector<GpuCode> gpu_code_in(const Host& host, const std::string& dir,
                                 const std::vector<std::string>& names) {
  std::vector<GpuCode> found;
  for (const auto& name : names) {
    const std::string path = dir + "/" + name;
    if (!is_shared_library(name)) {
      continue;
    }
    // libfoo.so -> libfoo.so.1 names a file of the same listing, read once under its own
    // name; a link elsewhere (a distribution's torch/lib -> /usr/lib) is read through.
    if (const auto target = host.read_link(path);
        target && target->find('/') == std::string::npos &&
        std::find(names.begin(), names.end(), *target) != names.end()) {
      continue;
    }
    if (auto targets = host.offload_targets(path); targets && !targets->empty()) {
      found.push_back({path, std::move(*targets)});
    }
  }
  return found;
}

std::optional<GpuCode> tensile_library(const Host& host, const std::string& dir) {
  const auto names = host.list_dir(dir);
  if (!names) {
    return std::nullopt;
  }
  auto targets = tensile_targets(*names);
  if (targets.empty()) {
    return std::nullopt;
  }
  return GpuCode{dir, std::move(targets)};
}

}  // namespace rocdoc
