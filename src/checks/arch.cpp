// GPU architecture checks: gfx targets against wheels and ROCm, HSA_OVERRIDE_GFX_VERSION.
#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "src/checks/checks.h"
#include "src/checks/software.h"
#include "src/checks/visible_devices.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string unset_command(const OverrideSetting& setting) { return "unset " + setting.variable; }

/// A discrete GPU that HIP enumerates (or that KFD lists, when no mask is set).
bool has_discrete_agent(const CheckContext& context, const DeviceView& view) {
  return std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(), [&](const AmdGpu& g) {
    return !g.integrated() && (view.hip_sees(g) ||
                               (g.pci != nullptr && g.pci->driver == "amdgpu" && g.kfd == nullptr));
  });
}

/// A discrete AMD GPU parked on a passthrough driver (vfio-pci, pci-stub): the GPU the user
/// will run ROCm on once it is given back to amdgpu (gpu.not-bound).
const AmdGpu* parked_discrete(const CheckContext& context) {
  for (const auto& gpu : context.amd_gpus) {
    if (!gpu.integrated() && gpu.pci != nullptr &&
        (gpu.pci->driver == std::optional<std::string>("vfio-pci") ||
         gpu.pci->driver == std::optional<std::string>("pci-stub"))) {
      return &gpu;
    }
  }
  return nullptr;
}

/// The integrated GPU lacks code while the discrete one is parked: the software must suit the
/// discrete GPU after its rebind, and the iGPU be hidden then (N16), not get a torch of its own.
std::vector<Fix> after_rebind_fixes(const AmdGpu& discrete) {
  return {{fmt::format("Give {} back to amdgpu first (gpu.not-bound's fix); then let ROCm programs "
                       "see only it (export HIP_VISIBLE_DEVICES=<its index>: rocminfo lists the "
                       "agents then), and choose torch for its {}",
                       discrete.name,
                       discrete.target != nullptr ? discrete.target->name : std::string("target")),
           "", false, FixKind::manual},
          {"Disable the integrated GPU in the firmware (BIOS/UEFI) setup", "", false,
           FixKind::manual, true}};
}

/// Hide the integrated GPU: HIP numbers it too, often as device 0.
std::vector<Fix> hide_integrated_fixes(const CheckContext& context) {
  std::vector<Fix> fix;
  const std::string discrete = hip_index_list(context, WhichGpus::discrete);
  if (!discrete.empty()) {
    fix.push_back({"Let ROCm programs see only the discrete GPU",
                   "export HIP_VISIBLE_DEVICES=" + discrete, false});
  }
  fix.push_back({"Disable the integrated GPU in the firmware (BIOS/UEFI) setup", "", false,
                 FixKind::manual, true});
  return fix;  // alternatives
}

}  // namespace

