// Environment-variable checks.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/gpu_topology.h"
#include "src/checks/software.h"
#include "src/checks/switch_words.h"
#include "src/checks/visible_devices.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

enum class MaskLayer { rocr, hip, ordinal };

/// "0 = Radeon RX 7900 XTX (0000:03:00.0, gfx1100), 1 = ..." or "none".
std::string describe_devices(const std::vector<RuntimeDevice>& devices) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    parts.push_back(fmt::format("{} = {}", i, describe(*devices[i].gpu)));
  }
  return parts.empty() ? "no GPU" : util::join(parts, "; ");
}

std::string range_of(std::size_t count) {
  return count == 1 ? "0" : fmt::format("0-{}", count - 1);
}

/// What went wrong with a mask, in words; nullopt when nothing did.
std::optional<std::string> mask_problem(const AppliedMask& mask, std::size_t count,
                                        MaskLayer layer) {
  const std::string space =
      layer == MaskLayer::rocr
          ? fmt::format("KFD has {} GPU{}: {}", count, count == 1 ? "" : "s", range_of(count))
          : fmt::format("{} GPU{} {}: {}", count, count == 1 ? "" : "s",
                        layer == MaskLayer::hip ? (count == 1 ? "reaches HIP" : "reach HIP")
                                                : (count == 1 ? "reaches OpenCL" : "reach OpenCL"),
                        count == 0 ? "none" : range_of(count));
  const std::string what = fmt::format("{}=\"{}\"", mask.variable, mask.value);
  if (util::trim(mask.value).empty()) {
    return fmt::format("{} is set but empty: it hides every GPU", mask.variable);
  }
  const auto& tokens = mask.result.tokens;
  const auto stop = std::find_if(tokens.begin(), tokens.end(), [&](const MaskToken& t) {
    return t.verdict != TokenVerdict::selected && t.verdict != TokenVerdict::not_read &&
           !(layer != MaskLayer::rocr && t.verdict == TokenVerdict::duplicate);
  });
  if (mask.result.init_fails) {
    return fmt::format("{} has an empty entry: ROCr fails to initialise and no program sees a GPU",
                       what);
  }
  std::vector<std::string> ignored;
  for (auto it = stop == tokens.end() ? tokens.begin() : stop + 1; it != tokens.end(); ++it) {
    if (it->verdict == TokenVerdict::not_read) {
      ignored.push_back(it->text);
    }
  }
  if (stop == tokens.end()) {
    if (ignored.empty()) {
      return std::nullopt;
    }
    return fmt::format("{} lists more GPUs than exist ({}): {} name{} nothing and {} ignored", what,
                       space, util::join(ignored, ","), ignored.size() == 1 ? "s" : "",
                       ignored.size() == 1 ? "is" : "are");
  }
  std::string why;
  switch (stop->verdict) {
    case TokenVerdict::out_of_range:
      why = fmt::format("names GPU {}, which does not exist ({})", stop->text, space);
      break;
    case TokenVerdict::duplicate:
      why = fmt::format("names GPU {} twice", stop->device.value_or(0));
      break;
    case TokenVerdict::unknown_uuid:
      why = fmt::format("'{}' is the UUID of no GPU here", stop->text);
      break;
    case TokenVerdict::ambiguous_uuid:
      why = fmt::format("'{}' matches the UUIDs of several GPUs", stop->text);
      break;
    default:
      why = fmt::format("'{}' is neither a GPU index nor a GPU UUID ({} reads {})", stop->text,
                        layer == MaskLayer::rocr ? "ROCr" : "HIP",
                        layer == MaskLayer::rocr ? "indices and GPU-<16 hex digits> UUIDs"
                                                 : "plain decimal indices and GPU- UUIDs");
      break;
  }
  const std::size_t kept = mask.result.selected.size();
  const std::string effect =
      kept == 0
          ? "it hides every GPU"
          : fmt::format("the runtime stops reading there, so only {} GPU{} stay{} visible{}", kept,
                        kept == 1 ? "" : "s", kept == 1 ? "s" : "",
                        ignored.empty() ? ""
                                        : " and " + util::join(ignored, ",") + " " +
                                              (ignored.size() == 1 ? "is" : "are") + " ignored");
  return fmt::format("{} {}: {}", what, why, effect);
}

