// Whole on purpose: the reasoning the software checks share (judges, overrides, remedies, pip
// lines); splitting it would scatter one decision across files.
#include "src/checks/software.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>

#include "rocdoc/gfx_target.h"
#include "src/checks/visible_devices.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

constexpr std::string_view k_index_url = "https://download.pytorch.org/whl/";

bool supports(const std::vector<std::string>& targets, const std::string& target) {
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

int distance(const std::vector<TorchRelease>& releases, const TorchRelease& a,
             const std::string& b) {
  const auto position = [&](const std::string& version) {
    const auto wanted = util::version_numbers(version);
    int index = 0;
    for (const auto& release : releases) {
      if (wanted && util::version_numbers(release.torch) >= wanted) {
        return index;
      }
      ++index;
    }
    return index;
  };
  return std::abs(position(a.torch) - position(b));
}

/// The ROCm release whose libraries an index's wheels bundle: "rocm7.2" → 7.2. The rocm7.14
/// wheels (TheRock) bundle none: they depend on the rocm pip packages.
std::optional<std::string> bundled_rocm(const std::string& index) {
  const auto release = major_minor(index.substr(4));
  if (!release || util::version_numbers(*release) >= util::version_numbers("7.14")) {
    return std::nullopt;
  }
  return release;
}

/// A pip requirement as one shell word: in double quotes, as AMD's guides write it (the
/// brackets of an extra are glob characters), unless a version from the rules holds a
/// character that double quotes do not keep: then single-quoted.
std::string requirement_word(const std::string& package, const std::string& version) {
  const std::string requirement = package + "==" + version;
  return util::is_shell_safe(version) ? "\"" + requirement + "\"" : util::shell_quote(requirement);
}

}  // namespace

std::string local_tag(const std::string& version) {
  const auto plus = version.find('+');
  return plus == std::string::npos ? std::string() : version.substr(plus + 1);
}

std::string base_version(const std::string& version) {
  return version.substr(0, version.find('+'));
}

std::optional<std::string> major_minor(const std::string& version) {
  const auto parts = util::split(version, '.');
  if (parts.size() < 2 || !util::parse_unsigned(parts[0])) {
    return std::nullopt;
  }
  std::string_view minor = parts[1];
  const auto end = minor.find_first_not_of("0123456789");
  minor = minor.substr(0, end);
  if (minor.empty()) {
    return std::nullopt;
  }
  return std::string(parts[0]) + "." + std::string(minor);
}

std::optional<std::string> wheel_index(const TorchInstall& torch) {
  if (torch.build != TorchBuild::rocm || is_other_rocm_build(torch)) {
    return std::nullopt;
  }
  const std::string tag = local_tag(torch.version);
  return tag.rfind("rocm", 0) == 0 ? std::optional(tag) : std::nullopt;
}

bool is_other_rocm_build(const TorchInstall& torch) {
  return torch.build == TorchBuild::rocm && torch.origin != TorchOrigin::pytorch_org &&
         torch.origin != TorchOrigin::pytorch_org_nightly;
}

std::optional<std::string> wheel_rocm(const TorchInstall& torch, const Knowledge& knowledge) {
  if (torch.rocm) {
    return major_minor(*torch.rocm);
  }
  const std::string tag = local_tag(torch.version);
  if (tag.rfind("rocm", 0) == 0) {
    return major_minor(tag.substr(4));
  }
  if (torch.hip) {
    return knowledge.rocm_of_hip(*torch.hip);  // from 10.0 HIP is not numbered as ROCm
  }
  return std::nullopt;
}

std::optional<std::string> wheel_rocm_release(const TorchInstall& torch,
                                              const Knowledge& knowledge) {
  const std::string tag = local_tag(torch.version);
  if (tag.rfind("rocm", 0) == 0) {
    if (auto release = rocm_release_of(tag.substr(4))) {
      return release;
    }
  }
  if (torch.rocm) {
    return rocm_release_of(*torch.rocm);
  }
  return wheel_rocm(torch, knowledge);
}

std::optional<std::string> rocm_release_of(const std::string& version) {
  const auto end = version.find_first_not_of("0123456789.");
  std::string numbers = version.substr(0, end);
  while (!numbers.empty() && numbers.back() == '.') {
    numbers.pop_back();
  }
  const auto parts = util::split(numbers, '.');
  if (parts.size() < 2 || parts[0].empty() || parts[1].empty()) {
    return std::nullopt;
  }
  return parts.size() == 2
             ? numbers
             : std::string(parts[0]) + "." + std::string(parts[1]) + "." + std::string(parts[2]);
}

