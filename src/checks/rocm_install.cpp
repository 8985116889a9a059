// ROCm installation checks.
#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "src/checks/checks.h"
#include "src/checks/installer.h"
#include "src/checks/rocm_packages.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// ROCm releases installed as pip packages (TheRock), one line each: torch in that environment
/// loads them, not /opt/rocm.
std::vector<std::string> pip_rocm_lines(const CheckContext& context) {
  std::vector<std::string> lines;
  if (!context.facts.python) {
    return lines;
  }
  for (const auto& environment : context.facts.python->environments) {
    if (environment.rocm_sdk) {
      lines.push_back(
          fmt::format("ROCm {} as pip packages in {} (what Python there loads, not "
                      "/opt/rocm)",
                      environment.rocm_sdk->version, environment.site_dir));
    }
  }
  return lines;
}

std::string os_name(const SystemFacts& system) {
  const auto& os = system.os_release;
  const auto pretty = os.find("PRETTY_NAME");
  return pretty != os.end() ? pretty->second : "this distribution";
}

/// The release lists this OS version; `installed` ("6.4.1-83") decides entries that start at a
/// point release (SLES 15 SP7 from 6.4.2). An unknown point release counts as listed.
bool os_matches(const RocmRelease& release, const std::string& id, const std::string& version,
                const std::optional<std::string>& installed = std::nullopt) {
  return std::any_of(release.os.begin(), release.os.end(), [&](const OsSupport& os) {
    const bool listed =
        os.id == id &&
        std::any_of(os.versions.begin(), os.versions.end(), [&](const std::string& v) {
          return version == v || version.rfind(v + ".", 0) == 0;
        });
    if (!listed || os.since.empty() || !installed) {
      return listed;
    }
    return !(util::version_numbers(installed->substr(0, installed->find('-'))) <
             util::version_numbers(os.since));
  });
}

/// How to install ROCm here: AMD's installer (got first where it is missing), or the
/// distribution's own packages where the rules name them as the path.
std::vector<Fix> install_rocm_fixes(const CheckContext& context) {
  const RocmInstaller* installer = installer_for(context);
  if (!context.facts.rocm->amdgpu_install && installer != nullptr &&
      installer->method == InstallMethod::distribution) {
    std::vector<Fix> fix;
    for (const auto& step : installer->steps) {
      fix.push_back({fmt::format("When you need it, install {}'s own ROCm packages{}",
                                 context.facts.system ? os_name(*context.facts.system)
                                                      : std::string("the distribution"),
                                 installer->rocm.empty() ? "" : " (ROCm " + installer->rocm + ")"),
                     step, step.rfind("sudo ", 0) == 0});
    }
    return fix;
  }
  if (driver_fix_gets_installer(context)) {
    return {
        {"When you need it, install ROCm with AMD's installer (the kernel driver's fix above "
         "gets it)",
         "sudo amdgpu-install --usecase=rocm", true}};
  }
  return amdgpu_install_fixes(context, "When you need it, install ROCm with AMD's installer",
                              "--usecase=rocm");
}

}  // namespace

CheckResult rocm_not_installed(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const RocmFacts& rocm = *context.facts.rocm;
  if (!rocm.installs.empty() || rocm.opt_rocm_version || rocm.rocm_path_version) {
    std::vector<std::string> evidence;
    for (const auto& install : rocm.installs) {
      evidence.push_back(install.path + ": " + install.version.value_or("no .info/version"));
    }
    return pass("ROCm is installed", evidence);
  }
  const bool wheel = first_rocm_torch(context.facts) != nullptr;
  return finding(
      Severity::info,
      wheel ? "No ROCm under /opt/rocm*: fine for the ROCm torch wheel, which brings its own "
              "ROCm libraries; building extensions (PYTORCH_ROCM_ARCH) needs an installed ROCm"
            : "No ROCm under /opt/rocm*: a pip torch wheel brings its own ROCm libraries; "
              "building extensions or running rocminfo needs an installed ROCm",
      {rocm.rocm_path
           ? "no /opt/rocm-* directory; ROCM_PATH=" + *rocm.rocm_path + " has no .info/version"
           : std::string("no /opt/rocm-* directory, no /opt/rocm/.info/version, ROCM_PATH unset")},
      install_rocm_fixes(context));
}

