// Python and PyTorch checks: every environment found, each finding names its environment.
// Whole on purpose: one area of the check table (python and torch).
#include <fmt/format.h>
#include <algorithm>

#include "rocdoc/gfx_target.h"
#include "src/checks/checks.h"
#include "src/checks/software.h"
#include "src/checks/torch_companions.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

std::vector<const PythonEnvironment*> torch_environments(const CheckContext& context) {
  std::vector<const PythonEnvironment*> found;
  for (const auto& environment : context.facts.python->environments) {
    if (environment.torch) {
      found.push_back(&environment);
    }
  }
  return found;
}

/// The GPU a torch should be chosen for: the first discrete GPU with a known target.
const AmdGpu* main_gpu(const CheckContext& context) {
  const AmdGpu* chosen = nullptr;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.target != nullptr &&
        (chosen == nullptr || (chosen->integrated() && !gpu.integrated()))) {
      chosen = &gpu;
    }
  }
  return chosen;
}

std::string main_target(const CheckContext& context) {
  const AmdGpu* gpu = main_gpu(context);
  return gpu == nullptr ? std::string() : gpu->target->name;
}

/// A ROCm release for a torch version and the environment's Python: the same version when its
/// ROCm wheels fit (the GPU's code, the loaded driver, the Python), else the newest that fits
/// (never "the nearest to the CPU torch that was installed"). Null when the installed torch is
/// newer than the rules, or when the Python is known and no release has wheels for it.
const TorchRelease* rocm_release_for(const CheckContext& context,
                                     const std::optional<std::string>& version,
                                     const std::optional<std::string>& python) {
  if (version && context.knowledge.torch_newer_than_rules(*version)) {
    return nullptr;  // never a pip line that would downgrade a torch newer than the rules
  }
  const std::string target = main_target(context);
  // Wheels with code for the GPU, from an index whose ROCm the loaded driver supports.
  const auto fits = [&](const TorchRelease& release) {
    const auto index = index_to_propose(context, release, target, python);
    return index && driver_supports_index(context, *index);
  };
  if (version) {
    const TorchRelease* same = context.knowledge.torch_release(*version);
    if (same != nullptr && fits(*same)) {
      return same;
    }
  }
  if (const TorchRelease* release = release_to_propose(context, target, std::nullopt, python)) {
    return release;
  }
  // No release fits: never a pip line for wheels without the GPU's code or the Python.
  return python || !target.empty() || context.knowledge.torch_releases.empty()
             ? nullptr
             : &context.knowledge.torch_releases.back();
}

/// No official ROCm build of torch has the GPU's code: no pip line can help (arch.unsupported
/// gives the ways out).
std::optional<Fix> no_wheel_fix(const CheckContext& context) {
  const std::string target = main_target(context);
  if (target.empty() || release_to_propose(context, target, std::nullopt) != nullptr) {
    return std::nullopt;
  }
  return Fix{fmt::format("No official ROCm build of torch has {} code, so no pip line can give "
                         "this GPU a working torch: arch.unsupported says what can",
                         target),
             "", false, FixKind::manual};
}

/// Which interpreter makes the virtual environment: the distribution's python3, whose venv
/// module Debian and Ubuntu ship apart, or another pythonN.M, which brings its own.
enum class VenvMaker { system_python3, other_python };

/// The steps that install a release into a new virtual environment: for a distribution's
/// Python that refuses pip (PEP 668), or one no release has wheels for.
std::vector<Fix> venv_install_fixes(const CheckContext& context, const TorchRelease& release,
                                    const std::string& venv_python, VenvMaker maker,
                                    const std::string& index, const std::string& why) {
  std::vector<Fix> fix;
  if (maker == VenvMaker::system_python3 && debian_like(context.facts)) {
    fix.push_back(
        {"Install venv support for the system Python (Debian and Ubuntu ship it "
         "apart)",
         "sudo apt install python3-venv", true});
  }
  fix.push_back(
      {"Create a virtual environment " + why, venv_python + " -m venv ~/rocm-venv", false});
  fix.push_back(pip_install_fix(
      context, fmt::format("Install the ROCm build of torch {} into it", release.torch), release,
      "~/rocm-venv/bin/python", index));
  fix.push_back(
      {"Run your programs with that environment: activate it in each shell, or call "
       "~/rocm-venv/bin/python",
       ". ~/rocm-venv/bin/activate", false});
  return fix;
}

