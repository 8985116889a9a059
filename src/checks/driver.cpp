// Kernel driver checks.
// Whole on purpose: one area of the check table (kernel driver).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "src/checks/access_math.h"
#include "src/checks/checks.h"
#include "src/checks/installer.h"
#include "src/checks/rocm_packages.h"
#include "src/checks/software.h"
#include "src/util/shell.h"
#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// "it" for one GPU, "them" for several: the pronoun after a list of GPUs.
std::string_view them(const std::vector<std::string>& gpus) {
  return gpus.size() == 1 ? "it" : "them";
}

/// os-release ID or ID_LIKE names one of `ids`.
bool os_matches(const Facts& facts, const std::vector<std::string>& ids) {
  if (!facts.system) {
    return false;
  }
  const auto& os = facts.system->os_release;
  std::vector<std::string> names;
  for (const char* key : {"ID", "ID_LIKE"}) {
    if (const auto it = os.find(key); it != os.end()) {
      for (const auto word : util::split_whitespace(it->second)) {
        names.emplace_back(word);
      }
    }
  }
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
    return std::find(names.begin(), names.end(), id) != names.end();
  });
}

bool in_container(const CheckContext& context) {
  return context.facts.system && context.facts.system->container.has_value();
}

/// AMD's DKMS driver through its installer; where the distribution's own packages are the
/// path (no amdgpu-dkms for it), the kernel's own amdgpu is the driver.
std::vector<Fix> driver_install_fixes(const CheckContext& context, const std::string& description) {
  std::vector<Fix> fix = amdgpu_install_fixes(context, description, "--usecase=dkms", true);
  if (fix.empty()) {
    fix.push_back(
        {"AMD's DKMS driver is not packaged for this distribution: its kernel's own "
         "amdgpu is the driver. Install the distribution's current kernel and "
         "firmware (linux-firmware), then reboot",
         "", true, FixKind::manual, true});
  }
  return fix;
}

std::vector<Fix> kfd_missing_fixes(const CheckContext& context) {
  std::vector<Fix> fix{
      {"Look for KFD's reasons in the kernel log", "sudo dmesg | grep -iE 'kfd|amdgpu'", true}};
  for (auto& step : driver_install_fixes(
           context,
           "Use a kernel with CONFIG_HSA_AMD=y (every Ubuntu/RHEL kernel has it), or "
           "install AMD's amdgpu-dkms driver and reboot")) {
    fix.push_back(std::move(step));
  }
  return fix;
}

std::vector<std::string> bound_gpus(const CheckContext& context) {
  std::vector<std::string> names;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci != nullptr && gpu.pci->driver == "amdgpu") {
      names.push_back(describe(gpu));
    }
  }
  return names;
}

std::string explain_kfd_errno(const std::string& error) {
  if (error == "ENOMEM") {
    return "KFD has no usable GPU: the chip is not supported by KFD, or KFD skipped it because "
           "PCIe atomics are missing";
  }
  if (error == "EINVAL") {
    return "the GPU is wedged (for example after VM passthrough) or the driver and the ROCm "
           "user space do not match";
  }
  if (error == "EPERM") {
    return "the container's device cgroup does not allow /dev/kfd";
  }
  if (error == "EFAULT") {
    return "KFD could not map its trap handler into this process (\"Failure to set tba address\" "
           "in "
           "the kernel log): on APUs of older kernels that happens when /dev is mounted noexec";
  }
  if (error == "ENOENT" || error == "ENXIO" || error == "ENODEV") {
    return "the device node exists but no driver answers behind it";
  }
  return "the open failed for a reason other than file permissions";
}