bool same_rocm(const std::string& a, const std::string& b) {
  auto x = util::version_numbers(a).value_or(std::vector<int>{});
  auto y = util::version_numbers(b).value_or(std::vector<int>{});
  x.resize(3, 0);
  y.resize(3, 0);
  return x == y;
}

std::optional<std::vector<std::string>> official_targets(const Knowledge& knowledge,
                                                         const std::string& rocm) {
  if (knowledge.rocm_release(rocm) == nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> targets;
  for (const auto& target : knowledge.targets) {
    const auto it = target.rocm.find(rocm);
    if (it != target.rocm.end() && it->second != "unsupported") {
      targets.push_back(target.name);
    }
  }
  return targets;
}

namespace {

/// What can be said of a pytorch.org nightly, whose targets are in no table: a target that no
/// pytorch.org release wheel has ever had code for (gfx1010, gfx803) has none in the nightly
/// either, as long as the rules know the nightly's own release or a newer one (a nightly newer
/// than every release may be the first to add a target). The nightlies are built by the same
/// scripts as the releases (pytorch/pytorch .ci/manywheel/build_rocm.sh, PYTORCH_ROCM_ARCH per
/// ROCm version). Returns the union of every release's targets over every index, else nullopt.
std::optional<std::vector<std::string>> nightly_targets(const Knowledge& knowledge,
                                                        const TorchInstall& torch) {
  if (torch.origin != TorchOrigin::pytorch_org_nightly || knowledge.torch_releases.empty()) {
    return std::nullopt;
  }
  const std::string version = torch.version.substr(0, torch.version.find(".dev"));
  const auto release = util::version_numbers(version);
  const auto newest = util::version_numbers(knowledge.torch_releases.back().torch);
  if (!release || !newest || *release > *newest) {
    return std::nullopt;
  }
  std::vector<std::string> targets;
  const auto add = [&](const std::vector<std::string>& list) {
    for (const auto& target : list) {
      if (std::find(targets.begin(), targets.end(), target) == targets.end()) {
        targets.push_back(target);
      }
    }
  };
  for (const auto& known : knowledge.torch_releases) {
    add(known.gfx);
    for (const auto& [index, list] : known.gfx_exceptions) {
      add(list);
    }
  }
  return targets;
}

}  // namespace

std::optional<Judge> rocm_sdk_judge(const Knowledge& knowledge,
                                    const PythonEnvironment& environment) {
  if (!environment.rocm_sdk || !environment.rocm_sdk->libraries) {
    return std::nullopt;  // no libraries package: nothing with GPU code to measure
  }
  const RocmSdk& sdk = *environment.rocm_sdk;
  Judge judge;
  judge.environment = &environment;
  judge.of = JudgeOf::rocm_sdk;
  std::string code;
  if (sdk.libraries_family) {
    const auto family = knowledge.sdk_family(*sdk.libraries_family);
    if (!family) {
      return std::nullopt;  // a family newer than the rules: no verdict
    }
    judge.targets = *family;
    code = "rocm-sdk-libraries-" + *sdk.libraries_family + ": " + util::join(*family, " ");
  } else {
    code = sdk.devices.empty() ? "no rocm-sdk-device-* package"
                               : "rocm-sdk-device-* for " + util::join(sdk.devices, " ");
  }
  for (const auto& device : sdk.devices) {
    if (std::find(judge.targets.begin(), judge.targets.end(), device) == judge.targets.end()) {
      judge.targets.push_back(device);
    }
  }
  judge.what =
      fmt::format("the pip ROCm SDK {} in {} ({})", sdk.version, environment.site_dir, code);
  if (const auto rocm = major_minor(sdk.version)) {
    judge.official = official_targets(knowledge, *rocm);
    judge.official_what = "AMD's support list for ROCm " + *rocm;
  }
  return judge;
}

std::optional<Fix> rocm_sdk_fix(const Knowledge& knowledge, const PythonEnvironment& environment,
                                const std::string& target) {
  if (!environment.rocm_sdk) {
    return std::nullopt;
  }
  const RocmSdk& sdk = *environment.rocm_sdk;
  const std::string python = python_of(&environment);
  if (sdk.libraries_family) {
    // One GPU family per package (up to 7.13): AMD's multi-arch build replaces it.
    const AmdWheelSet* set = knowledge.amd_wheels_for(target, environment.python_version);
    if (set == nullptr) {
      return std::nullopt;
    }
    return Fix{fmt::format("Replace the {} ROCm packages (no {} code) with AMD's ROCm {} build "
                           "for {}, one device package per GPU (ROCm {} user space comes with "
                           "it; the kernel driver must support ROCm {})",
                           *sdk.libraries_family, target, set->rocm, target, set->rocm, set->rocm),
               fmt::format("{} -m pip uninstall -y rocm-sdk-libraries-{} && {}", python,
                           util::shell_word(*sdk.libraries_family),
                           amd_wheel_install_line(*set, target, python)),
               false};
  }
  const auto rocm = major_minor(sdk.version);
  const AmdWheelSet* set = rocm ? knowledge.amd_wheels_of_release(*rocm, target) : nullptr;
  if (set == nullptr) {
    return std::nullopt;
  }
  return Fix{
      fmt::format("Add the {} device package of the pip ROCm SDK {} (AMD's ROCm {} "
                  "index): without it its libraries have no {} kernels",
                  target, sdk.version, set->rocm, target),
      fmt::format("{} -m pip install --index-url {} {}", python, util::shell_word(set->index_url),
                  requirement_word("rocm-sdk-device-" + target, sdk.version)),
      false};
}

namespace {

/// AMD's multi-arch torch keeps its GPU code in amd-torch-device-<target> packages: a torch
/// with some of them has code for those targets only.
std::optional<Judge> torch_devices_judge(const PythonEnvironment& environment) {
  if (!environment.torch || !environment.rocm_sdk || environment.rocm_sdk->torch_devices.empty()) {
    return std::nullopt;
  }
  Judge judge;
  judge.environment = &environment;
  judge.of = JudgeOf::torch_devices;
  judge.targets = environment.rocm_sdk->torch_devices;
  judge.what =
      fmt::format("torch {}'s device packages in {} (amd-torch-device-* for {})",
                  environment.torch->version, environment.site_dir, util::join(judge.targets, " "));
  return judge;
}

}  // namespace

std::optional<Fix> torch_device_fix(const Knowledge& knowledge,
                                    const PythonEnvironment& environment,
                                    const std::string& target) {
  const AmdWheelSet* set =
      environment.torch ? knowledge.amd_wheels_with_torch(environment.torch->version) : nullptr;
  if (set == nullptr ||
      std::find(set->devices.begin(), set->devices.end(), target) == set->devices.end()) {
    return std::nullopt;
  }
  return Fix{fmt::format("Add the {} device packages of AMD's torch {} (its ROCm {} index)", target,
                         environment.torch->version, set->rocm),
             amd_wheel_install_line(*set, target, python_of(&environment)), false};
}

std::vector<Judge> support_judges(const CheckContext& context) {
  std::vector<Judge> judges;
  const Knowledge& knowledge = context.knowledge;
  bool rocm_torch = false;
  if (context.facts.python) {
    for (const auto& environment : context.facts.python->environments) {
      if (!environment.torch || environment.torch->build != TorchBuild::rocm) {
        continue;
      }
      const TorchInstall& torch = *environment.torch;
      rocm_torch = true;
      Judge judge;
      judge.what = fmt::format("torch {} in {}", torch.version, environment.site_dir);
      judge.environment = &environment;
      if (torch.compiled_targets) {
        judge.targets = *torch.compiled_targets;
      } else if (is_other_rocm_build(torch)) {
        continue;  // not a pytorch.org wheel: the matrix says nothing about its targets
      } else if (const TorchRelease* release = knowledge.torch_release(torch.version)) {
        const std::string index = wheel_index(torch).value_or("");
        judge.targets = release->targets_for(index);
        if (torch.bundles_hip) {
          const auto with_libraries = wheel_targets(knowledge, *release, index);
          for (const auto& target : judge.targets) {
            if (!supports(with_libraries, target)) {
              judge.library_gaps.push_back(target);
            }
          }
          judge.targets = with_libraries;
          judge.bundled_rocm = bundled_rocm(index).value_or("");
        }
      } else if (auto targets = nightly_targets(knowledge, torch)) {
        judge.targets = std::move(*targets);
        judge.what = fmt::format(
            "torch {} in {} (a pytorch.org nightly, judged by the targets of every pytorch.org "
            "release)",
            torch.version, environment.site_dir);
      } else {
        continue;  // a torch the knowledge base does not know: no verdict
      }
      for (auto& target : judge.targets) {
        target = target.substr(0, target.find(':'));  // gfx90a:xnack- → gfx90a
      }
      if (const auto rocm = wheel_rocm(torch, knowledge)) {
        judge.official = official_targets(knowledge, *rocm);
        judge.official_what = "AMD's support list for ROCm " + *rocm;
      }
      judges.push_back(std::move(judge));
    }
  }
  if (context.facts.python) {
    // After the torch judges: a torch without code gets torch's remedy (its own SDK with it).
    for (const auto& environment : context.facts.python->environments) {
      // torch's device packages first: torch[device-<target>] brings the SDK's with them.
      if (auto devices = torch_devices_judge(environment)) {
        judges.push_back(std::move(*devices));
      }
      if (auto sdk = rocm_sdk_judge(knowledge, environment)) {
        judges.push_back(std::move(*sdk));
      }
    }
  }
  if (rocm_torch) {
    // A ROCm torch is what will run: when none is a wheel rocdoc knows (AMD's own builds,
    // nightlies), there is no verdict, rather than one about something else.
    return judges;
  }
  const auto rocm = context.facts.rocm ? context.facts.rocm->active_major_minor() : std::nullopt;
  if (rocm && knowledge.rocm_release(*rocm) != nullptr) {
    const RocmRelease& release = *knowledge.rocm_release(*rocm);
    Judge judge;
    judge.what = "ROCm " + *rocm;
    judge.official = official_targets(knowledge, *rocm);
    judge.official_what = "AMD's support list for ROCm " + *rocm;
    if (!release.library_targets.empty()) {
      judge.what = "ROCm " + *rocm + "'s libraries";
      judge.targets = release.library_targets;
    } else {
      judge.targets = judge.official.value_or(std::vector<std::string>{});  // code unknown
    }
    judges.push_back(std::move(judge));
    return judges;
  }
  if (!knowledge.torch_releases.empty()) {
    const TorchRelease& newest = knowledge.torch_releases.back();
    Judge judge;
    judge.what = "the newest torch release (" + newest.torch + ")";
    judge.targets = newest.gfx;
    if (const auto index_rocm = major_minor(newest.rocm_indexes.back().substr(4))) {
      judge.official = official_targets(knowledge, *index_rocm);
      judge.official_what = "AMD's support list for ROCm " + *index_rocm;
    }
    judges.push_back(std::move(judge));
  }
  return judges;
}

std::optional<OverrideSetting> override_for(const CheckContext& context, const AmdGpu& gpu) {
  const EnvFacts& env = *context.facts.env;
  if (gpu.kfd != nullptr) {
    const std::string per_node = fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", gpu.kfd->index);
    if (const std::string* value = env.find(per_node)) {
      return OverrideSetting{per_node, *value};
    }
  }
  if (const std::string* value = env.find("HSA_OVERRIDE_GFX_VERSION")) {
    return OverrideSetting{"HSA_OVERRIDE_GFX_VERSION", *value};
  }
  return std::nullopt;
}

std::optional<std::string> override_target(const std::string& value) {
  const auto parts = util::split(value, '.');
  if (parts.size() != 3) {
    return std::nullopt;
  }
  std::uint64_t numbers[3] = {};
  for (int i = 0; i < 3; ++i) {
    const auto number = util::parse_unsigned(parts[static_cast<std::size_t>(i)]);
    if (!number) {
      return std::nullopt;
    }
    numbers[i] = *number;
  }
  if (numbers[0] == 0 || numbers[0] > 63 || numbers[1] > 255 || numbers[2] > 255) {
    return std::nullopt;
  }
  return gfx_name_from_kfd(
      static_cast<std::uint32_t>(numbers[0] * 10000 + numbers[1] * 100 + numbers[2]));
}

const PythonEnvironment* first_rocm_torch(const Facts& facts) {
  if (facts.python) {
    for (const auto& environment : facts.python->environments) {
      if (environment.torch && environment.torch->build == TorchBuild::rocm) {
        return &environment;
      }
    }
  }
  return nullptr;
}

/// The ROCm whose libhsakmt will read the variables: a ROCm torch's own, else the system's.
std::optional<std::string> loaded_rocm(const CheckContext& context) {
  if (const PythonEnvironment* environment = first_rocm_torch(context.facts)) {
    return wheel_rocm(*environment->torch, context.knowledge);
  }
  return context.facts.rocm ? context.facts.rocm->active_major_minor() : std::nullopt;
}

/// A per-node variable that the loaded ROCm is too old to read; nullopt when it is read.
std::optional<std::string> per_node_unread(const CheckContext& context,
                                           const OverrideSetting& setting) {
  const EnvVariable* global = context.knowledge.env_variable("HSA_OVERRIDE_GFX_VERSION");
  if (setting.variable == "HSA_OVERRIDE_GFX_VERSION" || global == nullptr ||
      global->per_node_since_rocm.empty()) {
    return std::nullopt;
  }
  const auto rocm = loaded_rocm(context);
  if (!rocm ||
      !(util::version_numbers(*rocm) < util::version_numbers(global->per_node_since_rocm))) {
    return std::nullopt;
  }
  return fmt::format(
      "{} is read only from ROCm {} on, and the ROCm in use is {}: the GPU keeps its own target",
      setting.variable, global->per_node_since_rocm, *rocm);
}

std::optional<OverrideProblem> override_problem(const CheckContext& context, const AmdGpu& gpu,
                                                const OverrideSetting& setting) {
  if (auto unread = per_node_unread(context, setting)) {
    return OverrideProblem{OverrideProblem::Kind::unread, std::move(*unread), {}};
  }
  const auto target_name = override_target(setting.value);
  if (!target_name) {
    return OverrideProblem{
        OverrideProblem::Kind::malformed,
        fmt::format("{}=\"{}\" is not major.minor.stepping (three decimal numbers such as 10.3.0); "
                    "libhsakmt rejects it and ROCm finds no GPU",
                    setting.variable, setting.value),
        {}};
  }
  if (gpu.target == nullptr) {
    return std::nullopt;
  }
  const GfxTarget* as = context.knowledge.target(*target_name);
  if (as == nullptr) {
    return OverrideProblem{OverrideProblem::Kind::unknown_target,
                           fmt::format("{}={} stands for {}, which is not a known GPU target",
                                       setting.variable, setting.value, *target_name),
                           {}};
  }
  if (as->family != gpu.target->family) {
    return OverrideProblem{
        OverrideProblem::Kind::cross_family,
        fmt::format("{}={} makes the {} {} ({}) pretend to be {} ({}): another GPU family, whose "
                    "code does not run on it",
                    setting.variable, setting.value, gpu.target->family, gpu.name, gpu.target->name,
                    as->name, as->family),
        {}};
  }
  const auto& known = gpu.target->override_value;
  if (known && known->value == setting.value) {
    bool dangerous = known->verdict == OverrideVerdict::dangerous;
    if (known->verdict == OverrideVerdict::unneeded &&
        known->older_torch == OverrideVerdict::dangerous) {
      dangerous = true;
    }
    if (dangerous) {
      return OverrideProblem{OverrideProblem::Kind::dangerous,
                             fmt::format("{}={} on {} is known to be dangerous", setting.variable,
                                         setting.value, gpu.target->name),
                             known->says};
    }
    if (known->verdict == OverrideVerdict::none) {
      return OverrideProblem{OverrideProblem::Kind::known_broken,
                             fmt::format("{}={} is known not to work on {}", setting.variable,
                                         setting.value, gpu.target->name),
                             known->says};
    }
  }
  for (const auto& judge : support_judges(context)) {
    if (!supports(judge.targets, *target_name)) {
      return OverrideProblem{
          OverrideProblem::Kind::no_code,
          fmt::format("{}={} makes the GPU report {}, which {} has no code for either",
                      setting.variable, setting.value, *target_name, judge.what),
          {}};
    }
  }
  return std::nullopt;
}

std::string target_to_build_for(const CheckContext& context, const AmdGpu& gpu) {
  const std::string own = gpu.gfx_target();
  const auto setting = override_for(context, gpu);
  if (!setting) {
    return own;
  }
  if (!override_problem(context, gpu, *setting)) {
    return override_target(setting->value).value_or(own);
  }
  // arch.override-wrong's fix: the value known to work for this target, else no override.
  const auto& known = gpu.target != nullptr ? gpu.target->override_value : std::nullopt;
  if (known && known->verdict == OverrideVerdict::works) {
    return override_target(known->value).value_or(own);
  }
  return own;
}

bool OverrideProblem::left_to_override_check() const {
  return kind == Kind::malformed || kind == Kind::unknown_target || kind == Kind::cross_family ||
         kind == Kind::dangerous || kind == Kind::known_broken;
}

namespace {

/// The release nearest to `current` (the newest without it) among those `fits` accepts.
template <typename Fits>
const TorchRelease* nearest_release(const Knowledge& knowledge,
                                    const std::optional<std::string>& current, Fits fits) {
  if (current && knowledge.torch_newer_than_rules(*current)) {
    return nullptr;  // every release the rules know would be a downgrade
  }
  const TorchRelease* best = nullptr;
  for (const auto& release : knowledge.torch_releases) {
    if (!fits(release)) {
      continue;
    }
    if (!current) {
      best = &release;  // the newest
      continue;
    }
    if (best == nullptr || distance(knowledge.torch_releases, release, *current) <
                               distance(knowledge.torch_releases, *best, *current)) {
      best = &release;
    }
  }
  return best;
}

/// The indexes of a release whose wheels have code for the target (every index when the
/// target is empty) and exist for the Python (any when unknown), newest first.
std::vector<std::string> indexes_with(const Knowledge& knowledge, const TorchRelease& release,
                                      const std::string& target,
                                      const std::optional<std::string>& python) {
  std::vector<std::string> found;
  for (auto it = release.rocm_indexes.rbegin(); it != release.rocm_indexes.rend(); ++it) {
    if ((target.empty() || supports(wheel_targets(knowledge, release, *it), target)) &&
        has_python(release.python_for(*it), python)) {
      found.push_back(*it);
    }
  }
  return found;
}

}  // namespace

const TorchRelease* release_for_target(const Knowledge& knowledge, const std::string& target,
                                       const std::optional<std::string>& current,
                                       const std::optional<std::string>& python) {
  return nearest_release(knowledge, current, [&](const TorchRelease& release) {
    return index_for_target(knowledge, release, target, python).has_value();
  });
}

std::optional<std::string> driver_rocm(const CheckContext& context) {
  const auto& driver = context.facts.driver;
  if (!driver || !driver->dkms_version) {
    return std::nullopt;  // the kernel's own amdgpu, or none: nothing to compare
  }
  const DriverVersion* known = context.knowledge.driver_version(*driver->dkms_version);
  return known == nullptr ? std::nullopt : std::optional(known->rocm);
}

std::optional<bool> driver_supports(const Knowledge& knowledge, const std::string& driver,
                                    const std::string& user_space) {
  const auto kernel_index = knowledge.rocm_release_index(driver);
  const auto user_index = knowledge.rocm_release_index(user_space);
  if (!kernel_index || !user_index) {
    return std::nullopt;
  }
  // Before 6.4, driver and user space are supported up to two releases apart; from 6.4 "up to
  // a year" (KMD 6.4 <-> user space 6.1-6.4; user space 7.2 lists drivers back to 6.4).
  const auto from_64 = knowledge.rocm_release_index("6.4");
  const int window = from_64 && std::max(*kernel_index, *user_index) >= *from_64 ? 3 : 2;
  return std::abs(*kernel_index - *user_index) <= window;
}

std::optional<std::string> index_rocm(const std::string& index) {
  return index.rfind("rocm", 0) == 0 ? major_minor(index.substr(4)) : std::nullopt;
}

bool driver_supports_index(const CheckContext& context, const std::string& index) {
  const auto driver = driver_rocm(context);
  const auto user_space = index_rocm(index);
  return !driver || !user_space ||
         driver_supports(context.knowledge, *driver, *user_space).value_or(true);
}

std::optional<std::string> index_to_propose(const CheckContext& context,
                                            const TorchRelease& release, const std::string& target,
                                            const std::optional<std::string>& python) {
  const auto found = indexes_with(context.knowledge, release, target, python);
  for (const auto& index : found) {
    if (driver_supports_index(context, index)) {
      return index;
    }
  }
  return found.empty() ? std::nullopt : std::optional(found.front());
}

const TorchRelease* release_to_propose(const CheckContext& context, const std::string& target,
                                       const std::optional<std::string>& current,
                                       const std::optional<std::string>& python) {
  const TorchRelease* suits = nearest_release(context.knowledge, current, [&](const auto& release) {
    const auto found = indexes_with(context.knowledge, release, target, python);
    return std::any_of(found.begin(), found.end(), [&](const std::string& index) {
      return driver_supports_index(context, index);
    });
  });
  if (suits != nullptr) {
    return suits;
  }
  if (target.empty()) {
    // No GPU target to judge: the newest release with wheels for the Python.
    if (current && context.knowledge.torch_newer_than_rules(*current)) {
      return nullptr;
    }
    const auto& releases = context.knowledge.torch_releases;
    for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
      if (!indexes_with(context.knowledge, *it, "", python).empty()) {
        return &*it;
      }
    }
    return nullptr;
  }
  return release_for_target(context.knowledge, target, current, python);
}

