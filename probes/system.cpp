#include "probes/system.h"

#include <algorithm>
#include <limits>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

bool exists(const Host& host, const std::string& path) { return host.stat(path).has_value(); }

std::optional<std::string> detect_container(const Host& host, const std::vector<Mount>& mounts) {
  if (exists(host, "/.dockerenv")) {
    return "docker";
  }
  if (exists(host, "/run/.containerenv")) {
    return "podman";
  }
  if (exists(host, "/.singularity.d")) {
    return "apptainer";
  }
  if (const auto cgroup = host.read_file("/proc/1/cgroup", 64 * 1024)) {
    if (auto runtime = container_from_cgroup(*cgroup)) {
      return runtime;
    }
  }
  if (exists(host, "/var/run/secrets/kubernetes.io/serviceaccount") ||
      exists(host, "/run/secrets/kubernetes.io/serviceaccount")) {
    return "kubernetes";
  }
  return pod_from_mounts(mounts);
}

std::optional<int> count_numa_nodes(const Host& host) {
  const auto names = host.list_dir("/sys/devices/system/node");
  if (!names) {
    return std::nullopt;
  }
  int count = 0;
  for (const auto& name : *names) {
    if (name.size() > 4 && name.rfind("node", 0) == 0 && util::parse_unsigned(name.substr(4))) {
      ++count;
    }
  }
  return count;
}

}  // namespace

