// apu.memory and kernel.param-ignored: how much memory an APU's GPU really gets, and the
// memory settings the kernel did not take. Sources: rules/gfx_targets.yaml memory_kernel;
// src/checks/memory_sizes.cpp (TTM and amdgpu arithmetic); AMD's amd-ttm
// (superm1/amd-debug-tools); ROCm/legacy-rocm-build#5444, #5595; ROCm/rocm-systems#351.
#include <fmt/format.h>

#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/memory_sizes.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// A carve-out this large is the user's choice of where the GPU's memory comes from.
constexpr std::uint64_t k_large_carve_out = 8 * k_gib;
/// A carve-out this small leaves the GPU's memory to GTT (AMD's advice for Strix Halo: 512 MB).
constexpr std::uint64_t k_small_carve_out = 4 * k_gib;
/// Below this much RAM, half of it for the GPU (TTM's default) is a fair share.
constexpr std::uint64_t k_ram_worth_raising = 32 * k_gib;

/// The memory HIP sees as the GPU's: the largest of its KFD node's banks (rocminfo's GPU pool).
std::optional<std::uint64_t> hip_memory(const AmdGpu& gpu) {
  std::optional<std::uint64_t> largest;
  for (const KfdNode* node : gpu.kfd_nodes) {
    for (const auto& bank : node->mem_banks) {
      largest = std::max(largest.value_or(0), bank.size);
    }
  }
  return largest;
}

/// The kernel floor for this target's memory (rules/), "6.15" when the rules have none.
std::string memory_kernel(const AmdGpu& gpu) {
  return gpu.target != nullptr && gpu.target->memory_kernel ? gpu.target->memory_kernel->version
                                                            : "6.15";
}

/// ttm.pages_limit=N (and amdttm.pages_limit=N where AMD's DKMS driver is loaded).
std::string pages_limit_arguments(const DriverFacts& driver, std::uint64_t gib) {
  const std::uint64_t pages = gib * k_pages_per_gib;
  std::string arguments = fmt::format("ttm.pages_limit={}", pages);
  if (active_ttm_module(driver) == "amdttm") {
    arguments += fmt::format(" amdttm.pages_limit={}", pages);
  }
  return arguments;
}

constexpr std::string_view k_ninety_percent =
    "90 % of the RAM, the most AMD's amd-ttm sets without asking";

/// `before` starts the description ("Let", or a step to take first ending in "let"); `why`
/// says where the number comes from.
Fix raise_gtt_fix(const Facts& facts, std::uint64_t gib, std::string_view before = "Let",
                  std::string_view why = k_ninety_percent) {
  Fix fix = kernel_argument_fix(facts, pages_limit_arguments(*facts.driver, gib));
  fix.description = fmt::format("{} the GPU use {} GiB of system memory (GTT; {}): {}", before, gib,
                                why, fix.description);
  return fix;
}

/// What the user asked for, made to take effect; never more than the RAM the OS has (then 90 %).
Fix asked_for_fix(const Facts& facts, const MemoryRequest& request,
                  std::optional<std::uint64_t> mem_total) {
  const std::uint64_t gib = std::max<std::uint64_t>(request.bytes / k_gib, 1);
  if (mem_total && request.bytes > *mem_total) {
    return raise_gtt_fix(
        facts, suggested_gtt_gib(*mem_total), "Let",
        fmt::format("{} asks for more than the RAM; {}", request.setting, k_ninety_percent));
  }
  return raise_gtt_fix(facts, gib, "Let", fmt::format("what {} asks for", request.setting));
}

std::vector<std::string> memory_evidence(const AmdGpu& gpu, const SystemFacts& system,
                                         const DriverFacts& driver,
                                         std::optional<std::uint64_t> hip) {
  std::vector<std::string> evidence;
  const GpuMemory& memory = gpu.pci->memory;
  evidence.push_back(fmt::format(
      "{}: carve-out (mem_info_vram_total) {}, GTT (mem_info_gtt_total) {}, HIP's pool (KFD "
      "memory bank) {}",
      describe(gpu), memory.vram_total ? gib_text(*memory.vram_total) : "unknown",
      memory.gtt_total ? gib_text(*memory.gtt_total) : "unknown",
      hip ? gib_text(*hip) : "unknown"));
  if (system.mem_total) {
    evidence.push_back("RAM the OS has (MemTotal): " + gib_text(*system.mem_total));
  }
  if (const auto limit = ttm_limit_bytes(driver)) {
    evidence.push_back(fmt::format("{} pages_limit: {} pages ({})", active_ttm_module(driver),
                                   *limit / 4096, gib_text(*limit)));
  }
  evidence.push_back("kernel " + system.uname.release);
  return evidence;
}