Fix pip_install_fix(const CheckContext& context, std::string description,
                    const TorchRelease& release, const std::string& python,
                    const std::string& index) {
  const std::string& chosen = index.empty() ? release.rocm_indexes.back() : index;
  const auto driver = driver_rocm(context);
  const auto user_space = index_rocm(chosen);
  if (driver && user_space && !driver_supports_index(context, chosen)) {
    description += fmt::format(
        ". Its wheels bring ROCm {} user space, which the loaded amdgpu driver (of ROCm {}) does "
        "not support: first install a driver that does (AMD's amdgpu-install of ROCm {}, "
        "--usecase=dkms) and reboot",
        *user_space, *driver, *user_space);
  } else if (driver && user_space && !context.knowledge.torch_releases.empty() &&
             !driver_supports_index(context,
                                    context.knowledge.torch_releases.back().rocm_indexes.back())) {
    description += fmt::format(
        ": its ROCm {} wheels suit the loaded amdgpu driver (of ROCm {}); "
        "newer wheels need a newer driver",
        *user_space, *driver);
  }
  return {std::move(description), pip_install_line(release, python, chosen), false};
}

std::vector<std::string> wheel_targets(const Knowledge& knowledge, const TorchRelease& release,
                                       const std::string& index) {
  std::vector<std::string> targets = release.targets_for(index);
  const auto rocm = bundled_rocm(index);
  const RocmRelease* libraries = rocm ? knowledge.rocm_release(*rocm) : nullptr;
  if (libraries == nullptr || libraries->library_targets.empty()) {
    return targets;
  }
  std::erase_if(targets, [&](const std::string& target) {
    return !supports(libraries->library_targets, target.substr(0, target.find(':')));
  });
  return targets;
}

