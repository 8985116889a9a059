#include "src/facts/json.h"

#include "probes/torch_origin.h"
#include "src/runtime/json.h"
#include "src/runtime/smoke_facts.h"

#include <fmt/format.h>

namespace rocdoc {

namespace {

using json = nlohmann::ordered_json;

std::string hex4(std::uint32_t value) { return fmt::format("{:04x}", value); }

std::string_view gpu_vendor_name(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::amd:
      return "amd";
    case GpuVendor::nvidia:
      return "nvidia";
    case GpuVendor::intel:
      return "intel";
    case GpuVendor::virtual_display:
      return "virtual";
    case GpuVendor::other:
      return "other";
  }
  return "other";
}

std::string_view file_type_name(FileType type) {
  switch (type) {
    case FileType::regular:
      return "file";
    case FileType::directory:
      return "dir";
    case FileType::symlink:
      return "link";
    case FileType::char_device:
      return "char";
    case FileType::block_device:
      return "block";
    case FileType::other:
      return "other";
  }
  return "other";
}

}  // namespace

std::string_view access_name(OpenAccess access) {
  switch (access) {
    case OpenAccess::read_write:
      return "rw";
    case OpenAccess::read_only:
      return "r";
    case OpenAccess::write_only:
      return "w";
    case OpenAccess::none:
      return "none";
  }
  return "none";
}

