#include "probes/driver.h"

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
    } else if (word.substr(0, 7) == "amdgpu.") {
      facts.cmdline_amdgpu_params.emplace_back(word);
    }
  }
}

std::optional<bool> parse_secure_boot_var(std::string_view content) {
  if (content.size() < 5) {
    return std::nullopt;
  }
  return content[4] == 1;
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
      }
    }
  }
  if (const auto cmdline = host.read_file("/proc/cmdline", 64 * 1024)) {
    parse_cmdline_for_driver(*cmdline, facts);
  }
  const auto efi = host.stat("/sys/firmware/efi");
  facts.efi = efi && efi->type == FileType::directory;
  if (const auto variable = host.read_file(k_secure_boot_var, 64)) {
    facts.secure_boot = parse_secure_boot_var(*variable);
  }
  return facts;
}

}  // namespace rocdoc