/// The venv steps for an externally managed system Python (PEP 668).
std::vector<Fix> system_venv_fixes(const CheckContext& context, const TorchRelease& release,
                                   const std::string& index,
                                   const std::optional<std::string>& python) {
  return venv_install_fixes(
      context, release, "python3", VenvMaker::system_python3, index,
      fmt::format("(the system Python {} is externally managed: pip may not install into it)",
                  python.value_or("3")));
}

/// When no release has wheels for the environment's Python but one would for another: say so,
/// and create an environment with the newest Python the proposed release has wheels for.
std::vector<Fix> other_python_fixes(const CheckContext& context,
                                    const PythonEnvironment& environment) {
  const TorchRelease* release = rocm_release_for(context, std::nullopt, std::nullopt);
  if (release == nullptr) {
    return {};
  }
  const std::string target = main_target(context);
  const std::string index = index_to_propose(context, *release, target).value_or("");
  const auto& versions = release->python_for(index.empty() ? release->rocm_indexes.back() : index);
  if (versions.empty()) {
    return {};
  }
  const std::string& wanted = versions.back();
  std::vector<Fix> fix{
      {fmt::format("No torch release{} has ROCm wheels for Python {}: torch {} has them for "
                   "Python {} to {}. Install Python {} (your distribution's python{} package, "
                   "pyenv, uv or conda), then make an environment with it",
                   target.empty() ? "" : " with " + target + " code",
                   environment.python_version.value_or("?"), release->torch, versions.front(),
                   wanted, wanted, wanted),
       "", false, FixKind::manual}};
  for (auto& step :
       venv_install_fixes(context, *release, "python" + wanted, VenvMaker::other_python, index,
                          fmt::format("with Python {}", wanted))) {
    fix.push_back(std::move(step));
  }
  return fix;
}

std::vector<Fix> reinstall_fixes(const CheckContext& context,
                                 const PythonEnvironment& environment) {
  std::vector<Fix> fix;
  if (const PythonEnvironment* good = first_rocm_torch(context.facts)) {
    fix.push_back(
        {fmt::format("A ROCm torch is already installed in {}: run your programs with that "
                     "environment's interpreter",
                     good->site_dir),
         "", false});
    return fix;
  }
  const auto& python = environment.python_version;
  const TorchRelease* release = rocm_release_for(context, environment.torch->version, python);
  if (release == nullptr && !context.knowledge.torch_newer_than_rules(environment.torch->version)) {
    if (auto none = no_wheel_fix(context)) {
      return {*none};
    }
    if (python) {
      return other_python_fixes(context, environment);
    }
  }
  const std::string index =
      release == nullptr
          ? std::string()
          : index_to_propose(context, *release, main_target(context), python).value_or("");
  if (environment.externally_managed && release != nullptr) {
    // PEP 668: pip refuses the distribution's Python; its torch package can stay (N8).
    return system_venv_fixes(context, *release, index, python);
  }
  if (environment.site_dir == "/usr/lib/python3/dist-packages") {
    // The distribution's package (Debian/Ubuntu python3-torch); pip must not touch it.
    fix.push_back({"Remove the distribution's CPU/CUDA torch package",
                   "sudo apt remove python3-torch", true});
  } else {
    fix.push_back({fmt::format("Remove the wrong build from {}", environment.site_dir),
                   python_of(&environment) + " -m pip uninstall -y torch torchvision torchaudio" +
                       (environment.package("triton") != nullptr ? " triton" : ""),
                   false});
  }
  if (release != nullptr) {
    const bool system = environment.site_dir == "/usr/lib/python3/dist-packages";
    fix.push_back(pip_install_fix(
        context,
        fmt::format("Install the ROCm build of torch {}{}", release->torch,
                    system ? " in a virtual environment (python3 -m venv ~/venv)" : ""),
        *release, system ? "python3" : python_of(&environment), index));
  } else if (context.knowledge.torch_newer_than_rules(environment.torch->version)) {
    fix.push_back(
        {fmt::format(
             "torch {} is newer than these rules (revision {}): install its ROCm build from "
             "the index pytorch.org's selector gives for it (https://pytorch.org/get-started/"
             "locally/)",
             base_version(environment.torch->version), context.knowledge.revision),
         "", false});
  }
  return fix;
}