CheckResult arch_unsupported(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const auto judges = support_judges(context);
  if (judges.empty()) {
    if (const PythonEnvironment* environment = first_rocm_torch(context.facts)) {
      return skip(fmt::format(
          "no verdict for torch {}, {}: its compiled targets are unknown and pytorch.org's "
          "table does not describe it",
          environment->torch->version, environment->torch->origin_detail));
    }
    return skip("nothing to judge the GPUs against (no known torch wheel or ROCm release)");
  }
  const DeviceView view = compose_visible_devices(context);
  const bool masked = view.rocr || view.hip;
  std::vector<std::string> evidence;
  std::vector<std::string> problems;
  std::vector<std::string> notices;
  std::vector<Fix> fix;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.target == nullptr) {
      evidence.push_back(describe(gpu) + ": gfx target unknown to these rules");
      continue;
    }
    const bool in_kfd = std::any_of(view.kfd_gpus.begin(), view.kfd_gpus.end(),
                                    [&](const RuntimeDevice& d) { return d.gpu == &gpu; });
    if (masked && in_kfd && !view.hip_sees(gpu)) {
      evidence.push_back(describe(gpu) + ": hidden from HIP by the visible-device variables");
      continue;
    }
    if (!context.reachable(gpu)) {
      evidence.push_back(describe(gpu) + ": KFD has no agent for it, so HIP cannot use it (see " +
                         "rocm.agents)");
      continue;
    }
    const auto setting = override_for(context, gpu);
    const auto problem = setting ? override_problem(context, gpu, *setting) : std::nullopt;
    if (problem && problem->left_to_override_check()) {
      continue;  // arch.override-wrong reports this GPU
    }
    const bool overridden = setting && (!problem || problem->kind != OverrideProblem::Kind::unread);
    const std::string effective =
        overridden ? override_target(setting->value).value_or(gpu.target->name) : gpu.target->name;
    const bool hide_it = gpu.integrated() && has_discrete_agent(context, view);
    const AmdGpu* parked = gpu.integrated() && !hide_it ? parked_discrete(context) : nullptr;
    for (const auto& judge : judges) {
      const bool code = contains(judge.targets, effective);
      const bool official = !judge.official || contains(*judge.official, effective);
      evidence.push_back(fmt::format(
          "{}: {} {} {}{}", describe(gpu),
          overridden
              ? fmt::format("runs as {} ({}={})", effective, setting->variable, setting->value)
              : gpu.target->name,
          code ? "has code in" : "has NO code in", judge.what,
          code && !official ? ", but is not on " + judge.official_what : ""));
      if (!code) {
        const bool library_gap = contains(judge.library_gaps, effective);
        problems.push_back(fmt::format(
            "no code for {} ({}) in {}{}{}", effective, gpu.name, judge.what,
            library_gap ? fmt::format(" (torch has {} kernels, but the ROCm {} "
                                      "libraries it bundles have none: rocBLAS fails)",
                                      effective, judge.bundled_rocm)
                        : "",
            hide_it             ? ", an integrated GPU that HIP enumerates beside the discrete "
                                  "one (often as device 0)"
            : parked != nullptr ? ", the integrated GPU, while the discrete one is on " +
                                      parked->pci->driver.value_or("another driver") +
                                      ": ROCm is for that one once amdgpu has it"
                                : ""));
        if (fix.empty()) {
          const auto device =
              judge.of == JudgeOf::rocm_sdk
                  ? rocm_sdk_fix(context.knowledge, *judge.environment, effective)
              : judge.of == JudgeOf::torch_devices
                  ? torch_device_fix(context.knowledge, *judge.environment, effective)
                  : std::nullopt;
          fix = hide_it             ? hide_integrated_fixes(context)
                : parked != nullptr ? after_rebind_fixes(*parked)
                : device            ? std::vector<Fix>{*device}
                                    : remedy_for(context, gpu, judge.environment);
        }
      } else if (!official) {
        notices.push_back(fmt::format("{} ({}) works with {} but is not on {}", effective, gpu.name,
                                      judge.what, judge.official_what));
      }
    }
  }
  if (!problems.empty()) {
    // Eight identical GPUs without code are one problem, said once.
    std::vector<std::string> distinct;
    for (auto& problem : problems) {
      if (std::find(distinct.begin(), distinct.end(), problem) == distinct.end()) {
        distinct.push_back(std::move(problem));
      }
    }
    CheckResult result = finding(Severity::error,
                                 util::join(distinct, "; ") +
                                     ": its kernels will fail with hipErrorNoBinaryForGpu "
                                     "(\"invalid device function\")",
                                 evidence, fix);
    result.fix_order = FixOrder::alternatives;  // hide the iGPU, or one of remedy_for's ways
    return result;
  }
  if (!notices.empty()) {
    return finding(Severity::info,
                   "Works, not supported by AMD: " + util::join(notices, "; ") +
                       " (AMD does not test it; bugs may not be fixed)",
                   evidence);
  }
  return pass("every GPU's target has code", evidence);
}