/// KFD maps its trap handler with PROT_EXEC on APUs of older kernels (kfd_process.c
/// kfd_process_init_cwsr_apu); a noexec /dev makes kfd_open fail with EFAULT.
CheckResult noexec_finding(const CheckContext& context, const DeviceNode& kfd, const Mount& mount) {
  std::vector<std::string> evidence = {
      fmt::format("{} is mounted with {} ({} {})", mount.point, util::join(mount.options, ","),
                  mount.device, mount.type),
      fmt::format("open(/dev/kfd, O_RDWR): {}", kfd.open.access == OpenAccess::read_write
                                                    ? std::string("succeeded")
                                                    : "failed with " + kfd.open.error)};
  const auto kernel = kernel_evidence(context, {KernelEventKind::trap_handler_refused});
  evidence.insert(evidence.end(), kernel.begin(), kernel.end());
  std::vector<Fix> fix = {{"Allow executable mappings on /dev now",
                           "sudo mount -o remount,exec " + util::shell_quote(mount.point), true}};
  for (const auto& line : context.facts.system->fstab_dev) {
    evidence.push_back(fmt::format("/etc/fstab:{}: {}", line.line, line.text));
    if (line.text.find("noexec") != std::string::npos) {
      fix.push_back(
          {fmt::format("Keep it after a reboot: drop noexec from /etc/fstab line {}", line.line),
           fmt::format("sudo sed -i '{}s/,noexec//; {}s/noexec,//' /etc/fstab", line.line,
                       line.line),
           true, FixKind::file_edit});
    }
  }
  if (fix.size() == 1) {
    fix.push_back(
        {"Keep it after a reboot: find what mounts /dev noexec (a hardening profile, an "
         "fstab entry or a systemd mount unit) and remove the option there",
         "grep -rn noexec /etc/fstab /etc/systemd/system/*.mount", false});
  }
  return finding(Severity::error,
                 fmt::format("{} is mounted noexec: KFD cannot map its trap handler for the "
                             "integrated GPU, so opening /dev/kfd fails (\"Failure to set tba "
                             "address\" in the kernel log)",
                             mount.point),
                 evidence, fix);
}

}  // namespace

std::vector<std::string> kernel_evidence(const CheckContext& context,
                                         std::initializer_list<KernelEventKind> kinds) {
  std::vector<std::string> lines;
  if (!context.facts.kernel_log) {
    return lines;
  }
  for (const auto& event : context.facts.kernel_log->events) {
    if (std::find(kinds.begin(), kinds.end(), event.kind) != kinds.end()) {
      lines.push_back("kernel log: " + event.line);
    }
  }
  return lines;
}

CheckResult driver_amdgpu_missing(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const DriverFacts& driver = *context.facts.driver;
  if (driver.amdgpu_loaded && (!driver.initstate || *driver.initstate == "live")) {
    return pass(
        driver.initstate ? "amdgpu is loaded (initstate live)" : "amdgpu is built into the kernel",
        driver.dkms_version
            ? std::vector<std::string>{"DKMS driver version " + *driver.dkms_version}
            : std::vector<std::string>{"in-kernel amdgpu (no /sys/module/amdgpu/version)"});
  }
  std::vector<std::string> evidence;
  evidence.push_back(driver.amdgpu_loaded ? "/sys/module/amdgpu/initstate is " + *driver.initstate
                                          : "/sys/module/amdgpu does not exist");
  for (const auto& line : driver.blacklist) {
    evidence.push_back(fmt::format("{}:{}: {}", line.file, line.line, line.text));
  }
  if (driver.cmdline_nomodeset) {
    evidence.push_back("kernel command line has nomodeset");
  }
  if (driver.cmdline_blacklists_amdgpu) {
    evidence.push_back("kernel command line has modprobe.blacklist=amdgpu");
  }
  std::vector<Fix> fix;
  if (in_container(context)) {
    fix.push_back({"Inside a container the module belongs to the host: load it there",
                   "sudo modprobe amdgpu", true});
    return finding(Severity::error, "The amdgpu kernel module is not loaded on the host", evidence,
                   fix);
  }
  for (auto& step : driver_load_fixes(context.facts)) {
    fix.push_back(std::move(step));
  }
  for (auto& step : driver_install_fixes(
           context, "If modprobe fails, install the driver with AMD's installer, then reboot")) {
    fix.push_back(std::move(step));
  }
  const auto kernel =
      kernel_evidence(context, {KernelEventKind::module_refused, KernelEventKind::firmware_failed});
  evidence.insert(evidence.end(), kernel.begin(), kernel.end());
  const bool refused = !kernel_evidence(context, {KernelEventKind::module_refused}).empty();
  if (driver.secure_boot == true || refused) {
    if (driver.secure_boot == true) {
      evidence.push_back("Secure Boot is enabled");
    }
    fix.push_back(
        {"Secure Boot is on: an unsigned amdgpu-dkms module is refused. Enroll the "
         "DKMS signing key (then reboot and confirm in the MOK manager)",
         "sudo mokutil --import /var/lib/dkms/mok.pub", true, FixKind::shell, true});
  }
  return finding(Severity::error, "The amdgpu kernel module is not loaded: no AMD GPU can be used",
                 evidence, fix);
}