std::optional<std::string> index_for_target(const Knowledge& knowledge, const TorchRelease& release,
                                            const std::string& target,
                                            const std::optional<std::string>& python) {
  if (target.empty()) {
    return std::nullopt;  // indexes_with takes "" as any target; a target's index needs one
  }
  const auto found = indexes_with(knowledge, release, target, python);  // newest first
  return found.empty() ? std::nullopt : std::optional(found.front());
}

namespace {

/// Whether an install line from AMD's index names the set's torch or only its companions.
enum class AmdPackages { torch_and_companions, companions };

/// `<python> -m pip install --index-url URL ["torch[device-gfxN]==V"] "torchvision[device-gfxN]==V"
/// "torchaudio==V"`. The target is a gfx name the rules loader decoded from its KFD number.
std::string amd_index_install_line(const AmdWheelSet& set, const std::string& target,
                                   const std::string& python, AmdPackages packages) {
  const bool with_torch = packages == AmdPackages::torch_and_companions;
  return fmt::format("{} -m pip install --index-url {} {}{} {}", python,
                     util::shell_word(set.index_url),
                     with_torch ? requirement_word("torch[device-" + target + "]", set.torch) + " "
                                : std::string(),
                     requirement_word("torchvision[device-" + target + "]", set.torchvision),
                     requirement_word("torchaudio", set.torchaudio));
}

}  // namespace

