// env.tuning: tuning settings that cannot work as meant. Sources: rules/env_vars.yaml
// (`accepts`, the MIOpen and TunableOp variables), rules/tuning.yaml (the allocator keys),
// rules/gfx_targets.yaml (`compute`: hipBLASLt, bf16).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "src/checks/access_math.h"
#include "src/checks/allocator_config.h"
#include "src/checks/checks.h"
#include "src/checks/switch_words.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

struct TuningProblem {
  Severity severity = Severity::warning;
  std::string text;
  std::vector<Fix> fix;
};

using Problems = std::vector<TuningProblem>;

// ---- values a program does not take -----------------------------------------------------

bool accepted(const AcceptedValues& rule, const std::string& value) {
  if (rule.any_number && util::parse_unsigned(value)) {
    return true;
  }
  const std::string given = rule.ignore_case ? util::to_lower(value) : value;
  return std::any_of(rule.values.begin(), rule.values.end(), [&](const std::string& option) {
    return (rule.ignore_case ? util::to_lower(option) : option) == given;
  });
}

void judge_values(const CheckContext& context, Problems& problems) {
  for (const auto& unaccepted : unaccepted_values(context, ValueJudge::tuning)) {
    std::vector<Fix> fix;
    if (util::is_shell_name(unaccepted.name)) {
      fix.push_back({fmt::format("Unset it (the default applies), or set one of: {}",
                                 util::join(unaccepted.accepts->values, ", ")),
                     "unset " + unaccepted.name, false});
    }
    problems.push_back({Severity::warning,
                        fmt::format("{}={} is not a value it takes: {}", unaccepted.name,
                                    util::excerpt(unaccepted.value, 40), unaccepted.accepts->says),
                        std::move(fix)});
  }
}

// ---- directories tuning results go to ---------------------------------------------------

/// Filesystems MIOpen counts as networked (expanduser.cpp's magic numbers, as /proc/mounts
/// names them): its release builds then keep their databases in the temporary directory.
bool is_network_filesystem(std::string_view type) {
  static constexpr std::string_view k_types[] = {"nfs",  "nfs4",  "cifs", "smb3",   "smbfs",
                                                 "coda", "ocfs2", "afs",  "lustre", "ceph"};
  return std::find(std::begin(k_types), std::end(k_types), type) != std::end(k_types);
}

std::string_view holds(TuningUse use) {
  switch (use) {
    case TuningUse::miopen_user_db:
      return "MIOpen's user tuning database";
    case TuningUse::miopen_cache:
      return "MIOpen's kernel cache";
    case TuningUse::tunableop_results:
      return "TunableOp's results file";
  }
  return "";
}

std::string_view consequence(TuningUse use) {
  switch (use) {
    case TuningUse::miopen_user_db:
      return "MIOpen cannot keep what it tunes, so every run searches the same convolutions "
             "again (with the SQLite database it fails instead)";
    case TuningUse::miopen_cache:
      return "MIOpen cannot create its kernel cache and fails at the first convolution";
    case TuningUse::tunableop_results:
      return "torch warns 'failed to open file ... your tuning results will not be saved' and "
             "tunes again next run";
  }
  return "";
}

/// The per-user place that works, as a shell word ("$HOME/.config/miopen", double-quoted so the
/// shell expands $HOME; the loader allows no quote, space or operator in it).
std::string per_user_place(const Knowledge& knowledge, std::string_view variable) {
  const PlaceRule* place = knowledge.place(variable);
  return place == nullptr ? std::string() : "\"" + place->per_user + "\"";
}

/// Why the judged user cannot create files there; nullopt when nothing stands in the way.
std::optional<std::string> write_obstacle(const TuningDirectory& directory,
                                          const AccessFacts& access) {
  const FileStat& stat = *directory.stat;
  const std::string& existing = *directory.existing;
  if (stat.type != FileType::directory) {
    return fmt::format("{} is a file, not a directory", existing);
  }
  if (directory.mount && directory.mount->has("ro")) {
    return fmt::format("{} is on a read-only mount ({})", existing, directory.mount->point);
  }
  if (!stat.owner_known || directory_permission(stat, access) == Permission::granted) {
    return std::nullopt;
  }
  return fmt::format("{} belongs to {} (mode {:04o}) and {} may not write there", existing,
                     stat.uid == 0 ? std::string("root") : fmt::format("uid {}", stat.uid),
                     stat.mode, access.subject().user.empty() ? "you" : access.subject().user);
}

