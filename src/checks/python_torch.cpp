// Python and PyTorch checks: every environment found, each finding names its environment.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/software.h"
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

/// A ROCm release for a torch version: the same version when a ROCm wheel exists, else the
/// nearest that includes the GPU's target (or the newest).
const TorchRelease* rocm_release_for(const CheckContext& context,
                                     const std::optional<std::string>& version) {
  const AmdGpu* gpu = main_gpu(context);
  const auto includes_gpu = [&](const TorchRelease& release) {
    return gpu == nullptr || std::find(release.gfx.begin(), release.gfx.end(), gpu->target->name) !=
                                 release.gfx.end();
  };
  if (version) {
    const TorchRelease* same = context.knowledge.torch_release(*version);
    if (same != nullptr && includes_gpu(*same)) {
      return same;
    }
  }
  if (gpu != nullptr) {
    if (const TorchRelease* release =
            release_for_target(context.knowledge, gpu->target->name, version)) {
      return release;
    }
  }
  return context.knowledge.torch_releases.empty() ? nullptr
                                                  : &context.knowledge.torch_releases.back();
}

std::vector<Fix> reinstall_fixes(const CheckContext& context,
                                 const PythonEnvironment& environment) {
  std::vector<Fix> fix;
  const std::string python = python_of(&environment);
  if (environment.site_dir == "/usr/lib/python3/dist-packages") {
    // The distribution's package (Debian/Ubuntu python3-torch); pip must not touch it.
    fix.push_back({"Remove the distribution's CPU/CUDA torch package",
                   "sudo apt remove python3-torch", true});
  } else {
    fix.push_back({fmt::format("Remove the wrong build from {}", environment.site_dir),
                   python + " -m pip uninstall -y torch torchvision torchaudio", false});
  }
  if (const PythonEnvironment* good = first_rocm_torch(context.facts)) {
    fix.push_back(
        {fmt::format("A ROCm torch is already installed in {}: run your programs with that "
                     "environment's interpreter",
                     good->site_dir),
         "", false});
    return fix;
  }
  if (const TorchRelease* release = rocm_release_for(context, environment.torch->version)) {
    fix.push_back(
        {fmt::format("Install the ROCm build of torch {}{}", release->torch,
                     environment.site_dir == "/usr/lib/python3/dist-packages"
                         ? " in a virtual environment (python3 -m venv ~/venv)"
                         : ""),
         pip_install_line(*release, environment.site_dir == "/usr/lib/python3/dist-packages"
                                        ? "python3"
                                        : python),
         false});
  }
  return fix;
}