CheckResult driver_kfd_missing(const CheckContext& context) {
  if (context.amd_gpus.empty()) {
    return skip("no AMD GPU");
  }
  const bool container = in_container(context);
  if (!context.facts.driver->amdgpu_loaded && !container) {
    return skip("amdgpu is not loaded (see driver.amdgpu-missing)");
  }
  if (context.facts.access->kfd) {
    return pass("/dev/kfd exists");
  }
  if (container) {
    return finding(Severity::error,
                   "/dev/kfd is missing inside this container: it was started without the GPU "
                   "devices",
                   {"container: " + *context.facts.system->container, "no /dev/kfd"},
                   {{"Start the container with the KFD and DRI devices (add to docker/podman run)",
                     "--device=/dev/kfd --device=/dev/dri", false, FixKind::container_flag}});
  }
  return finding(Severity::error,
                 "amdgpu is loaded but /dev/kfd does not exist: the kernel was built without "
                 "HSA_AMD (KFD), or KFD rejected every GPU",
                 {"amdgpu loaded", "no /dev/kfd"}, kfd_missing_fixes(context));
}

CheckResult driver_kfd_unusable(const CheckContext& context) {
  const AccessFacts& access = *context.facts.access;
  if (!access.kfd) {
    return skip("no /dev/kfd");
  }
  const DeviceNode& kfd = *access.kfd;
  const auto& mount = context.facts.system->kfd_mount;
  const bool noexec = mount && mount->has("noexec");
  const bool apu = std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(),
                               [](const AmdGpu& g) { return g.integrated(); });
  // kfd_open() maps an APU's trap handler with PROT_EXEC; on a noexec mount do_mmap() refuses it
  // with EPERM ("Failure to set tba address. error -1."), which open() returns; older kernels
  // returned EFAULT.
  if (noexec && apu && kfd.open.access != OpenAccess::read_write &&
      (kfd.open.error == "EPERM" || kfd.open.error == "EFAULT")) {
    return noexec_finding(context, kfd, *mount);
  }
  if (kfd.open.access == OpenAccess::read_write) {
    return pass("/dev/kfd opens read-write",
                noexec ? std::vector<std::string>{fmt::format(
                             "{} is mounted noexec; harmless here (no APU, or the kernel no "
                             "longer maps KFD's trap handler)",
                             mount->point)}
                       : std::vector<std::string>{});
  }
  if (node_permission(kfd, access) == Permission::denied || kfd.open.error == "EACCES") {
    return skip("this process lacks permission on /dev/kfd (see perm.kfd)");
  }
  std::vector<std::string> evidence = {
      fmt::format("open(/dev/kfd, O_RDWR) failed with {}", kfd.open.error),
      fmt::format("/dev/kfd mode {:04o} owner {} group {}", kfd.stat.mode, kfd.stat.uid,
                  node_group(kfd))};
  const auto kernel = kernel_evidence(
      context, {KernelEventKind::not_supported_in_kfd, KernelEventKind::atomics_rejected,
                KernelEventKind::kfd_not_added, KernelEventKind::gpu_reset});
  evidence.insert(evidence.end(), kernel.begin(), kernel.end());
  std::vector<Fix> fix;
  const std::string& error = kfd.open.error;
  if (error == "EPERM" && in_container(context)) {
    fix.push_back({"Allow the device in the container's device cgroup (add to docker run)",
                   "--device=/dev/kfd --device=/dev/dri", false, FixKind::container_flag});
  } else if (error == "EINVAL") {
    fix.push_back(
        {"Look for a wedged GPU or a driver mismatch in the kernel log; a reboot resets the GPU",
         "sudo dmesg | grep -iE 'amdgpu|kfd'", true});
  } else {
    fix.push_back({"Look for \"not supported in kfd\" or \"PCI rejects atomics\" in the kernel log",
                   "sudo dmesg | grep -iE 'kfd|atomic'", true});
  }
  return finding(
      Severity::error,
      fmt::format("/dev/kfd exists and permissions allow it, yet open() fails with {}: {}", error,
                  explain_kfd_errno(error)),
      evidence, fix);
}