CheckResult wrong_build(const CheckContext& context, TorchBuild build) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<std::string> found;
  std::vector<Fix> fix;
  bool python3_runs_one = false;
  for (const auto* environment : torch_environments(context)) {
    if (environment->torch->build != build) {
      continue;
    }
    found.push_back(fmt::format(
        "torch {} ({}) in {}{}", environment->torch->version,
        build == TorchBuild::cuda ? "CUDA " + environment->torch->cuda.value_or("")
                                  : std::string("CPU only"),
        environment->describe(), environment->runs_as_python3 ? ": python3 runs it" : ""));
    python3_runs_one = python3_runs_one || environment->runs_as_python3;
    if (fix.empty()) {
      fix = reinstall_fixes(context, *environment);
    }
  }
  const std::string kind = build == TorchBuild::cuda ? "a CUDA build" : "a CPU-only build";
  if (found.empty()) {
    return pass("no torch is " + kind);
  }
  const PythonEnvironment* good = first_rocm_torch(context.facts);
  if (good != nullptr && !python3_runs_one) {
    // A leftover beside a working ROCm environment that python3 does not run (N8): a notice.
    return finding(
        Severity::info,
        fmt::format("torch is {} in {} environment{} that python3 does not run; the ROCm torch "
                    "in {} is the one to use",
                    kind, found.size(), found.size() == 1 ? "" : "s", good->site_dir),
        found,
        {{fmt::format("Nothing to do while your programs run with {}'s interpreter; the other "
                      "torch is only used by an interpreter that reads its directory",
                      good->prefix.empty() ? good->site_dir : good->prefix),
          "", false, FixKind::manual}});
  }
  return finding(Severity::error,
                 fmt::format("torch is {} on a host with an AMD GPU ({} environment{}): "
                             "torch.cuda.is_available() is False",
                             kind, found.size(), found.size() == 1 ? "" : "s"),
                 found, fix);
}

/// The first AMD GPU's target that `wheels` has a [device-*] extra for; "" if none.
std::string target_with_device_extra(const CheckContext& context, const AmdWheelSet& wheels) {
  for (const AmdGpu& gpu : context.amd_gpus) {
    if (gpu.target != nullptr && std::find(wheels.devices.begin(), wheels.devices.end(),
                                           gpu.target->name) != wheels.devices.end()) {
      return gpu.target->name;
    }
  }
  return "";
}

/// AMD's torchvision and torchaudio files of the release this repo.radeon.com torch came from, for
/// the environment's CPython; words where AMD built none for it (or the version is unknown).
Fix radeon_companions_fix(const RadeonWheelSet& files, const PythonEnvironment& environment,
                          const std::string& python) {
  const auto& cpython = environment.python_version;
  if (!cpython ||
      std::find(files.python.begin(), files.python.end(), *cpython) == files.python.end()) {
    return {fmt::format("Install torchvision {} and torchaudio {} from {} (AMD builds them for "
                        "CPython {}; this environment's CPython is {}): a new environment with "
                        "that Python and AMD's four files of this release, as AMD's install page "
                        "says",
                        files.torchvision, files.torchaudio, files.url,
                        util::join(files.python, ", "), cpython.value_or("unknown")),
            "", false};
  }
  return {fmt::format("Install AMD's torchvision and torchaudio built with this torch (ROCm {} "
                      "files on repo.radeon.com, which has no index: pip installs them by URL)",
                      files.rocm),
          fmt::format("{} -m pip install {} {}", python,
                      util::shell_word(files.url + radeon_wheel_file("torchvision",
                                                                     files.torchvision, *cpython)),
                      util::shell_word(
                          files.url + radeon_wheel_file("torchaudio", files.torchaudio, *cpython))),
          false};
}