namespace {

json gpu_code_json(const std::optional<GpuCode>& code) {
  if (!code) {
    return nullptr;
  }
  return {{"path", code->path}, {"targets", code->targets}};
}

json gpu_code_list_json(const std::vector<GpuCode>& codes) {
  json list = json::array();
  for (const auto& code : codes) {
    list.push_back(gpu_code_json(code));
  }
  return list;
}

json library_files_json(const std::vector<LibraryFile>& files) {
  json list = json::array();
  for (const auto& file : files) {
    list.push_back({{"path", file.path}, {"size", optional_json(file.size)}});
  }
  return list;
}

json firmware_json(const std::map<std::string, std::uint32_t>& firmware) {
  json result = json::object();
  for (const auto& [name, version] : firmware) {
    result[name] = fmt::format("0x{:08x}", version);
  }
  return result;
}

json ras_json(const std::map<std::string, RasCount>& ras) {
  json result = json::object();
  for (const auto& [block, count] : ras) {
    result[block] = {{"ue", count.uncorrectable}, {"ce", count.correctable}};
  }
  return result;
}

json bars_json(const std::vector<PciBar>& bars) {
  json out = json::array();
  for (const auto& bar : bars) {
    out.push_back({{"index", bar.index},
                   {"size", bar.size},
                   {"prefetchable", bar.prefetchable},
                   {"64bit", bar.is_64bit}});
  }
  return out;
}

json acs_json(const std::optional<PciAcs>& acs) {
  if (!acs) {
    return nullptr;
  }
  return {{"present", acs->present},
          {"control", fmt::format("0x{:04x}", acs->control)},
          {"redirects", acs->redirects()}};
}

json pci_json(const PciFacts& pci) {
  json devices = json::array();
  for (const auto& d : pci.devices) {
    devices.push_back({
        {"bdf", d.bdf},
        {"vendor", hex4(d.vendor)},
        {"device", hex4(d.device)},
        {"class", fmt::format("{:06x}", d.class_code)},
        {"subsystem_vendor", d.subsystem_vendor ? json(hex4(*d.subsystem_vendor)) : json(nullptr)},
        {"subsystem_device", d.subsystem_device ? json(hex4(*d.subsystem_device)) : json(nullptr)},
        {"revision", d.revision ? json(fmt::format("{:02x}", *d.revision)) : json(nullptr)},
        {"driver", optional_json(d.driver)},
        {"render_minor", optional_json(d.render_minor)},
        {"firmware", firmware_json(d.firmware)},
        {"ras", ras_json(d.ras)},
        {"bad_pages", optional_json(d.bad_pages)},
        {"memory",
         {{"vram_total", optional_json(d.memory.vram_total)},
          {"vis_vram_total", optional_json(d.memory.vis_vram_total)},
          {"gtt_total", optional_json(d.memory.gtt_total)}}},
        {"vendor_name", d.vendor_name},
        {"device_name", d.device_name},
        {"gpu", d.gpu ? json(gpu_vendor_name(*d.gpu)) : json(nullptr)},
        {"upstream", d.upstream},
        {"numa_node", optional_json(d.numa_node)},
        {"local_cpus", optional_json(d.local_cpus)},
        {"bars", bars_json(d.bars)},
        {"iommu_group", optional_json(d.iommu_group)},
        {"iommu_domain", optional_json(d.iommu_domain)},
        {"acs", acs_json(d.acs)},
        {"link",
         {{"current_speed", optional_json(d.link.current_speed)},
          {"max_speed", optional_json(d.link.max_speed)},
          {"current_width", optional_json(d.link.current_width)},
          {"max_width", optional_json(d.link.max_width)}}},
    });
  }
  return {{"devices", devices},
          {"names_from", pci.names_from},
          {"names_problem", optional_json(pci.names_problem)}};
}

json driver_json(const DriverFacts& driver) {
  json blacklist = json::array();
  for (const auto& line : driver.blacklist) {
    blacklist.push_back({{"file", line.file}, {"line", line.line}, {"text", line.text}});
  }
  json settings = json::array();
  for (const auto& setting : driver.memory_module_settings) {
    settings.push_back({{"module", setting.module},
                        {"name", setting.name},
                        {"value", setting.value},
                        {"file", setting.file ? json(setting.file->file) : json(nullptr)},
                        {"line", setting.file ? json(setting.file->line) : json(nullptr)}});
  }
  json modules = json::object();
  for (const auto& [module, parameters] : driver.module_parameters) {
    modules[module] = {{"names", parameters.names}, {"values", parameters.values}};
  }
  return {{"amdgpu_loaded", driver.amdgpu_loaded},
          {"initstate", optional_json(driver.initstate)},
          {"dkms_version", optional_json(driver.dkms_version)},
          {"blacklist", blacklist},
          {"cmdline_nomodeset", driver.cmdline_nomodeset},
          {"cmdline_blacklists_amdgpu", driver.cmdline_blacklists_amdgpu},
          {"cmdline_amdgpu_params", driver.cmdline_amdgpu_params},
          {"memory_module_settings", settings},
          {"module_parameters", modules},
          {"efi", driver.efi},
          {"secure_boot", optional_json(driver.secure_boot)},
          {"dkms", driver.dkms ? json{{"versions", driver.dkms->versions},
                                      {"kernel", driver.dkms->kernel},
                                      {"built_module", optional_json(driver.dkms->built_module)},
                                      {"make_log", optional_json(driver.dkms->make_log)}}
                               : json(nullptr)}};
}

json node_json(const DeviceNode& node) {
  return {{"path", node.path},
          {"type", file_type_name(node.stat.type)},
          {"mode", fmt::format("{:04o}", node.stat.mode)},
          {"uid", node.stat.uid},
          {"gid", node.stat.gid},
          {"group", optional_json(node.group_name)},
          {"major", optional_json(node.stat.major)},
          {"minor", optional_json(node.stat.minor)},
          {"access", access_name(node.open.access)},
          {"errno", node.open.error.empty() ? json(nullptr) : json(node.open.error)}};
}

json access_json(const AccessFacts& access) {
  json groups = json::array();
  for (const auto& g : access.identity.groups) {
    groups.push_back({{"name", g.name}, {"gid", g.gid}});
  }
  json render = json::array();
  for (const auto& node : access.render_nodes) {
    render.push_back(node_json(node));
  }
  return {{"identity",
           {{"user", access.identity.user},
            {"uid", access.identity.uid},
            {"gid", access.identity.gid},
            {"groups", groups}}},
          {"kfd", access.kfd ? node_json(*access.kfd) : json(nullptr)},
          {"render_nodes", render},
          {"etc_group_readable", access.etc_group.has_value()}};
}

std::string_view target_source_name(TargetSource source) {
  switch (source) {
    case TargetSource::gfx_target_version:
      return "gfx_target_version";
    case TargetSource::device_id:
      return "device_id";
    case TargetSource::unknown:
      break;
  }
  return "unknown";
}

json kfd_links_json(const std::vector<KfdIoLink>& links) {
  json out = json::array();
  for (const auto& l : links) {
    out.push_back({{"index", l.index},
                   {"type", l.type},
                   {"node_from", l.node_from},
                   {"node_to", l.node_to},
                   {"flags", l.flags},
                   {"weight", optional_json(l.weight)},
                   {"min_bandwidth", optional_json(l.min_bandwidth)},
                   {"max_bandwidth", optional_json(l.max_bandwidth)}});
  }
  return out;
}

json kfd_json(const KfdFacts& kfd) {
  json nodes = json::array();
  for (const auto& n : kfd.nodes) {
    json banks = json::array();
    for (const auto& bank : n.mem_banks) {
      banks.push_back({{"heap_type", bank.heap_type}, {"size", bank.size}});
    }
    const json links = kfd_links_json(n.io_links);
    if (n.unreadable) {
      nodes.push_back({{"index", n.index},
                       {"kind", "unreadable"},
                       {"error", *n.unreadable},
                       {"gfx_target_version", 0},
                       {"gfx_target", nullptr},
                       {"io_links", json::array()}});
      continue;
    }
    nodes.push_back(
        {{"index", n.index},
         {"kind", n.is_gpu() ? "gpu" : "cpu"},
         {"name", n.name},
         {"gpu_id", optional_json(n.gpu_id)},
         {"simd_count", n.simd_count},
         {"wave_front_size", optional_json(n.wave_front_size)},
         {"gfx_target_version", n.gfx_target_version.value_or(0)},
         {"gfx_target", n.gfx_target.empty() ? json(nullptr) : json(n.gfx_target)},
         {"gfx_target_from", target_source_name(n.target_source)},
         {"vendor_id", hex4(n.vendor_id)},
         {"device_id", hex4(n.device_id)},
         {"unique_id",
          n.unique_id ? json(fmt::format("GPU-{:016x}", *n.unique_id)) : json(nullptr)},
         {"drm_render_minor", optional_json(n.drm_render_minor)},
         {"bdf", optional_json(n.bdf)},
         {"render_bdf", optional_json(n.render_bdf)},
         {"io_links", links},
         {"io_links_count", optional_json(n.io_links_count)},
         {"p2p_links", kfd_links_json(n.p2p_links)},
         {"p2p_links_count", optional_json(n.p2p_links_count)},
         {"hive_id", n.hive_id ? json(fmt::format("0x{:016x}", *n.hive_id)) : json(nullptr)},
         {"mem_banks", banks}});
  }
  return {{"topology_present", kfd.topology_present}, {"nodes", nodes}};
}

json mount_json(const std::optional<Mount>& mount) {
  if (!mount) {
    return nullptr;
  }
  return {{"device", mount->device},
          {"point", mount->point},
          {"type", mount->type},
          {"options", mount->options}};
}

json system_json(const SystemFacts& system) {
  json fstab = json::array();
  for (const auto& line : system.fstab_dev) {
    fstab.push_back({{"line", line.line}, {"text", line.text}});
  }
  std::string_view wsl = "none";
  if (system.wsl == WslKind::wsl1) {
    wsl = "wsl1";
  } else if (system.wsl == WslKind::wsl2) {
    wsl = "wsl2";
  }
  return {{"os_release", system.os_release},
          {"kernel", system.uname.release},
          {"machine", system.uname.machine},
          {"numa_balancing", optional_json(system.numa_balancing)},
          {"numa_nodes", optional_json(system.numa_nodes)},
          {"cmdline", system.cmdline},
          {"iommu_params", system.iommu_params},
          {"container", optional_json(system.container)},
          {"container_name", optional_json(system.container_name)},
          {"toolbox", system.toolbox},
          {"wsl", wsl},
          {"dxg_present", system.dxg_present},
          {"shm_bytes", optional_json(system.shm_bytes)},
          {"mem_total", optional_json(system.mem_total)},
          {"kfd_mount", mount_json(system.kfd_mount)},
          {"fstab_dev", fstab},
          {"grub_defaults", system.grub_defaults},
          {"kernel_cmdline_file", system.kernel_cmdline_file},
          {"net_interfaces", optional_json(system.net_interfaces)},
          {"infiniband_devices", optional_json(system.infiniband_devices)}};
}

std::string_view tuning_use_name(TuningUse use) {
  switch (use) {
    case TuningUse::miopen_user_db:
      return "miopen_user_db";
    case TuningUse::miopen_cache:
      return "miopen_cache";
    case TuningUse::tunableop_results:
      return "tunableop_results";
  }
  return "unknown";
}

json tuning_json(const TuningFacts& tuning) {
  json directories = json::array();
  for (const auto& d : tuning.directories) {
    json stat = nullptr;
    if (d.stat) {
      stat = {{"mode", fmt::format("{:04o}", d.stat->mode)},
              {"uid", d.stat->uid},
              {"gid", d.stat->gid},
              {"directory", d.stat->type == FileType::directory},
              {"owner_known", d.stat->owner_known}};
    }
    directories.push_back({{"use", tuning_use_name(d.use)},
                           {"variable", d.variable},
                           {"default", d.is_default},
                           {"given", d.given.empty() ? json(nullptr) : json(d.given)},
                           {"path", d.path.empty() ? json(nullptr) : json(d.path)},
                           {"existing", optional_json(d.existing)},
                           {"stat", stat},
                           {"mount", mount_json(d.mount)}});
  }
  return {{"home", optional_json(tuning.home)},
          {"home_mount", mount_json(tuning.home_mount)},
          {"directories", directories}};
}

}  // namespace