/// One APU's finding, or nullopt when it gets what the machine gives it.
std::optional<CheckResult> apu_finding(const CheckContext& context, const AmdGpu& gpu) {
  const Facts& facts = context.facts;
  const SystemFacts& system = *facts.system;
  const DriverFacts& driver = *facts.driver;
  const GpuMemory& memory = gpu.pci->memory;
  const auto hip = hip_memory(gpu);
  const auto usable = hip ? hip : memory.gtt_total;
  if (!memory.vram_total || !usable) {
    return std::nullopt;
  }
  const auto evidence = memory_evidence(gpu, system, driver, hip);
  const std::uint64_t carve_out = *memory.vram_total;
  // A large carve-out that HIP does not get: kernels before the fix give an APU's VRAM from GTT.
  if (carve_out >= k_large_carve_out && *usable < carve_out / 2) {
    std::vector<Fix> fix = {{fmt::format("Upgrade to kernel {} or later: {}", memory_kernel(gpu),
                                         gpu.target != nullptr && gpu.target->memory_kernel
                                             ? gpu.target->memory_kernel->says
                                             : "the fix is in Linux 6.15"),
                             "", true, FixKind::manual, true}};
    if (system.mem_total) {
      fix.push_back(raise_gtt_fix(facts, suggested_gtt_gib(*system.mem_total + carve_out),
                                  "Set the BIOS carve-out (UMA frame buffer size) to its "
                                  "smallest, 512 MB, so that GTT serves the GPU, and let"));
    }
    CheckResult result = finding(
        Severity::warning,
        fmt::format("HIP gets {} of the {} this APU's BIOS sets aside: kernel {} is older than {}, "
                    "the kernel this APU's memory needs",
                    gib_text(*usable), gib_text(carve_out), system.uname.release,
                    memory_kernel(gpu)),
        evidence, std::move(fix));
    result.fix_order = FixOrder::alternatives;
    return result;
  }
  const auto limit = ttm_limit_bytes(driver);
  const auto request = requested_gtt(driver);
  // The user raised the limit, and the running TTM module did not take it.
  if (request && limit && *limit < request->bytes / 10 * 9) {
    return finding(
        Severity::warning,
        fmt::format("The GPU may use only {} of system memory: {} ({}) asks for {}, but the {} "
                    "module amdgpu uses has pages_limit {}",
                    gib_text(*limit), request->setting, request->where, gib_text(request->bytes),
                    active_ttm_module(driver), gib_text(*limit)),
        evidence, {asked_for_fix(facts, *request, system.mem_total)});
  }
  // A small carve-out leaves the GPU to GTT, and TTM's default gives it half of the RAM.
  if (carve_out < k_small_carve_out && system.mem_total &&
      *system.mem_total >= k_ram_worth_raising && !request &&
      *usable <= *system.mem_total / 100 * 55) {
    return finding(Severity::warning,
                   fmt::format("The GPU may use only {} of this APU's {} of RAM: the TTM limit "
                               "is at its default, half of the RAM",
                               gib_text(*usable), gib_text(*system.mem_total)),
                   evidence, {raise_gtt_fix(facts, suggested_gtt_gib(*system.mem_total))});
  }
  return std::nullopt;
}

/// The right parameter for one the kernel did not know.
std::string right_parameter(const UnknownParameter& unknown) {
  if (unknown.name.find("gtt") != std::string::npos ||
      unknown.name.find("pages") != std::string::npos) {
    return "ttm.pages_limit=<GiB × 262144> (GTT follows the TTM limit since Linux 6.5)";
  }
  return fmt::format("the names under /sys/module/{}/parameters/ (modinfo -p {})", unknown.module,
                     unknown.module);
}

