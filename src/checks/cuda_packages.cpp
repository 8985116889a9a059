// python.cuda-packages: packages built only for CUDA in an environment that runs on an AMD GPU.
// rules/cuda_packages.yaml says which packages, how their CUDA build is told from their ROCm
// build (a local version tag, a file only one build ships, the libraries an extension module
// links), what breaks, and what replaces them. Triton is torch.companions' (one finding).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "src/checks/checks.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

enum class Build { cuda, rocm, unknown };

struct Verdict {
  Build build = Build::unknown;
  std::string why;  ///< "flash_attn_2_cuda….so links libcudart.so.12"
};

/// The first of `needed` that one of the rules' library prefixes names.
std::optional<std::string> first_named(const std::vector<std::string>& needed,
                                       const std::vector<std::string>& prefixes) {
  for (const auto& library : needed) {
    for (const auto& prefix : prefixes) {
      if (library.rfind(prefix, 0) == 0) {
        return library;
      }
    }
  }
  return std::nullopt;
}

/// The evidence row of the rules that a found file answers to.
const PackageEvidenceFile* evidence_of(const CudaPackage& rule, const std::string& site_dir,
                                       const std::string& path) {
  if (path.rfind(site_dir + "/", 0) != 0) {
    return nullptr;
  }
  const std::string relative = path.substr(site_dir.size() + 1);
  for (const auto& evidence : rule.evidence) {
    if (util::wildcard_match(evidence.pattern, relative) &&
        std::count(relative.begin(), relative.end(), '/') ==
            std::count(evidence.pattern.begin(), evidence.pattern.end(), '/')) {
      return &evidence;
    }
  }
  return nullptr;
}

bool is_cuda_tag(const std::string& tag) {
  return tag.size() > 2 && tag.rfind("cu", 0) == 0 &&
         std::isdigit(static_cast<unsigned char>(tag[2])) != 0;
}

/// Which build a package is: ROCm's evidence wins over CUDA's (bitsandbytes from 0.49 ships
/// libraries for both), and without evidence the rules' default holds.
Verdict build_of(const PythonPackage& package, const CudaPackage& rule,
                 const BuildLibraries& libraries, const std::string& site_dir) {
  const std::string tag = local_tag(package.version);
  if (tag.rfind("rocm", 0) == 0) {
    return {Build::rocm, "+" + tag};
  }
  std::optional<std::string> cuda;
  if (is_cuda_tag(tag)) {
    cuda = "its version's local tag is +" + tag;
  }
  for (const auto& file : package.files) {
    const PackageEvidenceFile* evidence = evidence_of(rule, site_dir, file.path);
    const std::string name = file.path.substr(file.path.rfind('/') + 1);
    if (evidence == nullptr) {
      continue;
    }
    if (evidence->says == PackageEvidence::rocm) {
      return {Build::rocm, "ships " + name};
    }
    if (evidence->says == PackageEvidence::cuda && !cuda) {
      cuda = "it ships " + name + " and no ROCm library";
    }
    if (evidence->says == PackageEvidence::linked && file.needed) {
      if (const auto rocm = first_named(*file.needed, libraries.rocm)) {
        return {Build::rocm, name + " links " + *rocm};
      }
      if (const auto linked = first_named(*file.needed, libraries.cuda); linked && !cuda) {
        cuda = name + " links " + *linked;
      }
    }
  }
  if (cuda) {
    return {Build::cuda, *cuda};
  }
  if (rule.name_is_cuda) {
    return {Build::cuda, "the distribution " + package.name + " is built for CUDA only"};
  }
  if (rule.untagged_is_cuda && tag.empty()) {
    return {Build::cuda, "its version has no +rocm tag: PyPI's build, which is CUDA's"};
  }
  return {Build::unknown, ""};
}

/// A host whose only GPUs are AMD's: there, every environment runs on an AMD GPU.
bool only_amd_gpus(const CheckContext& context) {
  const bool nvidia =
      context.facts.pci &&
      std::any_of(context.facts.pci->devices.begin(), context.facts.pci->devices.end(),
                  [](const PciDevice& device) { return device.gpu == GpuVendor::nvidia; });
  return !context.amd_gpus.empty() && !nvidia;
}

