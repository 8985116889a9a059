#include "src/hosts/recording.h"

#include "probes/packages.h"
#include "probes/system.h"

namespace rocdoc {

namespace {

/// What a snapshot holds of a file the probes read: the file, but of the mount tables only the
/// lines the probes use, without credentials (/etc/fstab may hold a CIFS password), and of the
/// package databases only what the packages probe reads (its packages' stanzas and pages).
std::string what_to_record(std::string_view path, const std::string& content) {
  if (path == "/var/lib/dpkg/status") {
    return dpkg_status_to_record(content);
  }
  if (path.size() > 13 && path.substr(path.size() - 13) == "/rpmdb.sqlite") {
    return rpmdb_to_record(content);
  }
  if (path == "/etc/fstab") {
    return mount_table_to_record(content, MountTable::fstab);
  }
  // /proc/mounts resolves to /proc/PID/mounts on a live machine.
  const auto slash = path.find('/', 6);
  if (path.substr(0, 6) == "/proc/" &&
      (path == "/proc/mounts" ||
       path.substr(slash == std::string_view::npos ? 0 : slash) == "/mounts")) {
    return mount_table_to_record(content, MountTable::proc_mounts);
  }
  return content;
}

}  // namespace

std::optional<std::string> RecordingHost::resolve(std::string_view path,
                                                  FinalLink final_link) const {
  return resolve_in_root(
      path,
      [this](const std::string& inside) {
        auto cached = m_link_cache.find(inside);
        if (cached == m_link_cache.end()) {
          cached = m_link_cache.emplace(inside, m_inner.read_link(inside)).first;
          if (cached->second) {
            m_recording.links[inside] = *cached->second;
          }
        }
        return cached->second;
      },
      final_link);
}

FileRead RecordingHost::read_file_or_error(std::string_view path, std::size_t max_bytes) const {
  FileRead read = m_inner.read_file_or_error(path, max_bytes);
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return read;
  }
  if (read.content) {
    std::string& kept = m_recording.files[*inside];
    std::string recorded = what_to_record(*inside, *read.content);
    if (recorded.size() >= kept.size()) {
      kept = std::move(recorded);  // the longest read wins: a shorter one is its prefix
    }
  } else if (read.error != "ENOENT" && !read.error.empty()) {
    m_recording.read_errors[*inside] = read.error;
  }
  return read;
}

std::optional<std::vector<std::string>> RecordingHost::list_dir(std::string_view path) const {
  auto names = m_inner.list_dir(path);
  if (names) {
    if (const auto inside = resolve(path, FinalLink::follow)) {
      m_recording.dirs[*inside].insert(names->begin(), names->end());
    }
  }
  return names;
}

std::optional<FileStat> RecordingHost::stat(std::string_view path) const {
  auto result = m_inner.stat(path);
  if (result) {
    if (const auto inside = resolve(path, FinalLink::follow)) {
      m_recording.stats[*inside] = *result;
    }
  }
  return result;
}

std::optional<std::string> RecordingHost::read_link(std::string_view path) const {
  auto target = m_inner.read_link(path);
  if (const auto inside = resolve(path, FinalLink::keep); inside && target) {
    m_recording.links[*inside] = *target;
  }
  return target;
}

OpenResult RecordingHost::open_device(std::string_view path) const {
  OpenResult result = m_inner.open_device(path);
  const auto stat = m_inner.stat(path);
  const auto inside = resolve(path, FinalLink::follow);
  if (stat && inside) {
    m_recording.nodes[*inside] = SnapshotNode{*stat, result};
  }
  return result;
}

std::optional<std::uint64_t> RecordingHost::filesystem_size(std::string_view path) const {
  auto size = m_inner.filesystem_size(path);
  if (size) {
    m_recording.filesystems[normalize_absolute(path)] = *size;
  }
  return size;
}

std::optional<std::string> RecordingHost::env(std::string_view name) const {
  auto value = m_inner.env(name);
  if (value) {
    m_recording.env[std::string(name)] = *value;
  }
  return value;
}

std::vector<std::pair<std::string, std::string>> RecordingHost::environment() const {
  auto variables = m_inner.environment();
  for (const auto& [name, value] : variables) {
    m_recording.env[name] = value;
  }
  return variables;
}

Identity RecordingHost::identity() const {
  if (!m_recording.identity) {
    m_recording.identity = m_inner.identity();
  }
  return *m_recording.identity;
}

KernelLog RecordingHost::kernel_log() const {
  if (!m_recording.kernel_log) {
    m_recording.kernel_log = m_inner.kernel_log();
  }
  return *m_recording.kernel_log;
}

std::optional<RuntimeReport> RecordingHost::runtime_report(const RuntimeRequest& request) const {
  auto report = m_inner.runtime_report(request);
  if (report) {
    m_recording.runtime = report;
  }
  return report;
}

std::optional<SmokeReport> RecordingHost::smoke_report(const SmokeRequest& request) const {
  auto report = m_inner.smoke_report(request);
  if (report) {
    m_recording.smoke = report;
  }
  return report;
}

Uname RecordingHost::uname() const {
  if (!m_recording.uname) {
    m_recording.uname = m_inner.uname();
  }
  return *m_recording.uname;
}

SnapshotBinary* RecordingHost::binary_entry(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return nullptr;
  }
  const auto stat = m_inner.stat(path);
  SnapshotBinary& binary = m_recording.binaries[*inside];
  binary.size = stat ? stat->size : 0;
  return &binary;
}

std::optional<std::vector<std::string>> RecordingHost::offload_targets(
    std::string_view path) const {
  auto targets = m_inner.offload_targets(path);
  // A library without GPU code (libc10.so) is not recorded: it reads back as unknown, which
  // the probes treat the same as none.
  if (targets && !targets->empty()) {
    if (SnapshotBinary* binary = binary_entry(path)) {
      binary->gfx_targets = *targets;
    }
  }
  return targets;
}

std::optional<std::vector<std::string>> RecordingHost::needed_libraries(
    std::string_view path) const {
  auto needed = m_inner.needed_libraries(path);
  if (needed) {
    if (SnapshotBinary* binary = binary_entry(path)) {
      binary->needed = *needed;
    }
  }
  return needed;
}

}  // namespace rocdoc