Fix writable_fix(const Knowledge& knowledge, const TuningDirectory& directory,
                 const AccessFacts& access, const std::optional<std::string>& home) {
  const std::string& existing = *directory.existing;
  const std::string& user = access.subject().user;
  const bool in_home = home && (existing == *home || existing.rfind(*home + "/", 0) == 0);
  if (in_home && directory.stat->type == FileType::directory && !user.empty() &&
      !(directory.mount && directory.mount->has("ro"))) {
    // Left behind by a run under sudo: give it back.
    return {fmt::format("Give {} back to {}", existing, user),
            fmt::format("sudo chown -R {}: {}", util::shell_word(user), util::shell_word(existing)),
            true};
  }
  const std::string place = per_user_place(knowledge, directory.variable);
  if (place.empty()) {
    return {fmt::format("Point {} at a directory of your own", directory.variable), "", false};
  }
  return {fmt::format("Point {} at a directory of your own", directory.variable),
          fmt::format("export {}={}", directory.variable, place), false};
}

void judge_directories(const CheckContext& context, Problems& problems) {
  const TuningFacts& tuning = *context.facts.tuning;
  const AccessFacts& access = *context.facts.access;
  const bool home_networked = tuning.home_mount && is_network_filesystem(tuning.home_mount->type);
  bool miopen_moved = false;
  for (const auto& directory : tuning.directories) {
    const bool miopen = directory.use != TuningUse::tunableop_results;
    if (miopen && directory.is_default && home_networked) {
      miopen_moved = true;  // MIOpen does not use this place: see below
      continue;
    }
    if (!directory.existing || !directory.stat) {
      continue;
    }
    const auto obstacle = write_obstacle(directory, access);
    if (!obstacle) {
      continue;
    }
    const std::string where =
        directory.is_default
            ? fmt::format("{} (the default of {})", directory.path, directory.variable)
            : fmt::format("{} ({}={})", directory.path, directory.variable,
                          util::excerpt(directory.given, 80));
    problems.push_back({Severity::warning,
                        fmt::format("{} cannot be written: {}: {}; {}", holds(directory.use), where,
                                    *obstacle, consequence(directory.use)),
                        {writable_fix(context.knowledge, directory, access, tuning.home)}});
  }
  if (miopen_moved) {
    std::vector<std::string> exports;
    for (const char* variable : {"MIOPEN_USER_DB_PATH", "MIOPEN_CUSTOM_CACHE_DIR"}) {
      const PlaceRule* place = context.knowledge.place(variable);
      if (place != nullptr && !place->on_network_home.empty()) {
        exports.push_back(fmt::format("{}=\"{}\"", variable, place->on_network_home));
      }
    }
    problems.push_back(
        {Severity::info,
         fmt::format("Your home directory ({}) is on {} ({}): MIOpen's release builds then keep "
                     "their tuning database and kernel cache in /tmp instead, lost when /tmp is "
                     "cleared, and where /tmp is shared between users, one user's files block "
                     "another's",
                     *tuning.home, tuning.home_mount->type, tuning.home_mount->point),
         {{"Give MIOpen per-user directories (in a shell profile or the job script)",
           exports.empty() ? std::string() : "export " + util::join(exports, " "), false}}});
  }
}

// ---- PyTorch's allocator setting ---------------------------------------------------------

/// The torch releases of the environments found, ROCm builds first ("2.9").
std::vector<const TorchInstall*> torch_installs(const CheckContext& context) {
  std::vector<const TorchInstall*> installs;
  if (!context.facts.python) {
    return installs;
  }
  for (const auto& environment : context.facts.python->environments) {
    if (environment.torch) {
      installs.push_back(&*environment.torch);
    }
  }
  std::stable_partition(installs.begin(), installs.end(),
                        [](const TorchInstall* torch) { return torch->build == TorchBuild::rocm; });
  return installs;
}

bool older_than(const std::string& version, const std::string& release) {
  const auto have = util::version_numbers(version);
  const auto need = util::version_numbers(release);
  return have && need && *have < *need;
}

void judge_allocator(const CheckContext& context, Problems& problems) {
  const AllocatorConfig& config = context.knowledge.allocator;
  const EnvFacts& env = *context.facts.env;
  const std::string* value = nullptr;
  std::string name;
  for (const auto& variable : config.variables) {
    const std::string* set = env.find(variable);
    if (set == nullptr) {
      continue;
    }
    if (value == nullptr) {
      value = set;
      name = variable;
    } else if (*set != *value) {
      problems.push_back(
          {Severity::info,
           fmt::format("{} is ignored: torch reads {} first, which is also set ({}={})", variable,
                       name, name, util::excerpt(*value, 60)),
           {{fmt::format("Keep one of them: unset {}", variable), "unset " + variable, false}}});
    }
  }
  if (value == nullptr) {
    return;
  }
  const std::vector<const TorchInstall*> installs = torch_installs(context);
  std::set<std::string> seen;
  for (const auto& key : allocator_config_keys(*value)) {
    if (!seen.insert(key).second) {
      continue;
    }
    const AllocatorKey* known = config.key(key);
    if (known == nullptr) {
      problems.push_back({Severity::warning,
                          fmt::format("{} has a key no torch release knows, {}: {}", name,
                                      util::excerpt(key, 40), config.unknown_key_says),
                          {}});
      continue;
    }
    for (const TorchInstall* torch : installs) {
      if (!known->since_torch.empty() && older_than(torch->version, known->since_torch)) {
        problems.push_back(
            {Severity::warning,
             fmt::format("{} sets {}, which torch {} does not know (from {}): {}", name, key,
                         torch->version, known->since_torch, config.unknown_key_says),
             {}});
        break;
      }
      if (torch->build == TorchBuild::rocm && !known->rocm_works_since_torch.empty() &&
          older_than(torch->version, known->rocm_works_since_torch)) {
        problems.push_back({Severity::info,
                            fmt::format("{} sets {}, which does nothing with torch {}: {}", name,
                                        key, torch->version, known->rocm_says),
                            {}});
        break;
      }
    }
  }
}