/// The commands that put matching companions beside this torch.
std::vector<Fix> companion_fixes(const CheckContext& context, const PythonEnvironment& environment,
                                 const TorchRelease* release) {
  const TorchInstall& torch = *environment.torch;
  const std::string python = python_of(&environment);
  std::vector<Fix> fix;
  const std::string stale =
      util::version_numbers(base_version(torch.version)) >= std::optional(std::vector<int>{2, 10})
          ? "pytorch-triton-rocm"
          : "triton-rocm";
  std::vector<std::string> remove;
  for (const char* name : {"triton", "pytorch-triton-rocm", "triton-rocm"}) {
    const PythonPackage* package = environment.package(name);
    if (package != nullptr && local_tag(package->version).rfind("rocm", 0) != 0 &&
        (std::string_view(name) == "triton" || name == stale)) {
      remove.emplace_back(name);
    }
  }
  if (!remove.empty() && (torch.origin == TorchOrigin::pytorch_org ||
                          torch.origin == TorchOrigin::pytorch_org_nightly)) {
    fix.push_back({"Remove the Triton package that does not belong to this torch",
                   python + " -m pip uninstall -y " + util::join(remove, " "), false});
  }
  if (release != nullptr) {
    // The index is torch's local tag (read from the machine) or the rules'; the versions are
    // the rules': each is quoted when it holds more than a version's or a URL's characters.
    fix.push_back(
        {"Reinstall the three together from one index (pip brings the matching Triton)",
         python + " -m pip install --force-reinstall torch==" + util::shell_word(release->torch) +
             " torchvision==" + util::shell_word(release->torchvision) +
             " torchaudio==" + util::shell_word(release->audio()) + " --index-url " +
             util::shell_word("https://download.pytorch.org/whl/" +
                              wheel_index(torch).value_or(release->rocm_indexes.back())),
         false});
  } else if (const AmdWheelSet* wheels =
                 torch.origin == TorchOrigin::amd
                     ? context.knowledge.amd_wheels_with_torch(torch.version)
                     : nullptr;
             wheels != nullptr && !target_with_device_extra(context, *wheels).empty()) {
    // AMD's index serves the companions built with this torch (its install page's line).
    fix.push_back(
        {fmt::format("Install torchvision and torchaudio from AMD's ROCm {} index, "
                     "built with this torch",
                     wheels->rocm),
         amd_companions_install_line(*wheels, target_with_device_extra(context, *wheels), python),
         false});
  } else if (const RadeonWheelSet* files =
                 torch.origin == TorchOrigin::amd
                     ? context.knowledge.radeon_wheels_with_torch(torch.version)
                     : nullptr) {
    fix.push_back(radeon_companions_fix(*files, environment, python));
  } else if (const auto index = wheel_index(torch)) {
    const bool nightly = torch.origin == TorchOrigin::pytorch_org_nightly;
    fix.push_back({"Reinstall torchvision and torchaudio from torch's own index",
                   python + " -m pip install --force-reinstall " + (nightly ? "--pre " : "") +
                       "torchvision torchaudio --index-url " +
                       util::shell_word("https://download.pytorch.org/whl/" +
                                        std::string(nightly ? "nightly/" : "") + *index),
                   false});
  } else {
    fix.push_back({fmt::format("Install torchvision and torchaudio from where this torch came "
                               "from ({}): builds of one source are made to match",
                               torch.origin_detail),
                   "", false});
  }
  return fix;
}

std::string tag_family(const std::string& tag) {
  if (tag.rfind("rocm", 0) == 0) {
    return "rocm";
  }
  if (tag.rfind("cu", 0) == 0) {
    return "cuda";
  }
  return tag.empty() ? "" : tag;
}

}  // namespace

