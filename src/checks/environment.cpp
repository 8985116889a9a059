// Environment-variable checks.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

int visible_gpu_count(const CheckContext& context) {
  const int kfd = context.facts.kfd ? context.facts.kfd->gpu_count() : 0;
  return kfd > 0 ? kfd : static_cast<int>(context.amd_gpus.size());
}

bool nvidia_present(const CheckContext& context) {
  return context.facts.pci &&
         std::any_of(context.facts.pci->devices.begin(), context.facts.pci->devices.end(),
                     [](const PciDevice& d) { return d.gpu == GpuVendor::nvidia; });
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
  const int count = visible_gpu_count(context);
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  std::vector<std::string> evidence = {
      fmt::format("{} AMD GPU{} (indices 0-{})", count, count == 1 ? "" : "s", count - 1)};
  for (const char* name : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
                           "GPU_DEVICE_ORDINAL"}) {
    const std::string* value = context.facts.env->find(name);
    if (value == nullptr) {
      continue;
    }
    if (std::string_view(name) == "CUDA_VISIBLE_DEVICES" && nvidia_present(context)) {
      continue;  // beside NVIDIA GPUs it numbers those, not the AMD ones
    }
    evidence.push_back(fmt::format("{}=\"{}\"", name, *value));
    std::vector<std::string> valid;
    std::vector<std::string> invalid;
    bool uuid = false;
    for (const auto part : util::split(*value, ',')) {
      const std::string token(util::trim(part));
      if (token.rfind("GPU-", 0) == 0) {
        uuid = true;
        valid.push_back(token);
        continue;
      }
      const auto index = util::parse_unsigned(token);
      (index && static_cast<int>(*index) < count ? valid : invalid).push_back(token);
    }
    if (uuid && invalid.empty()) {
      continue;
    }
    if (util::trim(*value).empty()) {
      problems.push_back(std::string_view(name) == "ROCR_VISIBLE_DEVICES"
                             ? fmt::format("{} is set but empty: it hides every GPU", name)
                             : fmt::format("{} is set but empty: PyTorch reads it as no device "
                                           "(torch.cuda.device_count() is 0)",
                                           name));
    } else if (valid.empty()) {
      problems.push_back(
          fmt::format("{}={} names no GPU that exists: it hides every GPU", name, *value));
    } else if (!invalid.empty()) {
      problems.push_back(fmt::format("{}={} names GPU {} that does not exist", name, *value,
                                     util::join(invalid, ",")));
    } else {
      continue;
    }
    std::vector<std::string> all;
    for (int i = 0; i < count; ++i) {
      all.push_back(std::to_string(i));
    }
    fix.push_back({fmt::format("Name only GPUs that exist (or unset {} to see all)", name),
                   fmt::format("export {}={}", name, util::join(valid.empty() ? all : valid, ",")),
                   false});
  }
  if (problems.empty()) {
    return pass("the visible-device variables name existing GPUs", evidence);
  }
  return finding(Severity::error, util::join(problems, "; "), evidence, fix);
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
      // With an override the GPU runs the overridden target's code: that is what must be built.
      const auto setting = override_for(context, gpu);
      const std::string needed =
          setting ? override_target(setting->value).value_or(gpu.target->name) : gpu.target->name;
      if (std::find(targets.begin(), targets.end(), needed) == targets.end() &&
          std::find(missing.begin(), missing.end(), needed) == missing.end()) {
        missing.push_back(needed);
      }
    }
    if (missing.empty()) {
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

}  // namespace rocdoc::checks