/// The mask with only the entries that name a GPU, each once, in the user's order.
Fix corrected_mask(const AppliedMask& mask, const std::vector<RuntimeDevice>& devices,
                   MaskLayer layer) {
  std::vector<std::optional<std::uint64_t>> uuids;
  for (const auto& device : devices) {
    uuids.push_back(device.node->unique_id);
  }
  std::vector<int> chosen;
  std::vector<std::string> entries;
  for (const auto& token : mask.result.tokens) {
    const MaskResult alone = layer == MaskLayer::rocr
                                 ? apply_rocr_visible_devices(token.text, uuids)
                                 : apply_hip_visible_devices(token.text, uuids);
    if (alone.selected.empty() ||
        std::find(chosen.begin(), chosen.end(), alone.selected.front()) != chosen.end()) {
      continue;
    }
    const int device = alone.selected.front();
    chosen.push_back(device);
    const bool uuid = token.text.find("GPU-") != std::string::npos ||
                      (layer == MaskLayer::rocr && !token.text.empty() && token.text[0] == 'G');
    const auto unique_id = devices[static_cast<std::size_t>(device)].node->unique_id;
    entries.push_back(uuid && unique_id ? (layer == MaskLayer::rocr ? rocr_uuid(*unique_id)
                                                                    : hip_uuid(*unique_id))
                                        : std::to_string(device));
  }
  if (entries.empty()) {
    for (std::size_t i = 0; i < devices.size(); ++i) {
      entries.push_back(std::to_string(i));
    }
  }
  if (entries.empty()) {
    return {fmt::format("No GPU is left for it to name: unset it", mask.variable),
            "unset " + mask.variable, false};
  }
  return {
      fmt::format("Name only GPUs that exist, each once (or unset {} to see all)", mask.variable),
      fmt::format("export {}={}", mask.variable, util::shell_word(util::join(entries, ","))),
      false};
}

/// PyTorch parses the masks itself (torch.cuda._parse_visible_devices) and differs from HIP on
/// duplicates (no device at all) and on a HIP list longer than ROCr's (RuntimeError).
std::optional<std::string> torch_disagrees(const DeviceView& view) {
  const auto& tokens = view.hip->result.tokens;
  const bool duplicate = std::any_of(tokens.begin(), tokens.end(), [](const MaskToken& t) {
    return t.verdict == TokenVerdict::duplicate;
  });
  if (duplicate) {
    return fmt::format(
        "{}=\"{}\" names a GPU twice: HIP skips the repeat, but PyTorch then sees no GPU "
        "(torch.cuda.device_count() is 0)",
        view.hip->variable, view.hip->value);
  }
  if (view.rocr && view.hip->variable == "HIP_VISIBLE_DEVICES" &&
      util::split(view.hip->value, ',').size() > util::split(view.rocr->value, ',').size()) {
    return fmt::format(
        "HIP_VISIBLE_DEVICES=\"{}\" lists more devices than ROCR_VISIBLE_DEVICES=\"{}\": "
        "PyTorch raises \"HIP_VISIBLE_DEVICES contains more devices than "
        "ROCR_VISIBLE_DEVICES\"",
        view.hip->value, view.rocr->value);
  }
  return std::nullopt;
}

/// One gfx target as the build variables take it: gfx1100, gfx90a:xnack-,
/// gfx942:sramecc+:xnack-, or an LLVM generic target such as gfx10-3-generic.
bool is_target_token(std::string_view token) {
  const auto all_of = [](std::string_view text, auto predicate) {
    return !text.empty() && std::all_of(text.begin(), text.end(), predicate);
  };
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  if (token.rfind("gfx", 0) != 0) {
    return false;
  }
  const auto colon = token.find(':');
  std::string_view processor = token.substr(3, colon == std::string_view::npos ? colon : colon - 3);
  constexpr std::string_view k_generic = "-generic";
  const bool generic = processor.size() > k_generic.size() && processor.ends_with(k_generic);
  if (generic) {
    processor.remove_suffix(k_generic.size());
  } else if (processor.find('-') != std::string_view::npos) {
    return false;
  }
  for (const auto part : util::split(processor, '-')) {
    if (!all_of(part, hex)) {
      return false;
    }
  }
  if (colon == std::string_view::npos) {
    return true;
  }
  for (const auto feature : util::split(token.substr(colon + 1), ':')) {
    if (feature.size() < 2 || (feature.back() != '+' && feature.back() != '-') ||
        !all_of(feature.substr(0, feature.size() - 1), lower)) {
      return false;
    }
  }
  return true;
}

/// A list of gfx targets separated by ';', ',' or spaces (empty entries are ignored).
bool is_target_list(std::string_view value) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || value[i] == ';' || value[i] == ',' || value[i] == ' ') {
      const std::string_view token = value.substr(start, i - start);
      if (!token.empty() && !is_target_token(token)) {
        return false;
      }
      start = i + 1;
    }
  }
  return true;
}