CheckResult wrong_build(const CheckContext& context, TorchBuild build) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<std::string> found;
  std::vector<Fix> fix;
  for (const auto* environment : torch_environments(context)) {
    if (environment->torch->build != build) {
      continue;
    }
    found.push_back(fmt::format("torch {} ({}) in {}", environment->torch->version,
                                build == TorchBuild::cuda
                                    ? "CUDA " + environment->torch->cuda.value_or("")
                                    : std::string("CPU only"),
                                environment->describe()));
    if (fix.empty()) {
      fix = reinstall_fixes(context, *environment);
    }
  }
  const std::string kind = build == TorchBuild::cuda ? "a CUDA build" : "a CPU-only build";
  if (found.empty()) {
    return pass("no torch is " + kind);
  }
  return finding(Severity::error,
                 fmt::format("torch is {} on a host with an AMD GPU ({} environment{}): "
                             "torch.cuda.is_available() is False",
                             kind, found.size(), found.size() == 1 ? "" : "s"),
                 found, fix);
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
  if (const TorchRelease* release = rocm_release_for(context, std::nullopt)) {
    fix.push_back({"Install the ROCm build of torch (in a virtual environment of your choice)",
                   pip_install_line(*release, "python3"), false});
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

CheckResult torch_rocm_mismatch(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  bool any = false;
  for (const auto* environment : torch_environments(context)) {
    const TorchInstall& torch = *environment->torch;
    if (torch.build != TorchBuild::rocm) {
      continue;
    }
    any = true;
    const auto index = wheel_index(torch);
    const TorchRelease* release = context.knowledge.torch_release(torch.version);
    if (release != nullptr && index &&
        std::find(release->rocm_indexes.begin(), release->rocm_indexes.end(), *index) ==
            release->rocm_indexes.end()) {
      problems.push_back(fmt::format("torch {} in {}: pytorch.org builds torch {} for {}, not {}",
                                     torch.version, environment->site_dir, release->torch,
                                     util::join(release->rocm_indexes, " and "), *index));
      if (fix.empty()) {
        fix.push_back({"Install the build pytorch.org pairs with this torch",
                       pip_install_line(*release, python_of(environment)), false});
      }
    }
    const auto wheel = wheel_rocm(torch);
    for (const auto& dir : context.facts.rocm->ld_library_hip) {
      const auto system = dir.version ? major_minor(*dir.version) : std::nullopt;
      evidence.push_back(fmt::format("LD_LIBRARY_PATH has libamdhip64 in {} (ROCm {})", dir.dir,
                                     dir.version.value_or("unknown")));
      if (wheel && system && *wheel != *system) {
        problems.push_back(
            fmt::format("torch {} in {} carries ROCm {}, but LD_LIBRARY_PATH puts ROCm {}'s "
                        "HIP runtime ({}) in front of it",
                        torch.version, environment->site_dir, *wheel, *system, dir.dir));
        std::vector<std::string> kept;
        for (const auto part : util::split(*context.facts.env->find("LD_LIBRARY_PATH"), ':')) {
          if (part != dir.dir && !part.empty()) {
            kept.emplace_back(part);
          }
        }
        fix.push_back(
            {"Let the wheel use its own ROCm libraries: drop the system ROCm from LD_LIBRARY_PATH",
             kept.empty() ? "unset LD_LIBRARY_PATH"
                          : "export LD_LIBRARY_PATH=" + util::shell_quote(util::join(kept, ":")),
             false});
      }
    }
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
  for (const auto* environment : torch_environments(context)) {
    const TorchInstall& torch = *environment->torch;
    if (torch.build != TorchBuild::rocm) {
      continue;  // a CUDA or CPU torch is torch.cuda-wheel's or torch.cpu-wheel's finding
    }
    const std::string family = tag_family(local_tag(torch.version));
    const bool pytorch_org = !is_other_rocm_build(torch) && wheel_index(torch).has_value();
    // The pairing table is pytorch.org's; AMD's builds pair their own companions.
    const TorchRelease* release =
        is_other_rocm_build(torch) ? nullptr : context.knowledge.torch_release(torch.version);
    std::vector<std::string> here;
    for (const auto& package : environment->packages) {
      std::optional<std::string> paired;
      if (package.name == "torchvision" && release != nullptr) {
        paired = release->torchvision;
      } else if (package.name == "torchaudio" && release != nullptr) {
        paired = release->audio();
      } else if (package.name == "pytorch-triton-rocm" && release != nullptr &&
                 !release->triton_rocm.empty()) {
        paired = release->triton_rocm;
      } else if (package.name != "torchvision" && package.name != "torchaudio") {
        continue;
      }
      any = true;
      const std::string tag = local_tag(package.version);
      if (package.name != "pytorch-triton-rocm" && !tag.empty() && !family.empty() &&
          tag_family(tag) != family) {
        here.push_back(fmt::format("{} {} is a {} build beside torch {}", package.name,
                                   package.version, tag_family(tag) == "cuda" ? "CUDA" : tag,
                                   torch.version));
      } else if (package.name != "pytorch-triton-rocm" && tag.empty() && pytorch_org) {
        // pytorch.org's ROCm index tags its companions too; an untagged one came from PyPI,
        // whose Linux wheels are CUDA builds.
        here.push_back(fmt::format("{} {} comes from PyPI (a CUDA build) beside torch {}",
                                   package.name, package.version, torch.version));
      } else if (paired && base_version(package.version) != *paired) {
        here.push_back(fmt::format("{} {} does not pair with torch {} (it pairs with {})",
                                   package.name, package.version, base_version(torch.version),
                                   *paired));
      }
    }
    if (!here.empty()) {
      problems.push_back(fmt::format("in {}: {}", environment->site_dir, util::join(here, "; ")));
      if (fix.empty() && release == nullptr && wheel_index(torch)) {
        fix.push_back({"Reinstall torchvision and torchaudio from torch's own index",
                       python_of(environment) +
                           " -m pip install --force-reinstall torchvision torchaudio --index-url "
                           "https://download.pytorch.org/whl/" +
                           (torch.version.find(".dev") != std::string::npos ? "nightly/" : "") +
                           *wheel_index(torch),
                       false});
      }
      if (fix.empty()) {
        if (const TorchRelease* same = release) {
          fix.push_back(
              {"Reinstall the three together from one index",
               python_of(environment) + " -m pip install --force-reinstall torch==" + same->torch +
                   " torchvision==" + same->torchvision + " torchaudio==" + same->audio() +
                   " --index-url https://download.pytorch.org/whl/" +
                   wheel_index(torch).value_or(same->rocm_indexes.back()),
               false});
        }
      }
    }
  }
  if (!any) {
    return skip("no torchvision or torchaudio beside a torch");
  }
  if (problems.empty()) {
    return pass("torchvision and torchaudio match torch");
  }
  return finding(
      Severity::error,
      "torchvision/torchaudio do not match torch (\"operator torchvision::nms does not exist\", "
      "undefined symbols): " +
          util::join(problems, "; "),
      problems, fix);
}

CheckResult torch_arch_missing(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  bool any = false;
  for (const auto* environment : torch_environments(context)) {
    const auto& compiled = environment->torch->compiled_targets;
    if (!compiled) {
      continue;
    }
    any = true;
    std::vector<std::string> plain;
    for (const auto& target : *compiled) {
      plain.push_back(target.substr(0, target.find(':')));
    }
    evidence.push_back(fmt::format("{}/torch/lib/libtorch_hip.so: {}", environment->site_dir,
                                   util::join(*compiled, " ")));
    for (const auto& gpu : context.amd_gpus) {
      if (gpu.target == nullptr) {
        continue;
      }
      const auto setting = override_for(context, gpu);
      const std::string effective =
          setting ? override_target(setting->value).value_or(gpu.target->name) : gpu.target->name;
      if (std::find(plain.begin(), plain.end(), effective) == plain.end()) {
        problems.push_back(
            fmt::format("{} has no code for {} ({})", environment->site_dir, effective, gpu.name));
        if (fix.empty()) {
          fix = remedy_for(context, gpu, environment);
        }
      }
    }
  }
  if (!any) {
    return skip(
        "the gfx targets compiled into the wheel are not known (snapshot \"binaries\" or a "
        "fat-binary scan)");
  }
  if (problems.empty()) {
    return pass("the wheel's HIP libraries have code for every GPU", evidence);
  }
  return finding(Severity::error, util::join(problems, "; "), evidence, fix);
}

}  // namespace rocdoc::checks