namespace {

/// check --scan DIR: the source scan's totals and findings (the code.* checks' evidence).
json code_scan_json(const CodeScanFacts& scan) {
  json findings = json::array();
  for (const CodeFinding& finding : scan.findings) {
    findings.push_back({{"id", finding.id},
                        {"pattern", finding.pattern},
                        {"severity", to_string(finding.severity)},
                        {"path", finding.path},
                        {"line", finding.line},
                        {"column", finding.column},
                        {"end_column", finding.end_column},
                        {"text", finding.text},
                        {"fingerprint", finding.fingerprint}});
  }
  json skipped = json::array();
  for (const CodeSkip& skip : scan.skipped) {
    skipped.push_back({{"path", skip.path}, {"why", skip.why}});
  }
  return {{"root", scan.root},
          {"files_scanned", scan.files_scanned},
          {"bytes_scanned", scan.bytes_scanned},
          {"suppressed_inline", scan.suppressed_inline},
          {"baselined", scan.baselined},
          {"truncated", scan.truncated},
          {"findings", findings},
          {"skipped", skipped}};
}

}  // namespace

json packages_json(const PackageFacts& packages) {
  json databases = json::array();
  for (const auto& database : packages.databases) {
    json kept = json::array();
    for (const auto& package : database.packages) {
      json entry = {{"name", package.name},
                    {"version", package.version},
                    {"arch", package.arch},
                    {"rocm_release", optional_json(amd_package_rocm_release(package.version))}};
      if (package.state) {
        entry["state"] = *package.state;
      }
      kept.push_back(std::move(entry));
    }
    using State = PackageDatabase::State;
    const State state = database.state;
    databases.push_back(
        {{"manager", to_string(database.manager)},
         {"path", database.path},
         {"state", state == State::read         ? "read"
                   : state == State::too_large  ? "too_large"
                   : state == State::unreadable ? "unreadable"
                   : state == State::malformed  ? "malformed"
                                                : "unsupported"},
         {"size", optional_json(database.size)},
         {"cap", optional_json(database.cap)},
         {"problem", database.problem.empty() ? json(nullptr) : json(database.problem)},
         {"note", database.note.empty() ? json(nullptr) : json(database.note)},
         {"packages", kept}});
  }
  return {{"databases", databases}};
}