CheckResult torch_not_found(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  if (!torch_environments(context).empty()) {
    std::vector<std::string> found;
    for (const auto* environment : torch_environments(context)) {
      found.push_back(
          fmt::format("torch {} in {}", environment->torch->version, environment->describe()));
    }
    return pass(
        fmt::format("torch found in {} environment{}", found.size(), found.size() == 1 ? "" : "s"),
        found);
  }
  std::vector<std::string> searched;
  for (const auto& environment : context.facts.python->environments) {
    searched.push_back(environment.describe());
  }
  std::vector<Fix> fix;
  // For the Python a user gets by typing python3, when rocdoc found its environment.
  const auto& environments = context.facts.python->environments;
  const auto python3 = std::find_if(environments.begin(), environments.end(),
                                    [](const PythonEnvironment& e) { return e.runs_as_python3; });
  const std::optional<std::string> python =
      python3 == environments.end() ? std::nullopt : python3->python_version;
  const TorchRelease* release = rocm_release_for(context, std::nullopt, python);
  const auto none = release == nullptr ? no_wheel_fix(context) : std::nullopt;
  if (none) {
    fix.push_back(*none);
  } else if (release == nullptr && python3 != environments.end() && python) {
    fix = other_python_fixes(context, *python3);
  } else if (release != nullptr && python3 != environments.end() && python3->externally_managed) {
    fix = system_venv_fixes(
        context, *release,
        index_to_propose(context, *release, main_target(context), python).value_or(""), python);
  } else if (release != nullptr) {
    fix.push_back(pip_install_fix(
        context, "Install the ROCm build of torch (in a virtual environment of your choice)",
        *release, "python3",
        index_to_propose(context, *release, main_target(context), python).value_or("")));
  }
  return finding(
      Severity::info,
      fmt::format("No torch in any Python environment found ({} searched)", searched.size()),
      searched, fix);
}

CheckResult torch_cuda_wheel(const CheckContext& context) {
  return wrong_build(context, TorchBuild::cuda);
}

CheckResult torch_cpu_wheel(const CheckContext& context) {
  return wrong_build(context, TorchBuild::cpu);
}

namespace {

/// A TheRock torch beside pip ROCm packages of another release: the problem and the pip line
/// that brings the release torch was built for.
std::optional<std::pair<std::string, Fix>> sdk_release_problem(
    const CheckContext& context, const PythonEnvironment& environment) {
  const TorchInstall& torch = *environment.torch;
  const RocmSdk& sdk = *environment.rocm_sdk;
  const auto built = wheel_rocm(torch, context.knowledge);
  const auto installed = major_minor(sdk.version);
  if (!built || !installed || *built == *installed) {
    return std::nullopt;
  }
  std::string problem = fmt::format(
      "torch {} in {} was built for ROCm {}, but the pip ROCm packages beside it are {} "
      "(rocm-sdk-core): torch loads them, not /opt/rocm",
      torch.version, environment.site_dir, *built, sdk.version);
  const AmdWheelSet* set = context.knowledge.amd_wheels_of_release(*built);
  if (set == nullptr) {
    return std::pair{std::move(problem),
                     Fix{fmt::format("Install the ROCm {} pip packages (rocm, rocm-sdk-core, "
                                     "rocm-sdk-libraries and the device packages) from the "
                                     "index torch came from",
                                     *built),
                         "", false, FixKind::manual}};
  }
  return std::pair{
      std::move(problem),
      Fix{fmt::format("Install the ROCm {} pip packages torch was built for (AMD's index)", *built),
          fmt::format("{} -m pip install --index-url {} {}", python_of(&environment),
                      util::shell_word(set->index_url),
                      util::shell_quote("rocm[libraries]==" + *built + ".*")),
          false}};
}

}  // namespace