CheckResult driver_firmware(const CheckContext& context) {
  std::vector<std::string> evidence;
  std::vector<std::string> problems;
  std::vector<Fix> fix;
  bool judged = false;
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr || gpu.target == nullptr || gpu.target->broken_firmware.empty()) {
      continue;
    }
    for (const auto& broken : gpu.target->broken_firmware) {
      const auto loaded = gpu.pci->firmware.find(broken.firmware);
      if (loaded == gpu.pci->firmware.end()) {
        evidence.push_back(fmt::format("{}: no fw_version/{}_fw_version (kernel too old to say)",
                                       describe(gpu), broken.firmware));
        continue;
      }
      judged = true;
      const bool bad = std::find(broken.versions.begin(), broken.versions.end(), loaded->second) !=
                       broken.versions.end();
      evidence.push_back(fmt::format("{}: {} firmware 0x{:08x}{}", describe(gpu), broken.firmware,
                                     loaded->second, bad ? " (known broken)" : ""));
      if (!bad) {
        continue;
      }
      problems.push_back(fmt::format("{} runs {} firmware 0x{:x}: {}", describe(gpu),
                                     util::to_upper(broken.firmware), loaded->second,
                                     broken.problem));
      evidence.push_back("source: " + broken.source);
      if (!fix.empty()) {
        continue;
      }
      for (const auto& step : broken.fixes) {
        if (step.os.empty() || os_matches(context.facts, step.os)) {
          // The rules' steps that change firmware run as root; new firmware takes effect when
          // amdgpu loads it again, at the next boot. The others only look (dpkg -S).
          fix.push_back(
              {step.description, step.command, step.needs_root, FixKind::shell, step.needs_root});
        }
      }
    }
  }
  if (!problems.empty()) {
    return finding(Severity::error, util::join(problems, "; "), evidence, fix);
  }
  if (!judged) {
    return skip(evidence.empty() ? "no GPU whose firmware the knowledge base knows to be broken"
                                 : "the kernel does not report the firmware versions");
  }
  return pass("no GPU runs firmware known to be broken", evidence);
}

CheckResult driver_dkms_build(const CheckContext& context) {
  const DriverFacts& driver = *context.facts.driver;
  if (!driver.dkms) {
    return skip("amdgpu-dkms is not installed (no /var/lib/dkms/amdgpu)");
  }
  const DkmsAmdgpu& dkms = *driver.dkms;
  std::vector<std::string> evidence = {
      fmt::format("amdgpu-dkms {} under /var/lib/dkms/amdgpu", util::join(dkms.versions, ", ")),
      "running kernel " + dkms.kernel};
  if (dkms.built_module) {
    evidence.push_back("built for it: " + *dkms.built_module);
    return pass("amdgpu-dkms is built for the running kernel", evidence);
  }
  evidence.push_back(driver.dkms_version
                         ? "the loaded amdgpu reports version " + *driver.dkms_version
                     : driver.amdgpu_loaded ? "the loaded amdgpu is the kernel's own (no "
                                              "/sys/module/amdgpu/version)"
                                            : "amdgpu is not loaded");
  if (driver.dkms_version) {
    return pass("the DKMS amdgpu is loaded", evidence);
  }
  const std::string& version = dkms.versions.back();
  std::vector<Fix> fix;
  if (dkms.make_log) {
    evidence.push_back("failed build log: " + *dkms.make_log);
  }
  // Three ways out, any one of them (the failed build's log is in the evidence).
  fix.push_back({dkms.make_log
                     ? fmt::format("Try the build again for this kernel, then reboot (it fails "
                                   "again when the release does not support the kernel: read "
                                   "why in {})",
                                   *dkms.make_log)
                     : std::string("Try the build again for this kernel, then reboot (it fails "
                                   "again when the release does not support the kernel)"),
                 fmt::format("sudo dkms install amdgpu/{} -k {}", util::shell_quote(version),
                             util::shell_quote(dkms.kernel)),
                 true, FixKind::shell, true});
  const std::string remove_dkms =
      debian_like(context.facts) ? "sudo apt purge amdgpu-dkms" : "sudo dnf remove amdgpu-dkms";
  fix.push_back(context.facts.rocm && context.facts.rocm->amdgpu_install
                    ? Fix{"Keep the kernel's own amdgpu: remove the DKMS driver and install ROCm "
                          "without it",
                          remove_dkms + " && sudo amdgpu-install --usecase=rocm --no-dkms", true,
                          FixKind::shell, true}
                    : Fix{"Keep the kernel's own amdgpu: remove the DKMS driver", remove_dkms, true,
                          FixKind::shell, true});
  fix.push_back(
      {"Boot a kernel that this amdgpu-dkms release supports (AMD's compatibility matrix lists "
       "them)",
       "", false, FixKind::manual, true});
  CheckResult result =
      finding(Severity::warning,
              fmt::format("amdgpu-dkms {} is installed but was not built for the running kernel "
                          "{}: the kernel's own amdgpu is {}",
                          version, dkms.kernel, driver.amdgpu_loaded ? "loaded instead" : "used"),
              evidence, fix);
  result.fix_order = FixOrder::alternatives;
  return result;
}

