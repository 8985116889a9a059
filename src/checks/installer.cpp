#include "src/checks/installer.h"

#include <fmt/format.h>

namespace rocdoc::checks {

namespace {

std::string os_field(const CheckContext& context, const char* key) {
  if (!context.facts.system) {
    return {};
  }
  const auto& os = context.facts.system->os_release;
  const auto it = os.find(key);
  return it == os.end() ? std::string() : it->second;
}

std::string distribution_name(const CheckContext& context) {
  const std::string pretty = os_field(context, "PRETTY_NAME");
  return pretty.empty() ? "this distribution" : pretty;
}

}  // namespace

const RocmInstaller* installer_for(const CheckContext& context) {
  return context.knowledge.installer_for(os_field(context, "ID"), os_field(context, "ID_LIKE"),
                                         os_field(context, "VERSION_ID"));
}

bool driver_fix_gets_installer(const CheckContext& context) {
  const Facts& facts = context.facts;
  if (context.amd_gpus.empty() || (facts.rocm && facts.rocm->amdgpu_install) ||
      (facts.system && facts.system->container) || !facts.driver || !facts.access) {
    return false;
  }
  const RocmInstaller* installer = installer_for(context);
  return installer != nullptr && installer->method == InstallMethod::amdgpu_install &&
         (!facts.driver->amdgpu_loaded || !facts.access->kfd);
}

std::vector<Fix> amdgpu_install_fixes(const CheckContext& context, const std::string& description,
                                      const std::string& arguments, bool needs_reboot) {
  const std::string command = "sudo amdgpu-install " + arguments;
  const Fix run{description, command, true, FixKind::shell, needs_reboot};
  if (context.facts.rocm && context.facts.rocm->amdgpu_install) {
    return {run};
  }
  const RocmInstaller* installer = installer_for(context);
  if (installer == nullptr) {
    return {{fmt::format("AMD's installer (amdgpu-install) is not installed, and these rules know "
                         "no way to get it for {}: follow AMD's install guide for it ({}), then "
                         "run: {}",
                         distribution_name(context), k_install_guide, command),
             "", false, FixKind::manual, needs_reboot}};
  }
  if (installer->method == InstallMethod::distribution) {
    return {};
  }
  std::vector<Fix> fix;
  for (std::size_t i = 0; i < installer->steps.size(); ++i) {
    fix.push_back(
        {i == 0 ? fmt::format("Get AMD's installer (amdgpu-install of ROCm {}) for {}: it is not "
                              "installed",
                              installer->rocm, distribution_name(context))
                : fmt::format("Get AMD's installer, step {} of {}", i + 1, installer->steps.size()),
         installer->steps[i], installer->steps[i].rfind("sudo ", 0) == 0});
  }
  fix.push_back(run);
  return fix;
}

}  // namespace rocdoc::checks