std::string amd_wheel_install_line(const AmdWheelSet& set, const std::string& target,
                                   const std::string& python) {
  return amd_index_install_line(set, target, python, AmdPackages::torch_and_companions);
}

std::string amd_companions_install_line(const AmdWheelSet& set, const std::string& target,
                                        const std::string& python) {
  return amd_index_install_line(set, target, python, AmdPackages::companions);
}

std::string pip_install_line(const TorchRelease& release, const std::string& python,
                             const std::string& index_wanted) {
  const std::string& index = index_wanted.empty() ? release.rocm_indexes.back() : index_wanted;
  // Versions and index names come from the rules, which --rules DIR may replace: quoted when
  // they hold anything but the characters of a version or a URL.
  return fmt::format("{} -m pip install torch=={} torchvision=={} torchaudio=={} --index-url {}",
                     python, util::shell_word(release.torch), util::shell_word(release.torchvision),
                     util::shell_word(release.audio()),
                     util::shell_word(std::string(k_index_url) + index));
}

std::string python_of(const PythonEnvironment* environment) {
  if (environment == nullptr) {
    return "python3";
  }
  const std::string& prefix = environment->prefix;
  if (prefix == "/usr" || prefix == "/usr/local") {
    return "/usr/bin/python3";  // the distribution's interpreter reads both dist-packages
  }
  if (prefix.size() >= 7 && prefix.substr(prefix.size() - 7) == "/.local") {
    return "python3";  // the user site belongs to whichever python3 the user runs
  }
  return util::shell_quote(prefix + "/bin/python3");
}