namespace {

/// The installed amdgpu-dkms package and what its version says: the ROCm release of the
/// repository it came from (1:6.8.5.60204-… → 6.2.4) or the AMD GPU Driver release (from 30.10:
/// 1:6.16.6.30200000 → 30.20), and whether it is the loaded module's version.
struct DkmsPackage {
  std::string text;                 ///< "amdgpu-dkms 1:6.8.5.60204-2070768.el9 (rpm)"
  std::optional<std::string> rocm;  ///< "6.2" when the version names a ROCm release
  /// "31.50" when the version names an AMD GPU Driver release (30.10 on)
  std::optional<std::string> driver_release;
  bool loaded = false;  ///< its module version is the loaded module's
  std::string evidence;
};

std::optional<DkmsPackage> dkms_package(const CheckContext& context, const std::string& loaded) {
  if (!context.facts.packages) {
    return std::nullopt;
  }
  const auto found = context.facts.packages->named("amdgpu-dkms");
  if (found.size() != 1) {
    return std::nullopt;
  }
  DkmsPackage package;
  package.text = package_text(found.front());
  const std::string upstream(package_upstream_version(found.front().package->version));
  // The module version is the upstream version's first three parts (6.8.5 of 6.8.5.60204).
  const auto module = util::version_numbers(upstream);
  const auto running = util::version_numbers(loaded);
  package.loaded = module && running && module->size() >= 3 && running->size() >= 3 &&
                   std::equal(running->begin(), running->begin() + 3, module->begin());
  const auto release = amd_package_rocm_release(found.front().package->version);
  const auto driver_release = amd_package_driver_release(found.front().package->version);
  if (release) {
    package.rocm = major_minor(*release);
  }
  package.driver_release = driver_release;
  package.evidence =
      "package " + package.text +
      (release          ? ": from the repository of ROCm " + *release
       : driver_release ? ": AMD GPU Driver " + *driver_release
                        : std::string()) +
      (package.loaded ? std::string()
                      : "; the loaded module is " + loaded +
                            ", so the installed package's driver runs only after a reboot");
  return package;
}

}  // namespace

