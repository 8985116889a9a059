#include "src/hosts/redacting.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocdoc/env_allowlist.h"
#include "src/util/pci_config.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// The last component of a path ("/home/a.smith" → "a.smith").
std::string_view last_component(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// Account names that are also a distribution's name, a cloud image's default user or a word
/// of the system (ubuntu, debian, admin, fedora, rocm…): they name no person, and replaced as
/// whole words they would change what os-release (ID=ubuntu), package names and system paths
/// say. Not redacted; docs/rocdoc.1.md (--redact) says so.
bool names_no_person(std::string_view name, const std::set<std::string>& distribution_words) {
  static constexpr std::string_view k_words[] = {
      "admin",      "administrator", "almalinux", "alpine",     "amazon",    "amd",       "amdgpu",
      "amzn",       "arch",          "archlinux", "azure",      "azureuser", "centos",    "cloud",
      "cloud-user", "core",          "debian",    "docker",     "ec2-user",  "fedora",    "gentoo",
      "gpu",        "guest",         "kali",      "kfd",        "linux",     "linuxmint", "manjaro",
      "mint",       "nixos",         "ol",        "opensuse",   "oracle",    "pop",       "redhat",
      "render",     "rhel",          "rocky",     "rockylinux", "rocm",      "sles",      "suse",
      "ubuntu",     "user",          "vagrant",   "video"};
  return std::find(std::begin(k_words), std::end(k_words), name) != std::end(k_words) ||
         distribution_words.count(std::string(name)) != 0;
}

/// os-release's ID and ID_LIKE words ("ubuntu", "debian").
std::set<std::string> distribution_words(const Host& host) {
  std::set<std::string> words;
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    const auto content = host.read_file(path, 64 * 1024);
    if (!content) {
      continue;
    }
    for (const auto line : util::lines(*content)) {
      const auto equals = line.find('=');
      const std::string_view key = util::trim(line.substr(0, equals));
      if (equals == std::string_view::npos || (key != "ID" && key != "ID_LIKE")) {
        continue;
      }
      std::string_view value = util::trim(line.substr(equals + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) {
        value = value.substr(1, value.size() - 2);
      }
      for (const auto word : util::split_whitespace(value)) {
        words.emplace(util::to_lower(word));
      }
    }
    break;
  }
  return words;
}

/// Files that hold no personal name but words a user may share: never word-replaced.
bool is_system_text(std::string_view path) {
  const std::string_view name = last_component(path);
  return path == "/etc/os-release" || path == "/usr/lib/os-release" || path == "/etc/lsb-release" ||
         name == "METADATA" || name == "PKG-INFO";
}

bool is_serial_file(std::string_view path) {
  const std::string_view name = last_component(path);
  return name == "serial_number" || name == "unique_id" || name == "product_serial" ||
         name == "board_serial" || name == "chassis_serial" || name == "product_uuid" ||
         path == "/etc/machine-id" || path == "/var/lib/dbus/machine-id";
}

bool is_kfd_properties(std::string_view path) {
  return last_component(path) == "properties" &&
         (path.substr(0, 15) == "/sys/class/kfd/" ||
          path.substr(0, 25) == "/sys/devices/virtual/kfd/");
}

/// /etc/passwd without the GECOS field (full names, rooms, phone numbers).
std::string redact_passwd(std::string_view passwd) {
  std::string result;
  for (const auto line : util::lines(passwd)) {
    auto fields = util::split(line, ':');
    if (fields.size() >= 7) {
      fields[4] = "";
    }
    std::vector<std::string> parts(fields.begin(), fields.end());
    result += util::join(parts, ":") + "\n";
  }
  return result;
}

}  // namespace

