// Probe "python": Python environments and their torch, found without running Python.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

PythonFacts probe_python(const ProbeContext& context);

/// torch/version.py read as data: `name[: type] = 'value'` or `= None` assignments.
/// Values that are None map to nullopt; the file is never executed.
std::map<std::string, std::optional<std::string>> parse_version_py(std::string_view content);

/// TorchInstall fields from a parsed version.py.
TorchInstall torch_from_version_py(const std::map<std::string, std::optional<std::string>>& values);

/// "torchvision-0.21.0+rocm6.2.4.dist-info" → {"torchvision", "0.21.0+rocm6.2.4"};
/// also *.egg-info. nullopt for other names.
std::optional<PythonPackage> package_from_metadata_dir(std::string_view name);

/// "3.12" from a site directory such as /usr/lib/python3.12/site-packages; nullopt when the
/// path does not say (Debian's /usr/lib/python3/dist-packages).
std::optional<std::string> python_version_of_site(std::string_view site_dir);

/// The "Version:" header of a METADATA / PKG-INFO file.
std::optional<std::string> metadata_version(std::string_view content);

}  // namespace rocdoc