// ---- settings the GPU cannot honour -----------------------------------------------------

bool switched_on(const std::string* value) {
  if (value == nullptr) {
    return false;
  }
  const std::string lower = util::to_lower(util::trim(*value));
  return !lower.empty() && !is_off_word(lower);
}

/// The targets of the GPUs judged, once each, with their rules.
std::vector<const AmdGpu*> distinct_targets(const CheckContext& context) {
  std::vector<const AmdGpu*> gpus;
  std::set<std::string> seen;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.target != nullptr && gpu.target->compute && seen.insert(gpu.target->name).second) {
      gpus.push_back(&gpu);
    }
  }
  return gpus;
}

void judge_gpu_settings(const CheckContext& context, Problems& problems) {
  const EnvFacts& env = *context.facts.env;
  const bool prefer_hipblaslt = switched_on(env.find("TORCH_BLAS_PREFER_HIPBLASLT"));
  const std::string* precision = env.find("ACCELERATE_MIXED_PRECISION");
  const bool bf16 = precision != nullptr && util::to_lower(util::trim(*precision)) == "bf16";
  for (const AmdGpu* gpu : distinct_targets(context)) {
    const GfxTarget& target = *gpu->target;
    const TargetCompute& compute = *target.compute;
    if (prefer_hipblaslt && !compute.hipblaslt) {
      problems.push_back(
          {Severity::info,
           fmt::format("TORCH_BLAS_PREFER_HIPBLASLT={} asks for hipBLASLt, which torch does not "
                       "use on {} ({}): it warns 'Attempting to use hipBLASLt on an unsupported "
                       "architecture!' and uses rocBLAS",
                       *env.find("TORCH_BLAS_PREFER_HIPBLASLT"), gpu->name, target.name),
           {{"Unset it: rocBLAS serves this GPU either way", "unset TORCH_BLAS_PREFER_HIPBLASLT",
             false}}});
    }
    if (bf16 && compute.bf16 == Bf16Support::emulated) {
      problems.push_back(
          {Severity::info,
           fmt::format("ACCELERATE_MIXED_PRECISION=bf16 on {} ({}), which has {}: bf16 runs "
                       "slower than fp16 here",
                       gpu->name, target.name, compute.bf16_how),
           {{"Use fp16 mixed precision (with a gradient scaler, as Accelerate sets up)",
             "export ACCELERATE_MIXED_PRECISION=fp16", false}}});
    }
  }
}

}  // namespace

std::vector<UnacceptedValue> unaccepted_values(const CheckContext& context, ValueJudge judge) {
  std::vector<UnacceptedValue> found;
  for (const auto& [name, value] : context.facts.env->variables) {
    const bool rccl = name.rfind("NCCL_", 0) == 0;  // RCCL reads the NCCL_* names
    if (rccl != (judge == ValueJudge::rccl)) {
      continue;
    }
    const EnvVariable* variable = context.knowledge.env_variable(name);
    if (variable != nullptr && variable->accepts && !accepted(*variable->accepts, value)) {
      found.push_back({name, value, &*variable->accepts});
    }
  }
  return found;
}

CheckResult env_tuning(const CheckContext& context) {
  Problems problems;
  judge_values(context, problems);
  if (!context.amd_gpus.empty() && context.facts.tuning && context.facts.access) {
    judge_directories(context, problems);
  }
  judge_allocator(context, problems);
  judge_gpu_settings(context, problems);
  if (problems.empty()) {
    return pass("the tuning settings can work as meant");
  }
  Severity severity = Severity::info;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
  for (auto& problem : problems) {
    severity = std::max(severity, problem.severity);
    evidence.push_back(problem.text);
    for (auto& step : problem.fix) {
      fix.push_back(std::move(step));
    }
  }
  if (problems.size() == 1) {
    return finding(severity, problems.front().text, {}, std::move(fix));
  }
  return finding(severity, fmt::format("{} tuning settings cannot work as meant", problems.size()),
                 std::move(evidence), std::move(fix));
}

}  // namespace rocdoc::checks