namespace {

/// The newest ROCm release the rules list a target in (supported or deprecated); "" if none.
std::string last_rocm_with(const GfxTarget& target) {
  std::string last;
  for (const auto& [rocm, status] : target.rocm) {
    if (status != "unsupported" &&
        (last.empty() || util::version_numbers(rocm) > util::version_numbers(last))) {
      last = rocm;
    }
  }
  return last;
}

}  // namespace

Fix source_build_fix(const GfxTarget& target, const std::string& python) {
  const std::string last = last_rocm_with(target);
  const std::string says = target.override_value && !target.override_value->says.empty()
                               ? " " + target.override_value->says
                               : std::string();
  return {
      fmt::format("No supported path: no official torch wheel has {} code and no "
                  "HSA_OVERRIDE_GFX_VERSION value is safe.{} A source build is the only route, and "
                  "it needs an installed ROCm whose compiler and libraries still build for {}: {}. "
                  "Install that ROCm first, then build (PyTorch's instructions: "
                  "https://github.com/pytorch/pytorch#from-source)",
                  target.name, says, target.name,
                  last.empty() ? "no ROCm release these rules know lists it, so an older or a "
                                 "community-patched ROCm"
                               : "the newest release that lists it is ROCm " + last),
      fmt::format("git clone --recursive https://github.com/pytorch/pytorch && cd pytorch && "
                  "{0} tools/amd_build/build_amd.py && {0} -m pip install -r "
                  "requirements.txt && PYTORCH_ROCM_ARCH={1} {0} -m pip install "
                  "--no-build-isolation -v -e .",
                  python, util::shell_word(target.name)),
      false};
}