RedactingHost::RedactingHost(const Host& inner) : m_inner(inner) {
  Redactions& r = m_redactions;
  const Identity self = inner.identity();
  const std::set<std::string> distribution = distribution_words(inner);
  const auto personal = [&](std::string_view name) {
    return !name.empty() && name != "root" && !names_no_person(name, distribution);
  };
  if (personal(self.user)) {
    r.add_word(self.user, "user");
  }
  if (const auto sudo_user = inner.env("SUDO_USER"); sudo_user && personal(*sudo_user)) {
    r.add_word(*sudo_user, "user");
  }
  if (const auto passwd = inner.read_file("/etc/passwd")) {
    for (const auto line : util::lines(*passwd)) {
      const auto fields = util::split(line, ':');
      const auto uid = fields.size() >= 7 ? util::parse_number<std::uint32_t>(fields[2])
                                          : std::optional<std::uint32_t>();
      if (!uid || *uid < 1000 || *uid >= 65534 || !personal(fields[0])) {
        continue;  // system accounts name software, not people
      }
      r.add_word(std::string(fields[0]), "user");
      const std::string_view home = last_component(fields[5]);
      if (home != fields[0] && home != "home" && personal(home)) {
        r.add_word(std::string(home), "home");
      }
    }
  }
  for (const char* path : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
    if (const auto name = inner.read_file(path, 256)) {
      const std::string host(util::trim(*name));
      if (host.size() >= 3 && host != "localhost") {
        r.add_word(host, "host");
      } else if (!host.empty() && host != "localhost") {
        // "n1", "vm": too short to replace as a word everywhere ("vm" in /proc/sys/vm,
        // "on" in amd_iommu=on), so replaced where it is the host name: these two files.
        m_short_host = r.add_field(host, "host");
      }
    }
  }
  // The GPU groups stay: the permission checks name them.
  r.kept_groups = {"root", "video", "render", "kfd"};
  std::map<std::uint32_t, std::string> group_names;
  if (const auto groups = inner.read_file("/etc/group")) {
    for (const auto line : util::lines(*groups)) {
      const auto fields = util::split(line, ':');
      if (fields.size() >= 3) {
        if (const auto gid = util::parse_number<std::uint32_t>(fields[2])) {
          group_names[*gid] = std::string(fields[0]);
        }
      }
    }
  }
  std::vector<std::string> nodes = {"/dev/kfd"};
  if (const auto dri = inner.list_dir("/dev/dri")) {
    for (const auto& name : *dri) {
      nodes.push_back("/dev/dri/" + name);
    }
  }
  for (const auto& node : nodes) {
    if (const auto st = inner.stat(node); st && group_names.count(st->gid) != 0) {
      r.kept_groups.insert(group_names[st->gid]);
    }
  }
  // Unique ids in node order, so that placeholders follow the KFD numbering.
  constexpr std::string_view k_nodes = "/sys/class/kfd/kfd/topology/nodes";
  if (auto names = inner.list_dir(k_nodes)) {
    std::sort(names->begin(), names->end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    for (const auto& name : *names) {
      if (const auto properties =
              inner.read_file(std::string(k_nodes) + "/" + name + "/properties", 64 * 1024)) {
        (void)redact_unique_id_lines(*properties, r);
      }
    }
  }
}

namespace {

/// A PCI function's config space (binary): the Device Serial Number capability and vendor data
/// live past the first 64 bytes.
bool is_pci_config(std::string_view path) {
  return last_component(path) == "config" && path.substr(0, 21) == "/sys/bus/pci/devices/";
}

}  // namespace

std::string RedactingHost::content(std::string_view path, std::string text) const {
  if (is_serial_file(path)) {
    return text.empty() ? text : "redacted-serial\n";
  }
  if (is_pci_config(path)) {
    // Only the header and ACS (capability 0x0d), which the pci probe reads, are kept.
    return util::pci_config_keeping(text, 0x000d, text.size());
  }
  if (is_system_text(path)) {
    return text;
  }
  if (!m_short_host.empty() && (path == "/proc/sys/kernel/hostname" || path == "/etc/hostname")) {
    return util::trim(text).empty() || util::trim(text) == "localhost" ? text : m_short_host + "\n";
  }
  if (path == "/proc/cmdline") {
    text = redact_cmdline(text, m_redactions);
  } else if (path == "/etc/group") {
    text = redact_group_file(text, m_redactions);
  } else if (path == "/etc/passwd") {
    text = redact_passwd(text);
  } else if (is_kfd_properties(path)) {
    text = redact_unique_id_lines(text, m_redactions);
  }
  return m_redactions.forward(text);
}

FileRead RedactingHost::read_file_or_error(std::string_view path, std::size_t max_bytes) const {
  const std::string real = m_redactions.backward(path);
  FileRead read = m_inner.read_file_or_error(real, max_bytes);
  if (read.content) {
    read.content = content(real, std::move(*read.content));
  }
  return read;
}

std::optional<std::vector<std::string>> RedactingHost::list_dir(std::string_view path) const {
  auto names = m_inner.list_dir(m_redactions.backward(path));
  if (names) {
    for (auto& name : *names) {
      name = m_redactions.forward(name);
    }
    std::sort(names->begin(), names->end());
  }
  return names;
}

std::optional<FileStat> RedactingHost::stat(std::string_view path) const {
  return m_inner.stat(m_redactions.backward(path));
}

std::optional<std::string> RedactingHost::read_link(std::string_view path) const {
  auto target = m_inner.read_link(m_redactions.backward(path));
  if (target) {
    target = m_redactions.forward(*target);
  }
  return target;
}

OpenResult RedactingHost::open_device(std::string_view path) const {
  return m_inner.open_device(m_redactions.backward(path));
}

std::optional<std::uint64_t> RedactingHost::filesystem_size(std::string_view path) const {
  return m_inner.filesystem_size(m_redactions.backward(path));
}

std::string RedactingHost::env_value(std::string_view name, const std::string& value) const {
  if (!has_expected_shape(name, util::trim(value))) {
    return m_redactions.value(value);  // "10.3.0 hunter2" in HSA_OVERRIDE_GFX_VERSION
  }
  std::string result = m_redactions.forward(value);
  if (name.find("VISIBLE_DEVICES") != std::string_view::npos) {
    result = redact_gpu_uuids(result, m_redactions);
  }
  return result;
}

std::optional<std::string> RedactingHost::env(std::string_view name) const {
  auto value = m_inner.env(name);
  if (value) {
    value = env_value(name, *value);
  }
  return value;
}

std::vector<std::pair<std::string, std::string>> RedactingHost::environment() const {
  auto variables = m_inner.environment();
  for (auto& [name, value] : variables) {
    value = env_value(name, value);
  }
  return variables;
}

KernelLog RedactingHost::kernel_log() const {
  KernelLog log = m_inner.kernel_log();
  if (log.lines) {
    for (auto& line : *log.lines) {
      line = m_redactions.forward(redact_kernel_line(line, m_redactions));
    }
  }
  return log;
}

std::optional<RuntimeReport> RedactingHost::runtime_report(const RuntimeRequest& request) const {
  RuntimeRequest real = request;
  for (auto* candidates : {&real.hip, &real.smi, &real.hsa, &real.amdsmi}) {
    for (auto& candidate : *candidates) {
      candidate = m_redactions.backward(candidate);
    }
  }
  auto report = m_inner.runtime_report(real);
  if (!report) {
    return report;
  }
  // Library paths under a home directory, and whatever the libraries printed.
  for (auto* run : {&report->hip, &report->smi, &report->hsa, &report->amdsmi}) {
    if (!*run) {
      continue;
    }
    (*run)->result = m_redactions.forward((*run)->result);
    (*run)->error = m_redactions.forward((*run)->error);
    for (auto* summary : {&(*run)->out, &(*run)->err}) {
      for (auto& line : summary->first_lines) {
        line = m_redactions.forward(line);
      }
    }
  }
  return report;
}

std::optional<SmokeReport> RedactingHost::smoke_report(const SmokeRequest& request) const {
  SmokeRequest real = request;
  for (auto& target : real.targets) {
    target.interpreter = m_redactions.backward(target.interpreter);
    target.site_dir = m_redactions.backward(target.site_dir);
  }
  auto report = m_inner.smoke_report(real);
  if (!report) {
    return report;
  }
  // Interpreter paths under a home directory, and whatever torch printed (paths, user names).
  for (auto& run : report->runs) {
    run.target.interpreter = m_redactions.forward(run.target.interpreter);
    run.target.site_dir = m_redactions.forward(run.target.site_dir);
    run.output = m_redactions.forward(run.output);
    run.error = m_redactions.forward(run.error);
  }
  return report;
}

Identity RedactingHost::identity() const {
  Identity identity = m_inner.identity();
  identity.user = m_redactions.forward(identity.user);
  for (auto& group : identity.groups) {
    group.name = m_redactions.group(group.name);
  }
  return identity;
}

std::optional<std::vector<std::string>> RedactingHost::offload_targets(
    std::string_view path) const {
  return m_inner.offload_targets(m_redactions.backward(path));
}

std::optional<std::vector<std::string>> RedactingHost::needed_libraries(
    std::string_view path) const {
  return m_inner.needed_libraries(m_redactions.backward(path));
}

std::optional<std::string> RedactingHost::local_path(std::string_view path) const {
  return m_inner.local_path(m_redactions.backward(path));
}

}  // namespace rocdoc