void add_unknown(std::vector<UnknownParameter>& found, UnknownParameter unknown) {
  if (std::none_of(found.begin(), found.end(), [&](const UnknownParameter& u) {
        return u.module == unknown.module && u.name == unknown.name;
      })) {
    found.push_back(std::move(unknown));
  }
}

/// Parameters set for a memory module that it does not have: the kernel log says so, or a
/// loaded module has no such file (amdttm.* is harmless where amdttm is not loaded).
std::vector<UnknownParameter> unknown_parameters(const Facts& facts) {
  std::vector<UnknownParameter> found;
  if (facts.kernel_log) {
    for (const auto& line : facts.kernel_log->lines) {
      if (auto unknown = parse_unknown_parameter(line)) {
        add_unknown(found, std::move(*unknown));
      }
    }
  }
  for (const auto& setting : facts.driver->memory_module_settings) {
    const auto module = facts.driver->module_parameters.find(setting.module);
    if (!setting.file && module != facts.driver->module_parameters.end() &&
        !std::binary_search(module->second.names.begin(), module->second.names.end(),
                            setting.name)) {
      add_unknown(found, {setting.module, setting.name});
    }
  }
  return found;
}

/// Y/N of a bool parameter and 1/0 as set are the same value.
std::string normalized(std::string_view value) {
  const std::string lower = util::to_lower(util::trim(value));
  return lower == "y" || lower == "true" ? "1" : lower == "n" || lower == "false" ? "0" : lower;
}

}  // namespace

Fix kernel_argument_fix(const Facts& facts, const std::string& argument) {
  if (os_id(facts) == "nixos") {
    return {fmt::format("add \"{}\" to boot.kernelParams in /etc/nixos/configuration.nix, "
                        "rebuild, then reboot",
                        argument),
            "sudo nixos-rebuild boot", true, FixKind::kernel_argument, true};
  }
  return {fmt::format("add {} to the kernel command line, then reboot", argument),
          add_kernel_argument_command(facts, argument), true, FixKind::kernel_argument, true};
}

Fix remove_kernel_argument_fix(const Facts& facts, const std::string& name,
                               const std::string& value) {
  const std::string argument = value.empty() ? name : name + "=" + value;
  if (os_id(facts) == "nixos") {
    return {fmt::format("Take \"{}\" out of boot.kernelParams in /etc/nixos/configuration.nix, "
                        "rebuild, then reboot",
                        argument),
            "sudo nixos-rebuild boot", true, FixKind::kernel_argument, true};
  }
  std::string command;
  // The name's dots are literal; the value is whatever follows up to a quote or a space.
  std::string pattern;
  for (const char c : name) {
    pattern += c == '.' ? std::string("\\.") : std::string(1, c);
  }
  if (os_id(facts) == "pop") {
    command = fmt::format("sudo kernelstub -d \"{}\"", argument);
  } else if (uses_kernel_install(facts)) {
    command = fmt::format("sudo sed -i -E 's/ ?{}(=[^ ]*)?//' /etc/kernel/cmdline && {}", pattern,
                          kernel_install_command());
  } else if (const std::string update = grub_update_command(facts); !update.empty()) {
    command = fmt::format("sudo sed -i -E 's/ ?{}(=[^\" ]*)?//' /etc/default/grub && {}", pattern,
                          update);
  } else {
    command = fmt::format("sudo grubby --update-kernel=ALL --remove-args=\"{}\"", name);
  }
  return {fmt::format("Take {} off the kernel command line, then reboot", argument), command, true,
          FixKind::kernel_argument, true};
}

CheckResult apu_memory(const CheckContext& context) {
  std::vector<std::string> checked;
  for (const auto& gpu : context.amd_gpus) {
    if (!gpu.integrated() || gpu.pci == nullptr) {
      continue;
    }
    if (auto result = apu_finding(context, gpu)) {
      return std::move(*result);
    }
    checked.push_back(describe(gpu));
  }
  if (checked.empty()) {
    return skip("no AMD APU");
  }
  return pass("the GPU gets the memory the machine gives it: " + util::join(checked, "; "));
}