CheckResult arch_override_wrong(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  bool alternatives = false;
  bool any = false;
  for (const auto& gpu : context.amd_gpus) {
    const auto setting = override_for(context, gpu);
    if (!setting) {
      continue;
    }
    any = true;
    const auto problem = override_problem(context, gpu, *setting);
    if (!problem) {
      evidence.push_back(
          fmt::format("{}: {}={} fits", describe(gpu), setting->variable, setting->value));
      continue;
    }
    problems.push_back(problem->text);
    // What the rules say of it is said once, here (the message stays one short clause).
    evidence.push_back(describe(gpu) + ": " + problem->text +
                       (problem->detail.empty() ? "" : ". " + problem->detail));
    if (!fix.empty()) {
      continue;
    }
    const auto& known = gpu.target != nullptr ? gpu.target->override_value : std::nullopt;
    const auto discrete = hip_index_list(context, WhichGpus::discrete);
    if (per_node_unread(context, *setting)) {
      // Keep the per-node value; load a ROCm that reads it (a global value would reach the
      // other GPUs too).
      const auto judges = support_judges(context);
      const PythonEnvironment* environment = judges.empty() ? nullptr : judges.front().environment;
      const EnvVariable* global = context.knowledge.env_variable("HSA_OVERRIDE_GFX_VERSION");
      const std::string current = environment != nullptr && environment->torch
                                      ? base_version(environment->torch->version)
                                      : std::string();
      for (const auto& release : context.knowledge.torch_releases) {
        const auto index = major_minor(release.rocm_indexes.back().substr(4));
        if (global != nullptr && index &&
            util::version_numbers(*index) >= util::version_numbers(global->per_node_since_rocm) &&
            (current.empty() ||
             util::version_numbers(release.torch) >= util::version_numbers(current))) {
          fix.push_back(pip_install_fix(
              context,
              fmt::format("Install torch {}, whose wheels bundle ROCm {} (reads {})", release.torch,
                          *index, setting->variable),
              release, python_of(environment), ""));
          break;
        }
      }
    } else if (gpu.integrated() && !discrete.empty()) {
      fix.push_back({"Hide the integrated GPU from ROCm programs: no override value suits it",
                     "export HIP_VISIBLE_DEVICES=" + discrete, false});
    } else if (known && known->verdict == OverrideVerdict::works &&
               known->value != setting->value) {
      // A global value would reach the other GPUs too: give this one its own variable then.
      const bool others =
          gpu.kfd != nullptr &&
          std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(), [&](const AmdGpu& other) {
            return other.target != nullptr && other.target != gpu.target;
          });
      const std::string variable = others && setting->variable == "HSA_OVERRIDE_GFX_VERSION"
                                       ? fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", gpu.kfd->index)
                                       : setting->variable;
      fix.push_back({fmt::format("The value that works for {} (unofficial)", gpu.target->name),
                     variable == setting->variable
                         ? fmt::format("export {}={}", variable, util::shell_word(known->value))
                         : fmt::format("unset {} && export {}={}", setting->variable, variable,
                                       util::shell_word(known->value)),
                     false});
    } else {
      // A remedy only when the GPU's own target lacks support too.
      const auto judges = support_judges(context);
      const bool native = gpu.target != nullptr && !judges.empty() &&
                          std::all_of(judges.begin(), judges.end(), [&](const Judge& j) {
                            return contains(j.targets, gpu.target->name);
                          });
      std::vector<Fix> remedies;
      if (!native) {
        remedies = remedy_for(context, gpu, judges.empty() ? nullptr : judges.front().environment);
      }
      if (remedies.empty()) {
        fix.push_back({"Remove the override", unset_command(*setting), false});
      }
      // Each remedy replaces the override: the wrong value goes with it (alternatives).
      for (auto& remedy : remedies) {
        const bool replaces = remedy.command.rfind("export " + setting->variable + "=", 0) == 0;
        if (!replaces && !remedy.command.empty()) {
          remedy.description = "Remove the override, then " + util::lower_first(remedy.description);
          remedy.command = unset_command(*setting) + " && " + remedy.command;
        } else if (!replaces) {
          remedy.description =
              "Remove the override (" + unset_command(*setting) + "). " + remedy.description;
        }
        fix.push_back(std::move(remedy));
      }
      alternatives = remedies.size() > 1;
    }
  }
  if (!any) {
    return context.amd_gpus.empty() ? skip("no AMD GPU")
                                    : pass("HSA_OVERRIDE_GFX_VERSION is not set");
  }
  if (problems.empty()) {
    return pass("the override fits the GPU", evidence);
  }
  CheckResult result = finding(Severity::error, util::join(problems, "; "), evidence, fix);
  if (alternatives) {
    result.fix_order = FixOrder::alternatives;
  }
  return result;
}