CheckResult torch_rocm_mismatch(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  std::vector<std::string> shadowing;  ///< LD_LIBRARY_PATH directories that shadow a wheel
  bool any = false;
  for (const auto* environment : torch_environments(context)) {
    const TorchInstall& torch = *environment->torch;
    if (torch.build != TorchBuild::rocm) {
      continue;
    }
    any = true;
    evidence.push_back(fmt::format("torch {} in {}: {}", torch.version, environment->site_dir,
                                   torch.origin_detail));
    // TheRock's torch loads the ROCm of the pip packages beside it (rocm-sdk-core), not
    // /opt/rocm: their release must be the one torch was built for (AMD pins X.Y.*).
    const RocmSdk* sdk = environment->rocm_sdk ? &*environment->rocm_sdk : nullptr;
    if (sdk != nullptr) {
      evidence.push_back(fmt::format("pip ROCm SDK in {}: {}", environment->site_dir,
                                     util::join(sdk->packages, ", ")));
      if (auto problem = sdk_release_problem(context, *environment)) {
        problems.push_back(std::move(problem->first));
        fix.push_back(std::move(problem->second));
      }
    }
    // A +rocm tag pytorch.org never published for this release is not a mispaired pytorch.org
    // wheel but another build (probes/torch_origin.cpp): no pairing claim is made about it.
    if (!torch.bundles_hip && sdk == nullptr) {
      continue;  // it loads the system's ROCm by design (AMD's and distributions' builds)
    }
    const auto wheel = sdk != nullptr ? rocm_release_of(sdk->version)
                                      : wheel_rocm_release(torch, context.knowledge);
    const std::string own = sdk != nullptr ? "loads the pip ROCm SDK" : "bundles ROCm";
    for (const auto& dir : context.facts.rocm->ld_library_hip) {
      evidence.push_back(fmt::format("LD_LIBRARY_PATH has libamdhip64 in {} (ROCm {})", dir.dir,
                                     dir.version.value_or("unknown")));
      const auto system = dir.version ? rocm_release_of(*dir.version) : std::nullopt;
      if (!wheel || !system || same_rocm(*wheel, *system)) {
        continue;
      }
      problems.push_back(
          fmt::format("torch {} in {} {} {}, but LD_LIBRARY_PATH puts ROCm {}'s "
                      "HIP runtime ({}) in front of it",
                      torch.version, environment->site_dir, own, *wheel, *system, dir.dir));
      if (std::find(shadowing.begin(), shadowing.end(), dir.dir) == shadowing.end()) {
        shadowing.push_back(dir.dir);
      }
    }
  }
  if (!shadowing.empty()) {
    // One command that drops every shadowing directory, not one per directory.
    std::vector<std::string> kept;
    for (const auto part : util::split(*context.facts.env->find("LD_LIBRARY_PATH"), ':')) {
      if (!part.empty() && std::find(shadowing.begin(), shadowing.end(), part) == shadowing.end()) {
        kept.emplace_back(part);
      }
    }
    fix.push_back(
        {"Let the wheel use its own ROCm libraries: drop the system ROCm from LD_LIBRARY_PATH",
         kept.empty() ? "unset LD_LIBRARY_PATH"
                      : "export LD_LIBRARY_PATH=" + util::shell_quote(util::join(kept, ":")),
         false});
  }
  if (!any) {
    return skip("no ROCm build of torch");
  }
  if (problems.empty()) {
    return pass("every ROCm torch matches its ROCm release", evidence);
  }
  evidence.insert(evidence.begin(), problems.begin(), problems.end());
  return finding(Severity::warning, util::join(problems, "; "), evidence, fix);
}