CheckResult driver_version(const CheckContext& context) {
  const DriverFacts& driver = *context.facts.driver;
  if (!driver.dkms_version) {
    return skip(driver.amdgpu_loaded ? "in-kernel amdgpu (no DKMS version to compare)"
                                     : "amdgpu is not loaded");
  }
  // The user space: /opt/rocm's .info/version, unless the package database names one other
  // release (the .info of a directory left from another release, or none at all).
  std::optional<std::string> user_space = context.facts.rocm->active_major_minor();
  std::string user_space_source;
  if (const auto packaged = packaged_rocm_release(context.facts)) {
    const auto from_package = major_minor(packaged->release);
    if (from_package && user_space != from_package) {
      user_space_source = fmt::format(
          " (package {}{})", packaged->evidence,
          user_space ? "; /opt/rocm's .info/version says " + *user_space : std::string());
      user_space = from_package;
    }
  }
  if (!user_space) {
    return skip(
        "no ROCm release under /opt/rocm or in the package database to compare the "
        "driver with");
  }
  const auto package = dkms_package(context, *driver.dkms_version);
  const DriverVersion* kernel = context.knowledge.driver_version(*driver.dkms_version);
  // A module the rules do not list: the loaded package's version names its ROCm release, or
  // an AMD GPU Driver release the rules do list (31.50: ROCm 10.0).
  DriverVersion from_package;
  if (kernel == nullptr && package && package->loaded) {
    const DriverVersion* release_row =
        package->driver_release ? context.knowledge.driver_package(*package->driver_release)
                                : nullptr;
    if (package->rocm) {
      from_package = {*driver.dkms_version, *package->rocm, "the version of " + package->text, ""};
      kernel = &from_package;
    } else if (release_row != nullptr) {
      from_package = {
          *driver.dkms_version, release_row->rocm,
          "AMD GPU Driver " + release_row->package + ", the version of " + package->text,
          release_row->package};
      kernel = &from_package;
    }
  }
  if (kernel == nullptr) {
    return skip("DKMS driver " + *driver.dkms_version + " is not in the knowledge base");
  }
  const auto supported = driver_supports(context.knowledge, kernel->rocm, *user_space);
  if (!supported) {
    return skip("ROCm " + *user_space + " is not in the knowledge base");
  }
  // The same window the pip lines of the torch checks are held to (software.cpp).
  const auto from_64 = context.knowledge.rocm_release_index("6.4");
  const auto newer = std::max(*context.knowledge.rocm_release_index(kernel->rocm),
                              *context.knowledge.rocm_release_index(*user_space));
  const int window = from_64 && newer >= *from_64 ? 3 : 2;
  std::vector<std::string> evidence = {
      fmt::format("amdgpu DKMS {} ships with ROCm {} ({})", kernel->module, kernel->rocm,
                  kernel->source),
      fmt::format(
          "ROCm user space {}{}", *user_space,
          !user_space_source.empty() ? user_space_source
          : context.facts.rocm->opt_rocm_target
              ? fmt::format(" ({} -> {})",
                            context.facts.rocm->layout == RocmLayout::therock ? "/opt/rocm/core"
                                                                              : "/opt/rocm",
                            *context.facts.rocm->opt_rocm_target)
              : "")};
  if (package) {
    evidence.push_back(package->evidence);
  }
  if (*supported) {
    return pass(
        fmt::format("driver of ROCm {} supports ROCm {} user space", kernel->rocm, *user_space),
        evidence);
  }
  return finding(Severity::warning,
                 fmt::format("The amdgpu DKMS driver (ROCm {}) is too far from the ROCm {} user "
                             "space: AMD supports them only {} releases apart",
                             kernel->rocm, *user_space, window),
                 evidence,
                 {context.facts.rocm && context.facts.rocm->amdgpu_install
                      ? Fix{"Install the driver that matches the user space with AMD's installer "
                            "of ROCm " +
                                *user_space + ", then reboot",
                            "sudo amdgpu-install --usecase=dkms", true, FixKind::shell, true}
                      : Fix{fmt::format("Install the driver that matches the user space: get "
                                        "AMD's installer of ROCm {} ({}), run sudo amdgpu-install "
                                        "--usecase=dkms, then reboot",
                                        *user_space, k_install_guide),
                            "", true, FixKind::manual, true}});
}