std::vector<Fix> remedy_for(const CheckContext& context, const AmdGpu& gpu,
                            const PythonEnvironment* environment) {
  std::vector<Fix> fix;
  if (gpu.target == nullptr) {
    return fix;
  }
  const GfxTarget& target = *gpu.target;
  const std::optional<std::string> current = environment != nullptr && environment->torch
                                                 ? std::optional(environment->torch->version)
                                                 : std::nullopt;
  const std::optional<std::string> python =
      environment != nullptr ? environment->python_version : std::nullopt;
  if (const TorchRelease* release = release_to_propose(context, target.name, current, python)) {
    fix.push_back(
        pip_install_fix(context,
                        fmt::format("Install torch {}, whose official ROCm wheels include {}",
                                    release->torch, target.name),
                        *release, python_of(environment),
                        index_to_propose(context, *release, target.name, python).value_or("")));
  } else if (const AmdWheelSet* set = context.knowledge.amd_wheels_for(target.name, python);
             set != nullptr && !(current && context.knowledge.torch_newer_than_rules(*current))) {
    fix.push_back(
        {fmt::format("No pytorch.org wheel has {}; AMD builds torch per GPU target: install its "
                     "{} build (ROCm {} user space comes with it; the kernel driver must support "
                     "ROCm {})",
                     target.name, target.name, set->rocm, set->rocm),
         amd_wheel_install_line(*set, target.name, python_of(environment)), false});
  } else if (const TorchRelease* other = release_to_propose(context, target.name, current);
             python && other != nullptr) {
    const auto& versions = other->python_for(
        index_to_propose(context, *other, target.name).value_or(other->rocm_indexes.back()));
    fix.push_back(
        {fmt::format("torch {} has official ROCm wheels with {} code, but none for "
                     "Python {}: install it in an environment with Python {} to {}",
                     other->torch, target.name, *python, versions.empty() ? "?" : versions.front(),
                     versions.empty() ? "?" : versions.back()),
         "", false, FixKind::manual});
  }
  const auto& known = target.override_value;
  if (known && known->verdict == OverrideVerdict::works) {
    fix.push_back({fmt::format("Make the GPU report a supported sibling target, unofficially ({})",
                               known->says.empty() ? "a community workaround" : known->says),
                   "export HSA_OVERRIDE_GFX_VERSION=" + util::shell_word(known->value), false});
  } else if (known && known->verdict == OverrideVerdict::unneeded &&
             known->older_torch == OverrideVerdict::works && !fix.empty()) {
    fix.push_back({fmt::format("Keep this torch and override (unofficial; unneeded from torch {})",
                               known->unneeded_since_torch),
                   "export HSA_OVERRIDE_GFX_VERSION=" + util::shell_word(known->value), false});
  }
  if (fix.empty() && current && context.knowledge.torch_newer_than_rules(*current)) {
    fix.push_back(
        {fmt::format("torch {} is newer than these rules (revision {}): check pytorch.org "
                     "and AMD's wheel indexes for a build with {} code",
                     base_version(*current), context.knowledge.revision, target.name),
         "", false});
  } else if (fix.empty()) {
    fix.push_back(source_build_fix(target, python_of(environment)));
  }
  return fix;
}

std::optional<int> hip_index(const CheckContext& context, const AmdGpu& gpu) {
  return compose_visible_devices(context).agent_index(gpu);
}

std::string hip_index_list(const CheckContext& context, WhichGpus which) {
  std::vector<std::string> indices;
  for (const auto& gpu : context.amd_gpus) {
    if (which == WhichGpus::all || !gpu.integrated()) {
      if (const auto index = hip_index(context, gpu)) {
        indices.push_back(std::to_string(*index));
      }
    }
  }
  return util::join(indices, ",");
}

}  // namespace rocdoc::checks