std::map<std::string, std::string> parse_os_release(std::string_view content) {
  std::map<std::string, std::string> values;
  for (const auto raw : util::lines(content)) {
    const std::string_view line = util::trim(raw);
    const auto equals = line.find('=');
    if (line.empty() || line.front() == '#' || equals == std::string_view::npos) {
      continue;
    }
    std::string_view value = line.substr(equals + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    values[std::string(line.substr(0, equals))] = std::string(value);
  }
  return values;
}

std::vector<std::string> parse_iommu_params(std::string_view cmdline) {
  std::vector<std::string> params;
  for (const auto word : util::split_whitespace(util::trim(cmdline))) {
    if (word.rfind("iommu=", 0) == 0 || word.rfind("amd_iommu=", 0) == 0 ||
        word.rfind("intel_iommu=", 0) == 0) {
      params.emplace_back(word);
    }
  }
  return params;
}

std::optional<std::string> container_from_cgroup(std::string_view content) {
  const std::string text = util::to_lower(content);
  for (const char* runtime : {"docker", "kubepods", "containerd", "libpod", "podman", "lxc"}) {
    if (text.find(runtime) != std::string::npos) {
      const std::string_view name = runtime;
      if (name == "kubepods") {
        return "kubernetes";
      }
      if (name == "libpod") {
        return "podman";
      }
      return std::string(name);
    }
  }
  return std::nullopt;
}

std::optional<std::string> pod_from_mounts(const std::vector<Mount>& mounts) {
  for (const auto& mount : mounts) {
    if (mount.point.find("/secrets/kubernetes.io/serviceaccount") != std::string::npos) {
      return "kubernetes";
    }
  }
  for (const auto& mount : mounts) {
    if (mount.point != "/" || mount.type != "overlay") {
      continue;
    }
    const auto names = [&](std::string_view text) {
      return std::any_of(mount.options.begin(), mount.options.end(),
                         [&](const std::string& o) { return o.find(text) != std::string::npos; });
    };
    if (names("/var/lib/kubelet/")) {
      return "kubernetes";
    }
    if (names("io.containerd.snapshotter")) {
      return "containerd";
    }
  }
  return std::nullopt;
}

std::map<std::string, std::string> parse_containerenv(std::string_view content) {
  // os-release's KEY="value" form; the values, names a user chose, made printable.
  auto values = parse_os_release(content);
  for (auto& [key, value] : values) {
    value = util::printable(value);
  }
  return values;
}

std::optional<std::uint64_t> tmpfs_size_from_mounts(std::string_view mounts,
                                                    std::string_view mount_point) {
  std::optional<std::uint64_t> size;
  for (const auto line : util::lines(mounts)) {
    const auto fields = util::split_whitespace(line);
    if (fields.size() < 4 || fields[1] != mount_point) {
      continue;
    }
    size.reset();  // the last mount at a point wins
    for (const auto option : util::split(fields[3], ',')) {
      if (option.rfind("size=", 0) != 0) {
        continue;
      }
      std::string_view number = option.substr(5);
      std::uint64_t unit = 1;
      if (!number.empty()) {
        switch (number.back()) {
          case 'k':
          case 'K':
            unit = 1ull << 10;
            break;
          case 'm':
          case 'M':
            unit = 1ull << 20;
            break;
          case 'g':
          case 'G':
            unit = 1ull << 30;
            break;
          case 't':
          case 'T':
            unit = 1ull << 40;
            break;
          case 'p':
          case 'P':
            unit = 1ull << 50;
            break;
          case 'e':
          case 'E':
            unit = 1ull << 60;
            break;
          default:
            break;
        }
        if (unit != 1) {
          number.remove_suffix(1);
        }
      }
      const auto value = util::parse_unsigned(number);
      if (value && *value <= std::numeric_limits<std::uint64_t>::max() / unit) {
        size = *value * unit;  // more than 2^64 bytes is not a size: unreadable, not wrapped
      }
    }
  }
  return size;
}

std::vector<Mount> parse_mounts(std::string_view content) {
  std::vector<Mount> mounts;
  for (const auto line : util::lines(content)) {
    const auto fields = util::split_whitespace(util::trim(line));
    if (fields.size() < 4) {
      continue;
    }
    Mount mount{std::string(fields[0]), std::string(fields[1]), std::string(fields[2]), {}};
    for (const auto option : util::split(fields[3], ',')) {
      mount.options.emplace_back(option);
    }
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

std::optional<Mount> mount_holding(const std::vector<Mount>& mounts, std::string_view path) {
  std::optional<Mount> best;
  for (const auto& mount : mounts) {
    const std::string_view point = mount.point;
    const bool covers = point == "/" || path == point ||
                        (path.size() > point.size() && path.substr(0, point.size()) == point &&
                         path[point.size()] == '/');
    // The longest mount point wins; of equal ones the last, which is mounted over the others.
    if (covers && (!best || point.size() >= best->point.size())) {
      best = mount;
    }
  }
  return best;
}

std::vector<FstabLine> fstab_lines_for(std::string_view content, std::string_view mount_point) {
  std::vector<FstabLine> found;
  int number = 0;
  for (const auto raw : util::lines(content)) {
    ++number;
    const std::string_view line = util::trim(raw);
    const auto fields = util::split_whitespace(line);
    if (!line.empty() && line.front() != '#' && fields.size() >= 2 && fields[1] == mount_point) {
      found.push_back({number, std::string(line)});
    }
  }
  return found;
}

namespace {

/// A mount option that may carry a credential: password=, pass=, credentials=, a secret or a
/// key ("secretfile=", "sse_key="), also inside a value ("opts=password=..." hands it on to a
/// helper), so the whole option is judged, not its first key.
bool is_credential_option(std::string_view option) {
  const std::string key = util::to_lower(option);
  static constexpr std::string_view k_words[] = {"pass", "cred", "secret", "key", "token", "auth"};
  return std::any_of(std::begin(k_words), std::end(k_words),
                     [&](std::string_view word) { return key.find(word) != std::string::npos; });
}

/// A source on another machine (//server/share, host:/export, a URL): it names the server.
bool is_remote_source(std::string_view source) {
  return source.substr(0, 2) == "//" || source.find(':') != std::string_view::npos ||
         source.find('@') != std::string_view::npos;
}

/// A line of a mount table without credential options and remote sources; unchanged (spacing
/// included) when it has neither.
std::string without_credentials(std::string_view line) {
  auto fields = util::split_whitespace(line);
  bool changed = false;
  if (!fields.empty() && is_remote_source(fields[0])) {
    fields[0] = "redacted-remote-source";
    changed = true;
  }
  std::string options;
  if (fields.size() >= 4) {
    std::vector<std::string> kept;
    for (const auto option : util::split(fields[3], ',')) {
      if (is_credential_option(option)) {
        changed = true;
      } else {
        kept.emplace_back(option);
      }
    }
    options = kept.empty() ? "defaults" : util::join(kept, ",");
    fields[3] = options;
  }
  if (!changed) {
    return std::string(line);
  }
  std::vector<std::string> parts(fields.begin(), fields.end());
  return util::join(parts, " ");
}

}  // namespace

std::string mount_table_to_record(std::string_view content, MountTable table) {
  std::string result;
  for (const auto raw : util::lines(content)) {
    const std::string_view line = util::trim(raw);
    const auto fields = util::split_whitespace(line);
    // /dev (kfd's mount, /dev/shm), the root, and a pod's service-account mount point (what
    // tells a pod under a cgroup namespace; its mount line, never the token it holds).
    const bool used =
        !line.empty() && line.front() != '#' && fields.size() >= 2 &&
        (fields[1] == "/dev" || fields[1].substr(0, 5) == "/dev/" ||
         (table == MountTable::proc_mounts &&
          (fields[1] == "/" ||
           fields[1].find("/secrets/kubernetes.io/serviceaccount") != std::string_view::npos)));
    if (used) {
      result += without_credentials(raw);
    }
    // fstab's other lines stay as empty lines, so that the kept ones keep their numbers.
    if (used || table == MountTable::fstab) {
      result += '\n';
    }
  }
  return result;
}

WslKind wsl_from_kernel_release(std::string_view release) {
  const std::string lower = util::to_lower(release);
  if (lower.find("microsoft") == std::string::npos) {
    return WslKind::none;
  }
  if (lower.find("wsl2") != std::string::npos ||
      lower.find("microsoft-standard") != std::string::npos) {
    return WslKind::wsl2;
  }
  return WslKind::wsl1;
}

std::optional<std::uint64_t> mem_total_from_meminfo(std::string_view content) {
  for (const auto line : util::lines(content)) {
    if (line.rfind("MemTotal:", 0) != 0) {
      continue;
    }
    const auto words = util::split_whitespace(util::trim(line.substr(9)));
    if (words.size() != 2 || words[1] != "kB") {
      return std::nullopt;
    }
    const auto kib = util::parse_number<std::uint64_t>(words[0]);
    if (!kib || *kib > std::numeric_limits<std::uint64_t>::max() / 1024) {
      return std::nullopt;
    }
    return *kib * 1024;
  }
  return std::nullopt;
}

namespace {

/// A directory's names, sorted; empty when it is missing (no such class: no device of it).
std::vector<std::string> sorted_listing(const Host& host, const std::string& dir) {
  auto names = host.list_dir(dir).value_or(std::vector<std::string>{});
  check_bound(names.size(), 4096, "entries", dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

SystemFacts probe_system(const ProbeContext& context) {
  const Host& host = context.host;
  SystemFacts facts;
  facts.uname = host.uname();
  if (auto content = host.read_file("/etc/os-release", 64 * 1024)) {
    facts.os_release = parse_os_release(*content);
  } else if (auto fallback = host.read_file("/usr/lib/os-release", 64 * 1024)) {
    facts.os_release = parse_os_release(*fallback);
  }
  if (const auto value = host.read_file("/proc/sys/kernel/numa_balancing", 64)) {
    facts.numa_balancing = util::parse_number<int>(*value);
  }
  facts.numa_nodes = count_numa_nodes(host);
  if (const auto cmdline = host.read_file("/proc/cmdline", 64 * 1024)) {
    facts.cmdline = std::string(util::trim(*cmdline));
    facts.iommu_params = parse_iommu_params(facts.cmdline);
  }
  const auto mounts = host.read_file("/proc/mounts", 1 << 20);
  const std::vector<Mount> mount_table = mounts ? parse_mounts(*mounts) : std::vector<Mount>{};
  facts.container = detect_container(host, mount_table);
  if (facts.container == "podman") {
    if (const auto env = host.read_file("/run/.containerenv", 64 * 1024)) {
      const auto values = parse_containerenv(*env);
      if (const auto name = values.find("name"); name != values.end() && !name->second.empty()) {
        facts.container_name = name->second;
      }
    }
    facts.toolbox = exists(host, "/run/.toolboxenv");  // toolbx marks its containers so
  }
  facts.dxg_present = exists(host, "/dev/dxg");
  facts.wsl = wsl_from_kernel_release(facts.uname.release);
  if (facts.wsl == WslKind::none && facts.dxg_present) {
    facts.wsl = WslKind::wsl2;  // a custom WSL2 kernel without "microsoft" in its name
  }
  if (mounts) {
    facts.kfd_mount = mount_holding(mount_table, "/dev/kfd");
  }
  facts.grub_defaults = exists(host, "/etc/default/grub");
  facts.kernel_cmdline_file = exists(host, "/etc/kernel/cmdline");
  // RCCL's interface and HCA settings are judged against what exists: listed only when set.
  if (host.env("NCCL_SOCKET_IFNAME")) {
    facts.net_interfaces = sorted_listing(host, "/sys/class/net");
  }
  if (host.env("NCCL_IB_HCA")) {
    facts.infiniband_devices = sorted_listing(host, "/sys/class/infiniband");
  }
  if (const auto fstab = host.read_file("/etc/fstab", 256 * 1024)) {
    facts.fstab_dev = fstab_lines_for(*fstab, "/dev");
  }
  if (const auto meminfo = host.read_file("/proc/meminfo", 64 * 1024)) {
    facts.mem_total = mem_total_from_meminfo(*meminfo);
  }
  if (mounts) {
    facts.shm_bytes = tmpfs_size_from_mounts(*mounts, "/dev/shm");
  }
  if (!facts.shm_bytes) {
    facts.shm_bytes = host.filesystem_size("/dev/shm");
  }
  return facts;
}

}  // namespace rocdoc