std::vector<std::string> split_targets(const std::string& value) {
  std::vector<std::string> targets;
  std::string current;
  for (const char c : value + ";") {
    if (c == ';' || c == ',' || c == ' ') {
      if (!current.empty()) {
        targets.push_back(current.substr(0, current.find(':')));
      }
      current.clear();
    } else {
      current += c;
    }
  }
  return targets;
}

}  // namespace

CheckResult env_visible_devices(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const DeviceView view = compose_visible_devices(context);
  if (!view.rocr && !view.hip && !view.ordinal) {
    return pass("no visible-device variable is set");
  }
  if (view.kfd_gpus.empty()) {
    return skip("KFD lists no GPU for the masks to index (see rocm.agents)");
  }
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  evidence.push_back("KFD GPUs, as ROCR_VISIBLE_DEVICES numbers them: " +
                     describe_devices(view.kfd_gpus));
  Severity severity = Severity::warning;
  if (view.rocr) {
    evidence.push_back(fmt::format("ROCR_VISIBLE_DEVICES=\"{}\" leaves {}", view.rocr->value,
                                   describe_devices(view.agents)));
    if (auto problem = mask_problem(*view.rocr, view.kfd_gpus.size(), MaskLayer::rocr)) {
      problems.push_back(std::move(*problem));
      fix.push_back(corrected_mask(*view.rocr, view.kfd_gpus, MaskLayer::rocr));
      severity = Severity::error;
    }
  }
  if (view.hip) {
    evidence.push_back(fmt::format("{}=\"{}\" leaves HIP devices {}", view.hip->variable,
                                   view.hip->value, describe_devices(view.hip_devices)));
    if (view.shadowed) {
      evidence.push_back("CUDA_VISIBLE_DEVICES is ignored: HIP_VISIBLE_DEVICES wins over it");
    }
    const auto rocm = loaded_rocm(context);
    if (view.hip->variable == "CUDA_VISIBLE_DEVICES" && rocm &&
        util::version_numbers(*rocm) >= util::version_numbers("10.0")) {
      evidence.push_back(fmt::format(
          "ROCm {}'s documentation no longer lists CUDA_VISIBLE_DEVICES for HIP "
          "(rocm-systems#10473); HIP still reads it, but HIP_VISIBLE_DEVICES is the name to use",
          *rocm));
    }
    if (auto problem = mask_problem(*view.hip, view.agents.size(), MaskLayer::hip)) {
      problems.push_back(std::move(*problem));
      fix.push_back(corrected_mask(*view.hip, view.agents, MaskLayer::hip));
      severity = Severity::error;
    } else if (auto torch = torch_disagrees(view)) {
      problems.push_back(std::move(*torch));
      fix.push_back(corrected_mask(*view.hip, view.agents, MaskLayer::hip));
      severity = Severity::error;
    }
  }
  if (view.ordinal) {
    evidence.push_back(fmt::format(
        "GPU_DEVICE_ORDINAL=\"{}\" leaves OpenCL devices {} (HIP ignores this variable)",
        view.ordinal->value, describe_devices(view.opencl_devices)));
    if (auto problem = mask_problem(*view.ordinal, view.agents.size(), MaskLayer::ordinal)) {
      problems.push_back(std::move(*problem) + " (OpenCL programs only)");
      fix.push_back(corrected_mask(*view.ordinal, view.agents, MaskLayer::ordinal));
    }
  }
  if (problems.empty()) {
    return pass(fmt::format("the visible-device variables leave HIP {} GPU{}",
                            view.hip_devices.size(), view.hip_devices.size() == 1 ? "" : "s"),
                evidence);
  }
  return finding(severity, util::join(problems, "; "), evidence, fix);
}