CheckResult arch_override_unneeded(const CheckContext& context) {
  const auto judges = support_judges(context);
  if (judges.empty()) {
    return skip("no torch wheel or ROCm release rocdoc knows to judge an override against");
  }
  std::vector<std::string> unneeded;
  std::vector<Fix> fix;
  bool any = false;
  for (const auto& gpu : context.amd_gpus) {
    const auto setting = override_for(context, gpu);
    if (!setting || gpu.target == nullptr || override_problem(context, gpu, *setting)) {
      continue;
    }
    any = true;
    const bool native =
        !judges.empty() && std::all_of(judges.begin(), judges.end(), [&](const Judge& j) {
          return contains(j.targets, gpu.target->name);
        });
    if (native) {
      unneeded.push_back(fmt::format("{} is supported natively by {}, yet {}={}", describe(gpu),
                                     judges.front().what, setting->variable, setting->value));
      const Fix unset{"Unset it: the native code is faster and the override risks page faults",
                      unset_command(*setting), false};
      if (std::none_of(fix.begin(), fix.end(),
                       [&](const Fix& f) { return f.command == unset.command; })) {
        fix.push_back(unset);
      }
    }
  }
  if (!any) {
    return pass("no override in use");
  }
  if (unneeded.empty()) {
    return pass("the override is needed: the GPU's own target is not supported");
  }
  return finding(Severity::warning,
                 "HSA_OVERRIDE_GFX_VERSION is set although the GPU is supported natively", unneeded,
                 fix);
}

CheckResult arch_override_mixed(const CheckContext& context) {
  const std::string* global = context.facts.env->find("HSA_OVERRIDE_GFX_VERSION");
  if (global == nullptr) {
    return pass("no global HSA_OVERRIDE_GFX_VERSION");
  }
  std::set<std::string> targets;
  std::vector<std::string> evidence;
  const AmdGpu* intended = nullptr;
  const auto wanted = override_target(*global);
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.target == nullptr || gpu.kfd == nullptr) {
      continue;
    }
    const std::string per_node = fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", gpu.kfd->index);
    if (context.facts.env->find(per_node) != nullptr) {
      continue;  // this GPU has its own value
    }
    targets.insert(gpu.target->name);
    evidence.push_back(fmt::format("{} (KFD node {})", describe(gpu), gpu.kfd->index));
    // The override is meant for a GPU of its family that is not that target already.
    const GfxTarget* as = wanted ? context.knowledge.target(*wanted) : nullptr;
    if (intended == nullptr && as != nullptr && as->family == gpu.target->family &&
        as->name != gpu.target->name &&
        !override_problem(context, gpu,
                          {fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", gpu.kfd->index), *global})) {
      intended = &gpu;  // never a GPU for which the value is wrong or dangerous
    }
  }
  if (targets.size() < 2) {
    return pass("the global override applies to one kind of GPU");
  }
  std::vector<Fix> fix;
  if (intended == nullptr) {
    fix.push_back(
        {"No GPU here needs it: remove the override", "unset HSA_OVERRIDE_GFX_VERSION", false});
  } else {
    fix.push_back(
        {fmt::format("Give the override to the GPU that needs it only (per-node variables: "
                     "ROCm 6.3 and newer, the node index counts CPU nodes)"),
         fmt::format("unset HSA_OVERRIDE_GFX_VERSION && export HSA_OVERRIDE_GFX_VERSION_{}={}",
                     intended->kfd->index, util::shell_word(*global)),
         false});
    if (const auto index = hip_index(context, *intended)) {
      fix.push_back({"Hide the other GPUs from ROCm programs",
                     fmt::format("export HIP_VISIBLE_DEVICES={}", *index), false});
    }
  }
  CheckResult result = finding(
      Severity::warning,
      fmt::format("One global HSA_OVERRIDE_GFX_VERSION={} applies to GPUs of different targets "
                  "({}): it can only suit one of them",
                  *global,
                  util::join(std::vector<std::string>(targets.begin(), targets.end()), ", ")),
      evidence, fix);
  result.fix_order = FixOrder::alternatives;  // a per-node value, or hide the other GPUs
  return result;
}

}  // namespace rocdoc::checks