CheckResult kernel_param_ignored(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const DriverFacts& driver = *context.facts.driver;
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  for (const auto& unknown : unknown_parameters(context.facts)) {
    problems.push_back(fmt::format("{}.{} is not a parameter of {}: the kernel ignored it",
                                   unknown.module, unknown.name, unknown.module));
    fix.push_back({fmt::format("Take {}.{} out and use {}", unknown.module, unknown.name,
                               right_parameter(unknown)),
                   "", true, FixKind::manual, true});
  }
  const bool gttsize_deprecated =
      context.facts.system &&
      util::version_numbers(context.facts.system->uname.release).value_or(std::vector<int>{}) >=
          std::vector<int>{6, 15};
  for (const auto& setting : driver.memory_module_settings) {
    if (setting.module == "amdgpu" && setting.name == "gttsize" &&
        (gttsize_deprecated || driver.dkms_version)) {
      problems.push_back(fmt::format(
          "amdgpu.gttsize={} ({}) is deprecated: the GPU's system memory is the TTM limit's "
          "(amdgpu warns \"Configuring gttsize via module parameter is deprecated\")",
          setting.value,
          setting.file ? fmt::format("{}:{}", setting.file->file, setting.file->line)
                       : "kernel command line"));
      const bool limit_set =
          std::any_of(driver.memory_module_settings.begin(), driver.memory_module_settings.end(),
                      [](const ModuleParameterSetting& s) { return s.name == "pages_limit"; });
      const auto mib = util::parse_number<std::uint64_t>(setting.value);
      if (!limit_set && mib && *mib > 0) {
        fix.push_back(kernel_argument_fix(
            context.facts, pages_limit_arguments(driver, std::max<std::uint64_t>(*mib >> 10, 1))));
        fix.back().description = "Use the TTM limit instead of gttsize: " + fix.back().description;
      }
      if (setting.file) {
        fix.push_back({fmt::format("Take gttsize out of {} (line {})", setting.file->file,
                                   setting.file->line),
                       fmt::format("sudo sed -i -E '{}s/ ?gttsize=[^ ]*//' {}", setting.file->line,
                                   util::shell_word(setting.file->file)),
                       true, FixKind::file_edit});
        fix.push_back({"Rebuild the initramfs so the module gets the change at boot, then reboot",
                       debian_like(context.facts) ? "sudo update-initramfs -u" : "sudo dracut -f",
                       true, FixKind::shell, true});
      } else {
        fix.push_back(remove_kernel_argument_fix(context.facts, "amdgpu.gttsize", setting.value));
      }
    }
    if (!setting.file) {
      continue;
    }
    const std::string* running = driver.parameter(setting.module, setting.name);
    if (running != nullptr && normalized(*running) != normalized(setting.value)) {
      problems.push_back(
          fmt::format("{} sets {}.{}={}, but the running module has {}: the "
                      "initramfs was not rebuilt, or there was no reboot since",
                      fmt::format("{}:{}", setting.file->file, setting.file->line), setting.module,
                      setting.name, setting.value, *running));
      fix.push_back({"Rebuild the initramfs so the module gets the setting at boot, then reboot",
                     debian_like(context.facts) ? "sudo update-initramfs -u" : "sudo dracut -f",
                     true, FixKind::shell, true});
    }
  }
  if (problems.empty()) {
    return pass("no amdgpu, ttm or amdttm setting is ignored");
  }
  // One rebuild of the initramfs is enough for every stale file.
  std::vector<Fix> unique;
  for (auto& f : fix) {
    if (std::none_of(unique.begin(), unique.end(), [&](const Fix& u) {
          return u.command == f.command && u.description == f.description;
        })) {
      unique.push_back(std::move(f));
    }
  }
  if (problems.size() == 1) {
    return finding(Severity::warning, problems.front(), {}, std::move(unique));
  }
  return finding(Severity::warning,
                 fmt::format("{} amdgpu and TTM settings do not take effect", problems.size()),
                 problems, std::move(unique));
}

}  // namespace rocdoc::checks