CheckResult torch_companions(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  bool any = false;
  const std::string final_audio = last_torchaudio(context.knowledge);
  for (const auto* environment : torch_environments(context)) {
    const TorchInstall& torch = *environment->torch;
    if (torch.build != TorchBuild::rocm) {
      continue;  // a CUDA or CPU torch is torch.cuda-wheel's or torch.cpu-wheel's finding
    }
    const std::string family = tag_family(local_tag(torch.version));
    const bool pytorch_org = torch.origin == TorchOrigin::pytorch_org ||
                             torch.origin == TorchOrigin::pytorch_org_nightly;
    // The pairing table is pytorch.org's releases'; everything else gets the structural rules.
    const TorchRelease* release = torch.origin == TorchOrigin::pytorch_org
                                      ? context.knowledge.torch_release(torch.version)
                                      : nullptr;
    std::vector<std::string> here;
    for (const auto& package : environment->packages) {
      if (package.name != "torchvision" && package.name != "torchaudio") {
        continue;
      }
      any = true;
      const std::string tag = local_tag(package.version);
      const std::optional<std::string> paired =
          release == nullptr ? std::nullopt
                             : std::optional(package.name == "torchvision" ? release->torchvision
                                                                           : release->audio());
      if (!tag.empty() && !family.empty() && tag_family(tag) != family) {
        here.push_back(fmt::format("{} {} is a {} build beside torch {}", package.name,
                                   package.version, tag_family(tag) == "cuda" ? "CUDA" : tag,
                                   torch.version));
      } else if (tag.empty() && (pytorch_org || torch.origin == TorchOrigin::amd ||
                                 torch.origin == TorchOrigin::therock)) {
        // pytorch.org's ROCm index tags its companions too, as AMD's builds (repo.radeon.com,
        // TheRock) tag theirs; an untagged one came from PyPI, whose Linux wheels are CUDA
        // builds.
        here.push_back(fmt::format("{} {} comes from PyPI (a CUDA build) beside torch {}",
                                   package.name, package.version, torch.version));
      } else if (paired) {
        if (base_version(package.version) != *paired) {
          here.push_back(fmt::format("{} {} does not pair with torch {} (it pairs with {})",
                                     package.name, package.version, base_version(torch.version),
                                     *paired));
        }
      } else {
        for (auto& mismatch : structural_mismatches(torch, package, final_audio)) {
          here.push_back(std::move(mismatch));
        }
      }
    }
    if (pytorch_org) {
      any = any || environment->package("pytorch-triton-rocm") != nullptr ||
            environment->package("triton-rocm") != nullptr ||
            environment->package("triton") != nullptr;
      if (auto triton = triton_mismatch(*environment, release)) {
        here.push_back(std::move(*triton));
      }
    }
    if (here.empty()) {
      continue;
    }
    problems.push_back(fmt::format("in {}: {}", environment->site_dir, util::join(here, "; ")));
    if (!fix.empty()) {
      continue;
    }
    for (auto& step : companion_fixes(context, *environment, release)) {
      fix.push_back(std::move(step));
    }
  }
  if (!any) {
    return skip("no torchvision, torchaudio or Triton beside a ROCm torch");
  }
  if (problems.empty()) {
    return pass("torchvision, torchaudio and Triton match torch");
  }
  return finding(
      Severity::error,
      "torchvision/torchaudio/Triton do not match torch (\"operator torchvision::nms does not "
      "exist\", undefined symbols): " +
          util::join(problems, "; "),
      problems, fix);
}

