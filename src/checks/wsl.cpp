// WSL checks: on WSL the GPU is reached through /dev/dxg and ROCm's WSL runtime.
#include <fmt/format.h>
#include <algorithm>

#include "src/checks/checks.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// `amdgpu-install --usecase=wsl,rocm` where AMD's installer is installed; else where to get
/// it: the installer must be of a release with a WSL build (rules/wsl.yaml), which the Linux
/// installer table does not say.
Fix wsl_install_fix(const CheckContext& context, const std::string& description) {
  const std::string command = "sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms";
  if (context.facts.rocm && context.facts.rocm->amdgpu_install) {
    return {description, command, true};
  }
  return {description +
              ": AMD's installer is not installed; get the amdgpu-install package of that "
              "release for this Ubuntu from AMD's \"Install ROCm on WSL\" guide, then run: " +
              command,
          "", true, FixKind::manual};
}

/// A name wsl.exe gives a distribution: letters, digits, '.', '_' and '-' (wsl --import refuses
/// others). Such a name means the same in PowerShell and in a POSIX shell, quoted or not.
bool is_distro_name(std::string_view name) {
  return !name.empty() && name.front() != '-' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace

CheckResult wsl_version1(const CheckContext& context) {
  if (context.facts.system->wsl != WslKind::wsl1) {
    return skip("not WSL 1");
  }
  const std::string* distro = context.facts.env->find("WSL_DISTRO_NAME");
  std::string message = "WSL 1 has no GPU access at all: convert the distribution to WSL 2";
  Fix convert{"In a Windows terminal (PowerShell), convert this distribution",
              "wsl --set-version " +
                  (distro != nullptr ? util::shell_quote(*distro) : std::string("Ubuntu")) + " 2",
              false};
  if (distro != nullptr && !is_distro_name(*distro)) {
    message += fmt::format(
        " (WSL_DISTRO_NAME, \"{}\", is not a distribution name; `wsl -l -v` "
        "lists the real ones)",
        util::excerpt(*distro));
    convert = {
        "In a Windows terminal (PowerShell), list the distributions (wsl -l -v) and "
        "convert this one with wsl --set-version NAME 2",
        "", false};
  }
  return finding(Severity::error, message, {"kernel " + context.facts.system->uname.release},
                 {convert});
}

CheckResult wsl_dxg_missing(const CheckContext& context) {
  const SystemFacts& system = *context.facts.system;
  if (system.wsl != WslKind::wsl2) {
    return skip("not WSL 2");
  }
  if (system.dxg_present) {
    return pass("/dev/dxg is present");
  }
  std::vector<Fix> fix;
  if (system.container) {
    fix.push_back({"In a container, pass the WSL GPU device and libraries (add to docker run)",
                   "--device=/dev/dxg -v /usr/lib/wsl:/usr/lib/wsl", false,
                   FixKind::container_flag});
  }
  fix.push_back({"In a Windows terminal, update WSL; then install the current AMD Adrenalin driver",
                 "wsl --update", false});
  return finding(Severity::error,
                 "WSL 2 without /dev/dxg: the Windows GPU is not exposed to this distribution",
                 {"kernel " + system.uname.release, "no /dev/dxg"}, fix);
}

CheckResult wsl_runtime_missing(const CheckContext& context) {
  const SystemFacts& system = *context.facts.system;
  if (system.wsl != WslKind::wsl2) {
    return skip("not WSL 2");
  }
  if (!system.dxg_present) {
    return skip("no /dev/dxg (see wsl.dxg-missing)");
  }
  const RocmFacts& rocm = *context.facts.rocm;
  std::vector<std::string> missing;
  std::vector<Fix> fix;
  if (!rocm.wsl_dxcore) {
    missing.push_back("/usr/lib/wsl/lib/libdxcore.so");
    fix.push_back({"libdxcore.so comes with WSL itself: update WSL in a Windows terminal",
                   "wsl --update", false});
  }
  const std::optional<std::string> version =
      rocm.opt_rocm_version ? rocm.opt_rocm_version : rocm.rocm_path_version;
  if (!version) {
    missing.push_back("a ROCm install (/opt/rocm)");
    fix.push_back(wsl_install_fix(context,
                                  "Install ROCm for WSL (no kernel driver: Windows "
                                  "provides it)"));
  } else if (const WslRelease* release =
                 context.knowledge.wsl_release(version->substr(0, version->find('-')))) {
    if (!release->supported) {
      missing.push_back(
          fmt::format("a ROCm release with WSL support (ROCm {} has none)", release->rocm));
      fix.push_back(wsl_install_fix(context,
                                    "Install a ROCm release that supports WSL (ROCm 6.1.3 and "
                                    "later, except those without a WSL build)"));
    } else if (release->uses_rocdxg() && !rocm.rocdxg) {
      missing.push_back(
          fmt::format("librocdxg.so (ROCm {} reaches the GPU through it)", release->rocm));
      fix.push_back(
          {"Install librocdxg from its release package (it is not part of amdgpu-install), "
           "then refresh the linker cache",
           "sudo ldconfig", true});
    }
  }
  if (missing.empty()) {
    return pass("the WSL runtime pieces are present");
  }
  return finding(
      Severity::error,
      "WSL 2 is missing the user-space pieces that reach the GPU: " + util::join(missing, ", "),
      missing, fix);
}

CheckResult wsl_dxg_detection(const CheckContext& context) {
  if (context.facts.system->wsl != WslKind::wsl2) {
    return skip("not WSL 2");
  }
  const RocmFacts& rocm = *context.facts.rocm;
  const std::optional<std::string> version =
      rocm.opt_rocm_version ? rocm.opt_rocm_version : rocm.rocm_path_version;
  if (!version) {
    return skip("no ROCm install whose WSL runtime could be judged (see wsl.runtime-missing)");
  }
  const std::string release_version = version->substr(0, version->find('-'));
  const WslRelease* release = context.knowledge.wsl_release(release_version);
  if (release == nullptr || !release->supported) {
    return skip("the knowledge base has no WSL runtime for ROCm " + release_version);
  }
  std::vector<std::string> problems;
  std::vector<std::string> evidence = {
      fmt::format("ROCm {} reaches the GPU under WSL through {}", release_version,
                  release->runtime_library.empty() ? "its WSL runtime" : release->runtime_library)};
  std::vector<Fix> fix;
  for (const auto& requirement : release->requires_env) {
    const auto equals = requirement.find('=');
    const std::string name = requirement.substr(0, equals);
    const std::string wanted = requirement.substr(equals + 1);
    const std::string* value = context.facts.env->find(name);
    evidence.push_back(value != nullptr ? fmt::format("{}=\"{}\"", name, *value)
                                        : name + " is not set");
    if (value != nullptr && *value == wanted) {
      continue;
    }
    problems.push_back(fmt::format(
        "ROCm {} under WSL finds the GPU only with {}={}{}", release_version, name, wanted,
        value == nullptr ? ", which is not set" : fmt::format(" (it is \"{}\")", *value)));
    if (!util::is_shell_name(name) || !util::is_shell_safe(wanted)) {
      continue;  // a --rules directory's requirement that no command can carry as written
    }
    fix.push_back({"Set it for this shell", fmt::format("export {}={}", name, wanted), false});
    fix.push_back({"Keep it for new shells",
                   fmt::format("echo 'export {}={}' >> ~/.bashrc", name, wanted), false,
                   FixKind::file_edit});
  }
  if (problems.empty()) {
    return pass("the runtime's detection variables are set", evidence);
  }
  evidence.push_back("source: " + release->source);
  return finding(Severity::error,
                 util::join(problems, "; ") + ": no GPU is visible (hipErrorNoDevice)", evidence,
                 fix);
}

CheckResult wsl_torch_bundled_runtime(const CheckContext& context) {
  if (context.facts.system->wsl != WslKind::wsl2) {
    return skip("not WSL 2");
  }
  std::vector<std::string> files;
  std::vector<std::string> quoted;
  std::vector<std::string> replaced;
  // AMD's WSL guide replaces the wheel's copy with ROCm's WSL runtime: same size as that file.
  const auto is_wsl_runtime = [&](const LibraryFile& file) {
    return file.size && *file.size > 0 &&
           std::any_of(context.facts.rocm->hsa_runtime.begin(),
                       context.facts.rocm->hsa_runtime.end(),
                       [&](const LibraryFile& rocm) { return rocm.size == file.size; });
  };
  for (const auto& environment : context.facts.python->environments) {
    if (environment.torch && environment.torch->build == TorchBuild::rocm) {
      for (const auto& file : environment.torch->bundled_hsa_runtime) {
        if (is_wsl_runtime(file)) {
          replaced.push_back(file.path +
                             " (the same size as ROCm's WSL runtime: already replaced)");
          continue;
        }
        files.push_back(file.path);
        quoted.push_back(util::shell_quote(file.path));
      }
    }
  }
  if (files.empty()) {
    return pass(replaced.empty() ? "no ROCm torch bundles its own libhsa-runtime64"
                                 : "the wheel's libhsa-runtime64 is ROCm's WSL runtime",
                replaced);
  }
  return finding(Severity::error,
                 "A ROCm torch wheel carries its own libhsa-runtime64.so, which only knows "
                 "/dev/kfd: under WSL "
                 "it finds no device (hipErrorNoDevice)",
                 files,
                 {{"Remove the wheel's copy so ROCm's WSL runtime is used",
                   "rm " + util::join(quoted, " "), false}});
}

}  // namespace rocdoc::checks