/// AMD's ROCm packages of several releases under their plain names: an upgrade that stopped
/// half-way (a held package, a repository changed for some packages only).
CheckResult partial_upgrade(const std::vector<ReleaseGroup>& groups) {
  std::vector<std::string> evidence;
  std::vector<std::string> older;
  for (const auto& group : groups) {
    std::vector<std::string> names;
    for (const auto& found : group.packages) {
      if (names.size() < 6) {
        names.push_back(package_text(found));
      }
      if (&group != &groups.back()) {
        older.push_back(found.package->name);
      }
    }
    evidence.push_back(
        fmt::format("ROCm {}: {}{}", group.release, util::join(names, ", "),
                    group.packages.size() > names.size()
                        ? fmt::format(" and {} more", group.packages.size() - names.size())
                        : std::string()));
  }
  std::vector<std::string> quoted;
  for (const auto& name : older) {
    quoted.push_back(util::shell_word(name));
  }
  const ReleaseGroup& newest = groups.back();
  const PackageManager manager = newest.packages.front().database->manager;
  const std::string command = manager == PackageManager::dpkg
                                  ? "sudo apt-get install --only-upgrade " + util::join(quoted, " ")
                              : manager == PackageManager::rpm
                                  ? "sudo dnf upgrade " + util::join(quoted, " ")
                                  : std::string("sudo pacman -Syu");
  return finding(
      Severity::warning,
      fmt::format("ROCm packages of {} releases are installed side by side under the same names "
                  "(newest {}): an upgrade stopped half-way, and programs mix libraries of "
                  "different releases",
                  groups.size(), newest.release),
      evidence,
      {{fmt::format("Bring the older packages to ROCm {} (from the same repository as the rest)",
                    newest.release),
        command, true}});
}

CheckResult rocm_multiple(const CheckContext& context) {
  const RocmFacts& rocm = *context.facts.rocm;
  if (const auto groups = plain_rocm_package_releases(context.facts); groups.size() > 1) {
    return partial_upgrade(groups);
  }
  const std::vector<std::string> pip = pip_rocm_lines(context);
  if (rocm.installs.empty()) {
    if (!pip.empty()) {
      return pass("no ROCm under /opt; " + util::join(pip, "; "), pip);
    }
    return skip("no ROCm install (see rocm.not-installed)");  // not a pass right under it (N23)
  }
  const auto packaged = packaged_rocm_release(context.facts);
  if (rocm.installs.size() < 2) {
    // One directory: its .info/version against the release the package database names.
    const auto& install = rocm.installs.front();
    const auto info = install.version ? rocm_release_of(*install.version) : std::nullopt;
    if (packaged && info && *info != packaged->release) {
      return finding(
          Severity::warning,
          fmt::format("{} says ROCm {} (.info/version) but the package database has ROCm {}: "
                      "the directory is not what the packages installed (left from another "
                      "release, or copied in), and programs that use it mix releases",
                      install.path, *info, packaged->release),
          {install.path + ": " + *install.version, "package " + packaged->evidence},
          {{fmt::format("Reinstall ROCm {} from the packages, so that their files replace the "
                        "directory's",
                        packaged->release),
            "", true, FixKind::manual}});
    }
    std::vector<std::string> evidence = pip;
    if (packaged) {
      evidence.push_back("package " + packaged->evidence);
    }
    return pass(pip.empty() ? std::string("one ROCm install")
                            : "one ROCm install under /opt; " + util::join(pip, "; "),
                evidence);
  }
  struct Pointer {
    std::string what;
    std::string version;
  };
  std::vector<Pointer> pointers;
  if (rocm.opt_rocm_version) {
    pointers.push_back(
        {"/opt/rocm -> " + rocm.opt_rocm_target.value_or("?"), *rocm.opt_rocm_version});
  }
  if (rocm.rocm_path && rocm.rocm_path_version) {
    pointers.push_back({"ROCM_PATH=" + *rocm.rocm_path, *rocm.rocm_path_version});
  }
  for (const auto& dir : rocm.ld_library_hip) {
    if (dir.version) {
      pointers.push_back({"LD_LIBRARY_PATH " + dir.dir, *dir.version});
    }
  }
  if (packaged) {
    pointers.push_back({"package " + packaged->evidence, packaged->release});
  }
  std::vector<std::string> evidence;
  std::set<std::string> versions;
  for (const auto& install : rocm.installs) {
    evidence.push_back(install.path + ": " + install.version.value_or("no .info/version"));
  }
  evidence.insert(evidence.end(), pip.begin(), pip.end());
  for (const auto& pointer : pointers) {
    evidence.push_back(pointer.what + ": ROCm " + pointer.version);
    versions.insert(major_minor(pointer.version).value_or(pointer.version));
  }
  if (versions.size() < 2) {
    return pass(fmt::format("{} ROCm installs; /opt/rocm, ROCM_PATH and LD_LIBRARY_PATH agree",
                            rocm.installs.size()),
                evidence);
  }
  std::vector<Fix> fix;
  if (const std::string* ld = context.facts.env->find("LD_LIBRARY_PATH")) {
    std::vector<std::string> kept;
    for (const auto part : util::split(*ld, ':')) {
      const bool other = std::any_of(rocm.ld_library_hip.begin(), rocm.ld_library_hip.end(),
                                     [&](const HipLibraryDir& d) { return d.dir == part; });
      if (!other && !part.empty()) {
        kept.emplace_back(part);
      }
    }
    if (rocm.opt_rocm_version) {
      kept.insert(kept.begin(), "/opt/rocm/lib");
    }
    fix.push_back({"Use the release /opt/rocm points at in LD_LIBRARY_PATH",
                   kept.empty()
                       ? std::string("unset LD_LIBRARY_PATH")
                       : "export LD_LIBRARY_PATH=" + util::shell_quote(util::join(kept, ":")),
                   false});
  }
  if (rocm.rocm_path && rocm.opt_rocm_version && rocm.rocm_path_version != rocm.opt_rocm_version) {
    fix.push_back({"Point ROCM_PATH at the same release", "export ROCM_PATH=/opt/rocm", false});
  }
  return finding(
      Severity::warning,
      fmt::format("{} ROCm releases are installed and /opt/rocm, ROCM_PATH and LD_LIBRARY_PATH "
                  "point at different ones: programs mix libraries of different releases",
                  rocm.installs.size()),
      evidence, fix);
}