namespace {

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

/// The GPU code of a torch install that torch.arch-missing judges: libtorch_hip.so first, the
/// bundled ROCm libraries, then the rocBLAS Tensile directory it loads: its own (pytorch.org
/// wheels bundle one), else the active ROCm's (AMD's and distributions' builds load the
/// system's librocblas, whose "Cannot read TensileLibrary.dat ... for GPU arch" is the classic
/// gfx1031 failure).
std::vector<const GpuCode*> judged_code(const TorchInstall& torch, const CheckContext& context) {
  std::vector<const GpuCode*> code;
  for (const auto& library : torch.hip_libraries) {
    code.push_back(&library);
  }
  std::stable_partition(code.begin(), code.end(), [](const GpuCode* library) {
    return file_name(library->path) == "libtorch_hip.so";
  });
  if (torch.rocblas_library) {
    code.push_back(&*torch.rocblas_library);
  } else if (!code.empty() && context.facts.rocm && context.facts.rocm->rocblas_library) {
    code.push_back(&*context.facts.rocm->rocblas_library);
  }
  return code;
}

/// "libtorch_hip.so"; "rocblas/library" for the wheel's Tensile directory, the whole path for
/// the system's.
std::string code_name(const GpuCode& code) {
  const auto cut = code.path.rfind("/torch/lib/");
  return cut == std::string::npos ? code.path : code.path.substr(cut + 11);
}

bool has_code_for(const GpuCode& code, const std::string& processor, const std::string& generic,
                  Xnack xnack) {
  return std::any_of(code.targets.begin(), code.targets.end(), [&](const std::string& target) {
    return code_runs_on(target, processor, generic, xnack);
  });
}

// The remedy proposes the nearest release whose official wheels have the target. When that is
// the release installed, its binaries show this copy was built without it (a rebuild, a
// mislabelled wheel): pip must be told to replace it, or it answers "already satisfied".
void reinstall_when_same_release(std::vector<Fix>& fix, const TorchInstall& torch,
                                 const std::string& target) {
  const std::string release = base_version(torch.version);
  const std::string same = "Install torch " + release + ",";
  if (fix.empty() || fix.front().description.rfind(same, 0) != 0 || fix.front().command.empty()) {
    return;
  }
  fix.front().description = fmt::format(
      "Reinstall torch {} from pytorch.org: its official ROCm wheels include {}, "
      "this copy was built without it",
      release, target);
  std::string& command = fix.front().command;
  const std::string install = " -m pip install ";
  if (const auto at = command.find(install); at != std::string::npos) {
    command.insert(at + install.size(), "--force-reinstall ");  // as the other reinstall lines
  }
}

}  // namespace

CheckResult torch_arch_missing(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  bool any = false;
  const std::string* xnack_setting =
      context.facts.env ? context.facts.env->find("HSA_XNACK") : nullptr;
  const Xnack xnack = xnack_setting != nullptr && *xnack_setting == "1" ? Xnack::on : Xnack::off;
  for (const auto* environment : torch_environments(context)) {
    const auto code = judged_code(*environment->torch, context);
    if (code.empty()) {
      continue;
    }
    any = true;
    for (const auto* library : code) {
      evidence.push_back(fmt::format("{}: {}", library->path, util::join(library->targets, " ")));
    }
    for (const auto& gpu : context.amd_gpus) {
      const std::string processor = gpu.gfx_target();
      if (processor.empty()) {
        continue;
      }
      const auto setting = override_for(context, gpu);
      const std::string effective = target_to_build_for(context, gpu);
      const GfxTarget* effective_target = context.knowledge.target(effective);
      const std::string generic = effective_target ? effective_target->generic : "";
      std::vector<const GpuCode*> missing;
      for (const auto* library : code) {
        if (!has_code_for(*library, effective, generic, xnack)) {
          missing.push_back(library);
        }
      }
      if (missing.empty()) {
        continue;
      }
      std::vector<std::string> names;
      for (const auto* library : missing) {
        names.push_back(code_name(*library));
      }
      problems.push_back(fmt::format(
          "{} has no code for {} ({}{}) in {}; {} has {}", environment->site_dir, effective,
          gpu.name, setting ? ", by " + setting->variable + "=" + setting->value : std::string(),
          util::join(names, ", "), code_name(*missing.front()),
          util::join(missing.front()->targets, " ")));
      if (fix.empty()) {
        fix = remedy_for(context, gpu, environment);
        reinstall_when_same_release(fix, *environment->torch,
                                    gpu.target != nullptr ? gpu.target->name : effective);
      }
    }
  }
  if (!any) {
    return skip(
        "no ROCm torch with GPU code was found (torch/lib/libtorch_hip.so and its bundled "
        "libraries are read from their offload bundles)");
  }
  if (problems.empty()) {
    return pass("the wheel's HIP libraries have code for every GPU", evidence);
  }
  CheckResult result = finding(Severity::error, util::join(problems, "; "), evidence, fix);
  result.fix_order = FixOrder::alternatives;  // remedy_for's ways out
  return result;
}

}  // namespace rocdoc::checks