CheckResult env_rocm_arch(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  bool any = false;
  for (const char* name :
       {"PYTORCH_ROCM_ARCH", "AMDGPU_TARGETS", "GPU_TARGETS", "HCC_AMDGPU_TARGET"}) {
    const std::string* value = context.facts.env->find(name);
    if (value == nullptr) {
      continue;
    }
    any = true;
    const std::vector<std::string> targets = split_targets(*value);
    std::vector<std::string> missing;
    for (const auto& gpu : context.amd_gpus) {
      if (gpu.target == nullptr) {
        continue;
      }
      // With an override the GPU runs the overridden target's code: that is what must be built,
      // unless the override is wrong (its fix removes it).
      const std::string needed = target_to_build_for(context, gpu);
      if (std::find(targets.begin(), targets.end(), needed) == targets.end() &&
          std::find(missing.begin(), missing.end(), needed) == missing.end()) {
        missing.push_back(needed);
      }
    }
    if (missing.empty()) {
      continue;
    }
    if (!is_target_list(*value)) {
      // Never copied into a command: the value is not a list of targets.
      problems.push_back(fmt::format(
          "{}=\"{}\" is not a list of gfx targets (such as gfx1100;gfx90a:xnack-) and leaves out "
          "{}",
          name, util::excerpt(*value), util::join(missing, ", ")));
      fix.push_back({fmt::format("Set {} by hand to the gfx targets to build for, {} among them",
                                 name, util::join(missing, " and ")),
                     "", false});
      continue;
    }
    problems.push_back(
        fmt::format("{}=\"{}\" leaves out {}", name, *value, util::join(missing, ", ")));
    // Keep the user's entries as written (features such as :xnack- included) and separator.
    // The user's own separator; HCC_AMDGPU_TARGET is comma-separated, the CMake lists ';'.
    const std::string separator = value->find(';') != std::string::npos           ? ";"
                                  : value->find(',') != std::string::npos         ? ","
                                  : value->find(' ') != std::string::npos         ? " "
                                  : std::string_view(name) == "HCC_AMDGPU_TARGET" ? ","
                                                                                  : ";";
    std::string extended(util::trim(*value));
    for (const auto& target : missing) {
      extended += (extended.empty() ? "" : separator) + target;
    }
    fix.push_back({"Include every GPU of this machine",
                   fmt::format("export {}=\"{}\"", name, extended), false});
  }
  if (!any) {
    return pass("no build-target variable set");
  }
  if (problems.empty()) {
    return pass("the build-target variables include every GPU");
  }
  return finding(Severity::warning,
                 util::join(problems, "; ") +
                     ": extensions built here will not run on that GPU (hipErrorNoBinaryForGpu)",
                 problems, fix);
}

namespace {

/// Whether the GPUs' peer paths make NCCL_P2P_DISABLE a leftover or RCCL's workaround.
enum class PeerPaths {
  direct,    ///< two or more discrete GPUs, every pair with a direct path (XGMI, one switch)
  indirect,  ///< a pair crosses CPU root ports, or something stands in its way
  none,      ///< fewer than two discrete GPUs, or the topology is not known
};

PeerPaths peer_paths(const CheckContext& context) {
  if (!context.facts.pci || !context.facts.kfd) {
    return PeerPaths::none;
  }
  const GpuTopology topology = build_gpu_topology(context.facts, context.amd_gpus);
  if (discrete_pairs(topology).empty()) {
    return PeerPaths::none;
  }
  return every_pair_direct(topology) ? PeerPaths::direct : PeerPaths::indirect;
}

}  // namespace

bool is_left_on(const LeftOn& rule, std::string_view value) {
  const std::string lower = util::to_lower(util::trim(value));
  switch (rule.when) {
    case LeftOnWhen::set:
      return !lower.empty();
    case LeftOnWhen::nonzero:
      return !lower.empty() && !is_off_word(lower);
    case LeftOnWhen::off:
      return is_off_word(lower);
    case LeftOnWhen::one:
      return util::parse_unsigned(lower, 0) == 1U;
    case LeftOnWhen::at_least: {
      const auto number = util::parse_signed(lower);
      return number && *number >= rule.at_least;
    }
  }
  return false;
}

CheckResult env_debug_left_on(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<std::string> names;
  std::vector<std::string> workarounds;
  std::optional<PeerPaths> paths;  // asked once, and only for a variable that depends on them
  for (const auto& [name, value] : context.facts.env->variables) {
    const EnvVariable* variable = context.knowledge.env_variable(name);
    if (variable == nullptr || !variable->left_on || !is_left_on(*variable->left_on, value)) {
      continue;
    }
    if (variable->left_on->only_with_direct_peers) {
      if (!paths) {
        paths = peer_paths(context);
      }
      if (*paths != PeerPaths::direct) {
        workarounds.push_back(fmt::format("{}={}", name, value));
        continue;  // across root ports it is RCCL's workaround; without pairs it changes nothing
      }
    }
    problems.push_back(fmt::format("{}={}: {}", name, value, variable->left_on->effect));
    if (util::is_shell_name(name)) {
      names.push_back(name);
    }
  }
  if (problems.empty()) {
    return workarounds.empty()
               ? pass("no debugging or serialising variable is set")
               : pass("no debugging or serialising variable is left on",
                      {util::join(workarounds, ", ") +
                       (paths == PeerPaths::indirect
                            ? ": kept, since not every pair of GPUs here has a direct peer path "
                              "(XGMI or one PCIe switch); there it is RCCL's workaround"
                            : ": not judged: fewer than two discrete GPUs here (or their paths "
                              "are unknown), where it changes nothing")});
  }
  std::vector<Fix> fix;
  if (!names.empty()) {
    const bool one = names.size() == 1;
    fix.push_back({fmt::format("Unset {0} in this shell, and take {0} out of where {1} set (a "
                               "shell profile such as ~/.bashrc, a module file, a container's "
                               "ENV, a job script)",
                               one ? "it" : "them", one ? "it is" : "they are"),
                   "unset " + util::join(names, " "), false});
  }
  return finding(Severity::warning,
                 problems.size() == 1
                     ? "A debugging setting is left on: " + problems.front()
                     : fmt::format("{} debugging settings are left on", problems.size()),
                 problems.size() == 1 ? std::vector<std::string>{} : problems, std::move(fix));
}