/// An environment that runs on an AMD GPU: beside a ROCm torch, or on such a host.
bool runs_on_amd(const PythonEnvironment& environment, bool only_amd) {
  return only_amd || (environment.torch && environment.torch->build == TorchBuild::rocm);
}

/// The rules' pip line for this environment; nullopt when a placeholder has no value here.
std::optional<std::string> install_line(const CudaPackage& rule,
                                        const PythonEnvironment& environment) {
  std::string line = rule.install;
  const auto replace = [&line](std::string_view key, const std::string& value) {
    for (auto at = line.find(key); at != std::string::npos;
         at = line.find(key, at + value.size())) {
      line.replace(at, key.size(), value);
    }
  };
  replace("{python}", python_of(&environment));
  if (line.find("{cp}") != std::string::npos) {
    if (!environment.python_version) {
      return std::nullopt;
    }
    std::string cp = "cp" + *environment.python_version;
    cp.erase(std::remove(cp.begin(), cp.end(), '.'), cp.end());
    replace("{cp}", cp);
  }
  if (line.find("{torch_index}") != std::string::npos) {
    const auto index = environment.torch ? wheel_index(*environment.torch) : std::nullopt;
    if (!index || std::find(rule.torch_indexes.begin(), rule.torch_indexes.end(), *index) ==
                      rule.torch_indexes.end()) {
      return std::nullopt;
    }
    replace("{torch_index}", *index);
  }
  return line;
}

/// The fix that puts the ROCm build in, or says where it is when no line fits here; nullopt
/// for what a CUDA torch left behind, which nothing replaces.
std::optional<Fix> rocm_build_fix(const CudaPackage& rule, const PythonEnvironment& environment) {
  if (rule.breaks == CudaPackageBreaks::leftover) {
    return std::nullopt;
  }
  if (rule.rocm_build.empty()) {
    return Fix{fmt::format("No ROCm build of {} exists: leave it out, or use what the project "
                           "offers instead",
                           rule.what),
               "", false};
  }
  const auto& pythons = rule.pythons;
  if (environment.python_version && !pythons.empty() &&
      std::find(pythons.begin(), pythons.end(), *environment.python_version) == pythons.end()) {
    return Fix{fmt::format("The ROCm build of {} has wheels for CPython {} only, and this "
                           "environment runs {} (pip would take PyPI's CUDA build again): make an "
                           "environment with CPython {} for it. {}",
                           rule.what, util::join(pythons, ", "), *environment.python_version,
                           pythons.back(), rule.rocm_build),
               "", false};
  }
  if (const auto line = rule.install.empty() ? std::nullopt : install_line(rule, environment)) {
    return Fix{fmt::format("Install the ROCm build of {}: {}", rule.what, rule.rocm_build), *line,
               false};
  }
  return Fix{fmt::format("The ROCm build of {}: {}", rule.what, rule.rocm_build), "", false};
}

struct Found {
  const PythonPackage* package = nullptr;
  const CudaPackage* rule = nullptr;
  std::string why;
};

std::vector<Found> cuda_builds_in(const CheckContext& context,
                                  const PythonEnvironment& environment) {
  std::vector<Found> found;
  const bool cuda_torch = environment.torch && environment.torch->build == TorchBuild::cuda;
  for (const auto& package : environment.packages) {
    // A name pip could have written (PEP 503: [a-z0-9-] once normalised); anything else in a
    // dist-info name is not a distribution, whatever a rules wildcard would match.
    if (package.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
        std::string::npos) {
      continue;
    }
    const CudaPackage* rule = context.knowledge.cuda_package(package.name);
    if (rule == nullptr || (cuda_torch && rule->comes_with_cuda_torch)) {
      continue;  // a CUDA torch's own runtime wheels are torch.cuda-wheel's finding
    }
    Verdict verdict =
        build_of(package, *rule, context.knowledge.build_libraries, environment.site_dir);
    if (verdict.build == Build::cuda) {
      found.push_back({&package, rule, std::move(verdict.why)});
    }
  }
  return found;
}