CheckResult rocm_agents(const CheckContext& context) {
  const auto bound = bound_gpus(context);
  if (bound.empty() && context.withheld_gpus.empty()) {
    return skip("no AMD GPU bound to amdgpu");
  }
  if (in_container(context) && !context.facts.access->kfd) {
    // Without /dev/kfd a container may not read the GPU nodes' topology (EPERM): an empty
    // topology says nothing about the driver then.
    return skip("the container has no /dev/kfd (see driver.kfd-missing)");
  }
  const KfdFacts& kfd = *context.facts.kfd;
  std::vector<std::string> missing;
  std::vector<std::string> igpus;
  const bool discrete_agent =
      std::any_of(context.amd_gpus.begin(), context.amd_gpus.end(),
                  [](const AmdGpu& g) { return g.kfd != nullptr && !g.integrated(); });
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.pci == nullptr || gpu.pci->driver != "amdgpu" || gpu.kfd != nullptr) {
      continue;
    }
    (gpu.integrated() && discrete_agent ? igpus : missing).push_back(describe(gpu));
  }
  std::vector<std::string> evidence = {
      kfd.topology_present
          ? fmt::format("KFD topology: {} GPU node(s){}", kfd.gpu_count(),
                        kfd.withheld_count() > 0
                            ? fmt::format(", {} refused (EPERM)", kfd.withheld_count())
                            : "")
          : "no /sys/class/kfd/kfd/topology/nodes"};
  for (const auto& gpu : context.amd_gpus) {
    if (gpu.kfd != nullptr && gpu.kfd->target_source == TargetSource::device_id) {
      evidence.push_back(fmt::format(
          "{}: KFD node {} prints no gfx_target_version (kernel {}); target from its device id",
          describe(gpu), gpu.kfd->index,
          context.facts.system ? context.facts.system->uname.release : std::string("?")));
    }
  }
  if (!missing.empty()) {
    const auto kernel = kernel_evidence(
        context, {KernelEventKind::atomics_rejected, KernelEventKind::not_supported_in_kfd,
                  KernelEventKind::kfd_not_added});
    if (!kernel.empty()) {
      evidence.insert(evidence.end(), kernel.begin(), kernel.end());
      std::vector<Fix> fix;
      if (!kernel_evidence(context, {KernelEventKind::atomics_rejected}).empty()) {
        fix.push_back(
            {"KFD skipped the GPU because PCIe atomics do not reach it: move the card to a slot "
             "wired to the CPU's PCIe lanes (not through the chipset or a PCIe switch) and update "
             "the BIOS (see pcie.atomics)",
             "", false});
      }
      if (!kernel_evidence(context, {KernelEventKind::not_supported_in_kfd}).empty()) {
        fix.push_back(
            {"KFD does not drive this chip: ROCm cannot use it on this kernel; a newer "
             "kernel or AMD's amdgpu-dkms driver may add it",
             "", false});
      }
      if (!kernel_evidence(context, {KernelEventKind::kfd_not_added}).empty()) {
        fix.push_back({"KFD failed to add the GPU: the lines before it in the kernel log say why",
                       "sudo dmesg | grep -iE 'kfd|amdgpu'", true});
      }
      return finding(Severity::error,
                     fmt::format("amdgpu drives {} but the KFD topology has no GPU agent for {}: "
                                 "ROCm will not see {}; the kernel log says why",
                                 util::join(missing, ", "), them(missing), them(missing)),
                     evidence, fix);
    }
    return finding(
        Severity::error,
        fmt::format("amdgpu drives {} but the KFD topology has no GPU agent for {}: ROCm "
                    "will not see {} (KFD rejected {}: missing PCIe atomics, a chip KFD does not "
                    "support, or on APUs of older kernels the IOMMU turned off)",
                    util::join(missing, ", "), them(missing), them(missing), them(missing)),
        evidence,
        {{"Read KFD's reason in the kernel log (\"PCI rejects atomics\", \"not supported in kfd\", "
          "\"NOT added due to errors\")",
          "sudo dmesg | grep -iE 'kfd|atomic'", true}});
  }
  std::vector<std::string> notices;
  if (!context.withheld_gpus.empty()) {
    const auto count = context.withheld_gpus.size();
    notices.push_back(fmt::format("{} GPU{} of this host {} not passed into this {}", count,
                                  count == 1 ? "" : "s", count == 1 ? "was" : "were",
                                  in_container(context) ? "container" : "process (device cgroup)"));
    for (const auto& gpu : context.withheld_gpus) {
      evidence.push_back("not passed in: " + describe(gpu));
    }
  }
  if (!igpus.empty()) {
    notices.push_back(fmt::format(
        "KFD has no agent for the integrated GPU ({}): ROCm programs use only the discrete one",
        util::join(igpus, ", ")));
  }
  if (!notices.empty()) {
    return finding(Severity::info, util::join(notices, "; "), evidence);
  }
  return pass(
      fmt::format("KFD lists {} GPU agent{}", kfd.gpu_count(), kfd.gpu_count() == 1 ? "" : "s"),
      evidence);
}

}  // namespace rocdoc::checks