CheckResult env_unknown(const CheckContext& context) {
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  for (const auto& [name, value] : context.facts.env->variables) {
    const EnvVariable* variable = context.knowledge.env_variable(name);
    if (variable == nullptr || variable->kind != EnvVarKind::misspelling) {
      continue;
    }
    problems.push_back(fmt::format("{} does not exist; the real name is {}", name, variable->real));
    const bool switch_variable =
        variable->real.size() > 8 && variable->real.substr(variable->real.size() - 8) == "_ENABLED";
    if (!util::is_shell_name(name) || !util::is_shell_name(variable->real)) {
      continue;  // names from a --rules directory that no shell variable can have
    }
    if (variable->real == "HSA_OVERRIDE_GFX_VERSION") {
      // Renaming would make a value take effect that nothing has judged: arch.* say what to set.
      fix.push_back(
          {fmt::format("Remove it; if an override is needed the arch checks name the value for {}",
                       variable->real),
           "unset " + name, false});
      continue;
    }
    fix.push_back({fmt::format("Use the real name, {}", variable->real),
                   fmt::format("unset {} && export {}={}", name, variable->real,
                               switch_variable ? std::string("1") : util::shell_quote(value)),
                   false});
  }
  if (problems.empty()) {
    return pass("no misspelt ROCm/PyTorch variable is set");
  }
  return finding(Severity::warning, util::join(problems, "; ") + ": it is silently ignored",
                 problems, fix);
}

CheckResult env_rocm_path(const CheckContext& context) {
  const RocmFacts& rocm = *context.facts.rocm;
  if (!rocm.rocm_path && !rocm.hip_path) {
    return pass("ROCM_PATH and HIP_PATH are not set");
  }
  // Where ROCm really is: /opt/rocm, else the only /opt/rocm-X.
  std::optional<std::string> installed;
  if (rocm.opt_rocm_version || rocm.opt_rocm_target) {
    installed = "/opt/rocm";
  } else if (rocm.installs.size() == 1) {
    installed = rocm.installs.front().path;
  }
  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  const auto judge = [&](const char* name, const std::optional<std::string>& value,
                         const std::optional<bool>& holds) {
    if (!value) {
      return;
    }
    if (value->empty()) {
      evidence.push_back(fmt::format("{} is set but empty (tools treat it as unset)", name));
      return;
    }
    if (holds.value_or(true)) {
      evidence.push_back(fmt::format("{}={} holds a ROCm install", name, *value));
      return;
    }
    evidence.push_back(
        fmt::format("{}={}: no lib/libamdhip64.so*, .info/version, bin/hipcc or HIP headers there",
                    name, *value));
    problems.push_back(fmt::format("{}={} names a directory that holds no ROCm", name, *value));
    if (installed && *installed != *value) {
      fix.push_back({fmt::format("Point {} at the installed ROCm", name),
                     fmt::format("export {}={}", name, util::shell_quote(*installed)), false});
    } else {
      fix.push_back({"Unset it: builds then find ROCm where it is installed",
                     std::string("unset ") + name, false});
    }
  };
  judge("ROCM_PATH", rocm.rocm_path, rocm.rocm_path_holds_rocm);
  judge("HIP_PATH", rocm.hip_path, rocm.hip_path_holds_hip);
  if (problems.empty()) {
    return pass("ROCM_PATH/HIP_PATH name ROCm installs", evidence);
  }
  evidence.push_back(installed ? "ROCm is installed at " + *installed
                               : "no ROCm install under /opt was found");
  return finding(Severity::warning,
                 util::join(problems, "; ") +
                     ": hipcc, CMake's find_package(hip) and extension builds look there",
                 evidence, fix);
}

}  // namespace rocdoc::checks