CheckResult rocm_os_unsupported(const CheckContext& context) {
  const auto active = context.facts.rocm->active_major_minor();
  if (!active) {
    return skip("no ROCm install with a version");
  }
  const RocmRelease* release = context.knowledge.rocm_release(*active);
  if (release == nullptr) {
    return skip("ROCm " + *active + " is not in the knowledge base");
  }
  const SystemFacts& system = *context.facts.system;
  const auto id = system.os_release.find("ID");
  const auto version = system.os_release.find("VERSION_ID");
  if (id == system.os_release.end() || version == system.os_release.end()) {
    return skip("/etc/os-release has no ID or VERSION_ID");
  }
  const std::string evidence_line =
      fmt::format("{} (ID={}, VERSION_ID={}), kernel {}; ROCm {}", os_name(system), id->second,
                  version->second, system.uname.release, *active);
  const RocmFacts& rocm = *context.facts.rocm;
  const std::optional<std::string> installed = rocm.opt_rocm_version ? rocm.opt_rocm_version
                                               : rocm.installs.size() == 1
                                                   ? rocm.installs.front().version
                                                   : std::nullopt;
  if (os_matches(*release, id->second, version->second, installed)) {
    return pass(fmt::format("ROCm {} supports {}", *active, os_name(system)), {evidence_line});
  }
  std::vector<std::string> supported;
  for (const auto& os : release->os) {
    supported.push_back(os.id + " " + util::join(os.versions, "/"));
  }
  std::string newest;
  for (const auto& other : context.knowledge.rocm_releases) {
    if (os_matches(other, id->second, version->second)) {
      newest = other.rocm;
    }
  }
  std::vector<Fix> fix;
  fix.push_back(
      {fmt::format(
           "Move to a distribution ROCm {} supports ({}){}", *active, util::join(supported, ", "),
           newest.empty() ? std::string()
                          : fmt::format(", or use ROCm {}, the newest release that supports {}",
                                        newest, os_name(system))),
       "", false});
  return finding(
      Severity::warning,
      fmt::format(
          "ROCm {} does not support {}: packages and the DKMS driver may not install or work",
          *active, os_name(system)),
      {evidence_line, "supported: " + util::join(supported, ", ")}, fix);
}

}  // namespace rocdoc::checks
