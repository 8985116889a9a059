#include "probes/driver.h"

#include <algorithm>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_secure_boot_var =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

bool names_amdgpu(std::string_view module_list) {
  for (const auto module : util::split(module_list, ',')) {
    if (util::trim(module) == "amdgpu") {
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_memory_module(std::string_view module) {
  return module == "amdgpu" || module == "ttm" || module == "amdttm";
}

std::vector<ModuleParameterSetting> find_module_options(std::string_view content,
                                                        const std::string& file) {
  std::vector<ModuleParameterSetting> found;
  int number = 0;
  for (const auto raw : util::lines(content)) {
    ++number;
    const std::string_view line = util::trim(raw);
    const auto words = util::split_whitespace(line);
    if (words.size() < 3 || words[0] != "options" || !is_memory_module(words[1])) {
      continue;
    }
    for (std::size_t i = 2; i < words.size() && !words[i].empty() && words[i].front() != '#'; ++i) {
      const auto equals = words[i].find('=');
      const std::string_view name = words[i].substr(0, equals);
      if (name.empty()) {
        continue;
      }
      found.push_back(
          {std::string(words[1]), std::string(name),
           equals == std::string_view::npos ? "" : std::string(words[i].substr(equals + 1)),
           ModprobeLine{file, number, std::string(line)}});
    }
  }
  return found;
}

std::vector<ModprobeLine> find_amdgpu_blacklist(std::string_view content, const std::string& file) {
  std::vector<ModprobeLine> found;
  int number = 0;
  for (const auto raw : util::lines(content)) {
    ++number;
    const std::string_view line = util::trim(raw);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto words = util::split_whitespace(line);
    const bool blacklist = words.size() >= 2 && words[0] == "blacklist" && words[1] == "amdgpu";
    const bool install_false = words.size() >= 3 && words[0] == "install" && words[1] == "amdgpu" &&
                               (words[2] == "/bin/false" || words[2] == "/bin/true" ||
                                words[2] == "/usr/bin/false" || words[2] == "/usr/bin/true");
    if (blacklist || install_false) {
      found.push_back({file, number, std::string(line)});
    }
  }
  return found;
}

void parse_cmdline_for_driver(std::string_view cmdline, DriverFacts& facts) {
  for (const auto word : util::split_whitespace(util::trim(cmdline))) {
    if (word == "nomodeset") {
      facts.cmdline_nomodeset = true;
    } else if (word.substr(0, 18) == "modprobe.blacklist" && word.size() > 19 && word[18] == '=') {
      facts.cmdline_blacklists_amdgpu =
          facts.cmdline_blacklists_amdgpu || names_amdgpu(word.substr(19));
    } else {
      if (word.substr(0, 7) == "amdgpu.") {
        facts.cmdline_amdgpu_params.emplace_back(word);
      }
      // "ttm.pages_limit=29360128": the kernel passes module.name=value to the module when it
      // loads (a module built in reads it at boot).
      const auto dot = word.find('.');
      const auto equals = word.find('=');
      if (dot != std::string_view::npos && dot < equals && is_memory_module(word.substr(0, dot)) &&
          dot + 1 < std::min(equals, word.size())) {
        facts.memory_module_settings.push_back(
            {std::string(word.substr(0, dot)), std::string(word.substr(dot + 1, equals - dot - 1)),
             equals == std::string_view::npos ? "" : std::string(word.substr(equals + 1)),
             std::nullopt});
      }
    }
  }
}

std::optional<std::string> make_log_kernel(std::string_view header) {
  // dkms 3.1 and later: "DKMS (dkms-3.2.0) make.log for amdgpu/6.8.5-2041575 for kernel
  // 6.14.0-24-generic (x86_64)"; dkms 2 and 3.0 (Ubuntu 24.04's 3.0.11): "DKMS make.log for
  // amdgpu-6.16.13-2278356.24.04 for kernel 6.18.14 (x86_64)".
  constexpr std::string_view marker = " for kernel ";
  const auto at = header.find(marker);
  if (header.rfind("DKMS", 0) != 0 || at == std::string_view::npos) {
    return std::nullopt;
  }
  const auto words = util::split_whitespace(util::trim(header.substr(at + marker.size())));
  if (words.empty() || words.front().empty()) {
    return std::nullopt;
  }
  return std::string(words.front());
}

std::optional<bool> parse_secure_boot_var(std::string_view content) {
  if (content.size() < 5) {
    return std::nullopt;
  }
  return content[4] == 1;
}

/// The parameters of a loaded memory module: every name, and the values of those set somewhere
/// and of the memory limits (ttm's pages_limit and page_pool_size, amdgpu's gttsize), and
/// amdgpu's pcie_p2p.
std::optional<ModuleParameters> read_module_parameters(
    const Host& host, const std::string& module,
    const std::vector<ModuleParameterSetting>& settings) {
  const std::string dir = "/sys/module/" + module + "/parameters";
  auto names = host.list_dir(dir);
  if (!names) {
    return std::nullopt;
  }
  check_bound(names->size(), 1024, "module parameters", dir);
  ModuleParameters parameters;
  parameters.names = std::move(*names);
  std::sort(parameters.names.begin(), parameters.names.end());
  // pcie_p2p: amdgpu's switch for PCIe peer-to-peer (it exists only where the kernel can make
  // KFD p2p_links: CONFIG_HSA_AMD_P2P).
  std::vector<std::string> wanted = {"pages_limit", "page_pool_size", "gttsize", "pcie_p2p"};
  for (const auto& setting : settings) {
    if (setting.module == module) {
      wanted.push_back(setting.name);
    }
  }
  for (const auto& name : wanted) {
    if (std::binary_search(parameters.names.begin(), parameters.names.end(), name) &&
        parameters.values.count(name) == 0) {
      if (const auto value = host.read_file(dir + "/" + name, 4096)) {
        parameters.values.emplace(name, std::string(util::trim(*value)));
      }
    }
  }
  return parameters;
}

std::optional<DkmsAmdgpu> probe_dkms(const Host& host) {
  constexpr std::string_view tree = "/var/lib/dkms/amdgpu";
  const auto names = host.list_dir(tree);
  if (!names) {
    return std::nullopt;
  }
  DkmsAmdgpu dkms;
  const Uname uname = host.uname();
  dkms.kernel = uname.release;
  for (const auto& name : *names) {
    const std::string dir = std::string(tree) + "/" + name;
    if (name.rfind("kernel-", 0) == 0) {
      if (name == "kernel-" + uname.release + "-" + uname.machine) {
        dkms.built_module = dir;
      }
      continue;
    }
    if (!host.stat(dir + "/source") && !host.list_dir(dir + "/build")) {
      continue;
    }
    dkms.versions.push_back(name);
    const std::string module = dir + "/" + uname.release + "/" + uname.machine + "/module";
    if (!dkms.built_module && host.list_dir(module)) {
      dkms.built_module = module;
    }
    const std::string log = dir + "/build/make.log";
    if (const auto header = host.read_file(log, 4096)) {
      const auto first = util::lines(*header);
      if (!first.empty() && make_log_kernel(first.front()) == uname.release) {
        dkms.make_log = log;
      }
    }
  }
  if (dkms.versions.empty()) {
    return std::nullopt;
  }
  for (const char* where : {"/updates/dkms", "/updates", "/extra"}) {
    const std::string dir = "/lib/modules/" + uname.release + where;
    if (const auto modules = host.list_dir(dir); modules && !dkms.built_module) {
      for (const auto& module : *modules) {
        if (module.rfind("amdgpu.ko", 0) == 0) {
          dkms.built_module = dir + "/" + module;
        }
      }
    }
  }
  return dkms;
}

DriverFacts probe_driver(const ProbeContext& context) {
  const Host& host = context.host;
  DriverFacts facts;
  const auto module = host.stat("/sys/module/amdgpu");
  facts.amdgpu_loaded = module && module->type == FileType::directory;
  if (const auto state = host.read_file("/sys/module/amdgpu/initstate", 64)) {
    facts.initstate = std::string(util::trim(*state));
  }
  if (const auto version = host.read_file("/sys/module/amdgpu/version", 64)) {
    facts.dkms_version = std::string(util::trim(*version));
  }
  for (const std::string dir : {"/etc/modprobe.d", "/run/modprobe.d", "/usr/lib/modprobe.d"}) {
    const auto names = host.list_dir(dir);
    if (!names) {
      continue;
    }
    for (const auto& name : *names) {
      if (name.size() < 5 || name.substr(name.size() - 5) != ".conf") {
        continue;
      }
      const std::string path = dir + "/" + name;
      if (const auto content = host.read_file(path, 64 * 1024)) {
        auto lines = find_amdgpu_blacklist(*content, path);
        facts.blacklist.insert(facts.blacklist.end(), lines.begin(), lines.end());
        auto options = find_module_options(*content, path);
        facts.memory_module_settings.insert(facts.memory_module_settings.end(), options.begin(),
                                            options.end());
      }
    }
  }
  if (const auto cmdline = host.read_file("/proc/cmdline", 64 * 1024)) {
    parse_cmdline_for_driver(*cmdline, facts);
  }
  for (const char* name : {"amdgpu", "ttm", "amdttm"}) {
    if (auto parameters = read_module_parameters(host, name, facts.memory_module_settings)) {
      facts.module_parameters.emplace(name, std::move(*parameters));
    }
  }
  const auto efi = host.stat("/sys/firmware/efi");
  facts.efi = efi && efi->type == FileType::directory;
  if (const auto variable = host.read_file(k_secure_boot_var, 64)) {
    facts.secure_boot = parse_secure_boot_var(*variable);
  }
  facts.dkms = probe_dkms(host);
  return facts;
}

}  // namespace rocdoc