using Groups = std::vector<std::vector<const Found*>>;

/// The packages found, grouped by their rules row in the order first found: NVIDIA's runtime
/// wheels are one line, not seventeen.
Groups by_rule(const std::vector<Found>& found) {
  Groups groups;
  for (const auto& item : found) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return g.front()->rule == item.rule; });
    if (group == groups.end()) {
      groups.push_back({&item});
    } else {
      group->push_back(&item);
    }
  }
  return groups;
}

/// One uninstall of everything found, in the order found, then the ROCm build of each rules row.
std::vector<Fix> fixes_for(const PythonEnvironment& environment, const std::vector<Found>& found,
                           const Groups& groups) {
  const std::string python = python_of(&environment);
  std::vector<std::string> names;
  for (const auto& item : found) {
    names.push_back(util::shell_word(item.package->name));
  }
  std::vector<Fix> fix{{fmt::format("Remove the CUDA builds from {}", environment.describe()),
                        python + " -m pip uninstall -y " + util::join(names, " "), false}};
  for (const auto& group : groups) {
    if (auto step = rocm_build_fix(*group.front()->rule, environment)) {
      fix.push_back(std::move(*step));
    }
  }
  return fix;
}

std::string breaks_words(CudaPackageBreaks breaks) {
  switch (breaks) {
    case CudaPackageBreaks::cuda_torch:
      return "pulls a CUDA torch";
    case CudaPackageBreaks::fails:
      return "fails on the GPU";
    case CudaPackageBreaks::cpu_fallback:
      return "runs without the GPU";
    case CudaPackageBreaks::leftover:
      return "left behind by a CUDA torch";
  }
  return "";
}

}  // namespace

CheckResult python_cuda_packages(const CheckContext& context) {
  std::vector<std::string> evidence;
  std::vector<std::string> summary;
  std::vector<Fix> fix;
  bool fails = false;
  bool any = false;
  const bool only_amd = only_amd_gpus(context);
  for (const auto& environment : context.facts.python->environments) {
    if (!runs_on_amd(environment, only_amd)) {
      continue;
    }
    any = true;
    const auto found = cuda_builds_in(context, environment);
    if (found.empty()) {
      continue;
    }
    std::vector<std::string> here;
    const Groups groups = by_rule(found);
    for (const auto& group : groups) {
      const CudaPackage& rule = *group.front()->rule;
      fails = fails || rule.breaks == CudaPackageBreaks::cuda_torch ||
              rule.breaks == CudaPackageBreaks::fails;
      std::vector<std::string> named;
      for (const auto* item : group) {
        named.push_back(item->package->name + " " + item->package->version);
      }
      if (group.size() == 1) {
        here.push_back(fmt::format("{} ({})", named.front(), breaks_words(rule.breaks)));
        evidence.push_back(fmt::format("{} in {}: the CUDA build ({}). {}", named.front(),
                                       environment.site_dir, group.front()->why, rule.breaks_how));
      } else {
        here.push_back(
            fmt::format("{} of {} ({})", group.size(), rule.what, breaks_words(rule.breaks)));
        evidence.push_back(fmt::format("{}: {} in {}. {}", rule.what, util::join(named, ", "),
                                       environment.site_dir, rule.breaks_how));
      }
    }
    summary.push_back(fmt::format("in {}: {}", environment.site_dir, util::join(here, ", ")));
    for (auto& step : fixes_for(environment, found, groups)) {
      fix.push_back(std::move(step));
    }
  }
  if (!any) {
    return skip("no Python environment beside a ROCm torch or on a host with only AMD GPUs");
  }
  if (summary.empty()) {
    return pass("no package built only for CUDA in an environment that runs on the AMD GPU");
  }
  return finding(
      fails ? Severity::error : Severity::warning,
      "packages built only for CUDA where the GPU is AMD's: " + util::join(summary, "; "), evidence,
      fix);
}

}  // namespace rocdoc::checks