json facts_to_json(const Facts& facts) {
  json result = json::object();
  result["pci"] = facts.pci ? pci_json(*facts.pci) : json(nullptr);
  result["driver"] = facts.driver ? driver_json(*facts.driver) : json(nullptr);
  result["access"] = facts.access ? access_json(*facts.access) : json(nullptr);
  result["kfd_topology"] = facts.kfd ? kfd_json(*facts.kfd) : json(nullptr);
  result["system"] = facts.system ? system_json(*facts.system) : json(nullptr);
  result["env"] = facts.env ? json(facts.env->variables) : json(nullptr);
  result["tuning"] = facts.tuning ? tuning_json(*facts.tuning) : json(nullptr);
  if (facts.python) {
    json environments = json::array();
    for (const auto& environment : facts.python->environments) {
      json packages = json::object();
      json package_files = json::object();
      for (const auto& package : environment.packages) {
        packages[package.name] = package.version;
        for (const auto& file : package.files) {
          package_files[package.name].push_back(
              {{"path", file.path}, {"needed", optional_json(file.needed)}});
        }
      }
      json torch = nullptr;
      if (environment.torch) {
        const TorchInstall& t = *environment.torch;
        torch = {{"version", t.version},
                 {"build", to_string(t.build)},
                 {"hip", optional_json(t.hip)},
                 {"cuda", optional_json(t.cuda)},
                 {"rocm", optional_json(t.rocm)},
                 {"git_version", optional_json(t.git_version)},
                 {"metadata_version", optional_json(t.metadata_version)},
                 {"metadata_path", t.metadata_path},
                 {"origin", to_string(t.origin)},
                 {"origin_detail", t.origin_detail},
                 {"installer", optional_json(t.installer)},
                 {"bundles_hip", t.bundles_hip},
                 {"bundled_hsa_runtime", library_files_json(t.bundled_hsa_runtime)},
                 {"compiled_targets", optional_json(t.compiled_targets)},
                 {"hip_libraries", gpu_code_list_json(t.hip_libraries)},
                 {"rocblas_library", gpu_code_json(t.rocblas_library)}};
      }
      json rocm_sdk = nullptr;
      if (const auto& sdk = environment.rocm_sdk) {
        rocm_sdk = {{"version", sdk->version},
                    {"libraries", sdk->libraries},
                    {"libraries_family", optional_json(sdk->libraries_family)},
                    {"devel", sdk->devel},
                    {"devices", sdk->devices},
                    {"torch_devices", sdk->torch_devices},
                    {"packages", sdk->packages}};
      }
      environments.push_back({{"site_dir", environment.site_dir},
                              {"prefix", environment.prefix},
                              {"found_by", environment.found_by},
                              {"torch", torch},
                              {"packages", packages},
                              {"package_files", package_files},
                              {"rocm_sdk", rocm_sdk},
                              {"python_version", optional_json(environment.python_version)},
                              {"externally_managed", environment.externally_managed},
                              {"runs_as_python3", environment.runs_as_python3}});
    }
    json path_python3 = nullptr;
    if (const auto& python = facts.python->path_python3) {
      path_python3 = {{"path", python->path},
                      {"target", optional_json(python->target)},
                      {"inspected", python->inspected}};
    }
    result["python"] = {{"environments", environments}, {"path_python3", path_python3}};
  } else {
    result["python"] = nullptr;
  }
  if (facts.kernel_log) {
    const KernelLogFacts& log = *facts.kernel_log;
    json events = json::array();
    for (const auto& event : log.events) {
      events.push_back({{"kind", to_string(event.kind)}, {"line", event.line}});
    }
    result["kernel_log"] = {
        {"state", log.state == KernelLogFacts::State::read         ? "read"
                  : log.state == KernelLogFacts::State::unreadable ? "unreadable"
                                                                   : "not_available"},
        {"error", log.error.empty() ? json(nullptr) : json(log.error)},
        {"lines", log.lines},
        {"events", events}};
  } else {
    result["kernel_log"] = nullptr;
  }
  if (facts.rocm) {
    json installs = json::array();
    for (const auto& install : facts.rocm->installs) {
      installs.push_back({{"path", install.path}, {"version", optional_json(install.version)}});
    }
    json hip_dirs = json::array();
    for (const auto& dir : facts.rocm->ld_library_hip) {
      hip_dirs.push_back({{"dir", dir.dir}, {"version", optional_json(dir.version)}});
    }
    const RocmLayout layout = facts.rocm->layout;
    result["rocm"] = {{"layout", layout == RocmLayout::therock   ? json("therock")
                                 : layout == RocmLayout::classic ? json("classic")
                                                                 : json(nullptr)},
                      {"installs", installs},
                      {"opt_rocm_target", optional_json(facts.rocm->opt_rocm_target)},
                      {"opt_rocm_version", optional_json(facts.rocm->opt_rocm_version)},
                      {"rocm_path", optional_json(facts.rocm->rocm_path)},
                      {"rocm_path_version", optional_json(facts.rocm->rocm_path_version)},
                      {"hip_path", optional_json(facts.rocm->hip_path)},
                      {"rocm_path_holds_rocm", optional_json(facts.rocm->rocm_path_holds_rocm)},
                      {"hip_path_holds_hip", optional_json(facts.rocm->hip_path_holds_hip)},
                      {"ld_library_hip", hip_dirs},
                      {"amdgpu_install", facts.rocm->amdgpu_install},
                      {"wsl_dxcore", facts.rocm->wsl_dxcore},
                      {"rocdxg", facts.rocm->rocdxg},
                      {"hsa_runtime", library_files_json(facts.rocm->hsa_runtime)},
                      {"rocblas_library", gpu_code_json(facts.rocm->rocblas_library)}};
  } else {
    result["rocm"] = nullptr;
  }
  result["packages"] = facts.packages ? packages_json(*facts.packages) : json(nullptr);
  result["runtime"] = facts.runtime ? runtime::runtime_facts_json(*facts.runtime) : json(nullptr);
  result["smoke"] = facts.smoke ? runtime::smoke_facts_json(*facts.smoke) : json(nullptr);
  if (facts.code_scan) {
    result["code_scan"] = code_scan_json(*facts.code_scan);  // only with check --scan DIR
  }
  return result;
}

}  // namespace rocdoc
