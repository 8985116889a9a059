#include "probes/rocm_sdk.h"

#include <string_view>

namespace rocdoc {

namespace {

/// "gfx1151" of "rocm-sdk-device-gfx1151" after `prefix`; "" when the name has another start.
std::string after(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.starts_with(prefix)
             ? std::string(name.substr(prefix.size()))
             : std::string();
}

void add_unique(std::vector<std::string>& list, std::string value) {
  for (const auto& known : list) {
    if (known == value) {
      return;
    }
  }
  list.push_back(std::move(value));
}

}  // namespace

std::optional<RocmSdk> rocm_sdk_of(std::span<const PythonPackage> packages) {
  RocmSdk sdk;
  std::string rocm_version;
  std::string core_version;
  bool any = false;
  for (const PythonPackage& package : packages) {
    const std::string& name = package.name;  // normalised: lower case, '-' for '_'
    bool sdk_package = true;
    if (name == "rocm") {
      rocm_version = package.version;
    } else if (name == "rocm-sdk-core") {
      core_version = package.version;
    } else if (name == "rocm-sdk-devel") {
      sdk.devel = true;
    } else if (name == "rocm-sdk-libraries") {
      sdk.libraries = true;
    } else if (auto family = after(name, "rocm-sdk-libraries-"); !family.empty()) {
      sdk.libraries = true;
      sdk.libraries_family = std::move(family);
    } else if (auto device = after(name, "rocm-sdk-device-"); !device.empty()) {
      add_unique(sdk.devices, std::move(device));
    } else if (auto torch_device = after(name, "amd-torch-device-"); !torch_device.empty()) {
      add_unique(sdk.torch_devices, std::move(torch_device));
    } else {
      sdk_package = false;
    }
    if (sdk_package) {
      any = true;
      add_unique(sdk.packages, name + " " + package.version);
    }
  }
  if (!any) {
    return std::nullopt;
  }
  sdk.version = !core_version.empty() ? core_version : rocm_version;
  return sdk;
}

}  // namespace rocdoc
