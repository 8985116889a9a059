// SnapshotHost: a snapshot directory (or an archive read into memory) answered as the machine,
// every path resolved inside its root/. Its manifest is parsed in snapshot_manifest.cpp.
#include "src/hosts/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>

#include "rocdoc/env_allowlist.h"
#include "src/hosts/live.h"
#include "src/hosts/path_in_root.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_pci_devices = "/sys/bus/pci/devices/";

std::string manifest_read_problem(const std::string& error) {
  if (error == "ENOENT") {
    return "no such file";
  }
  if (error == "ELOOP") {
    return "a symbolic link; the manifest must be a regular file";
  }
  if (error == "EINVAL" || error == "EISDIR") {
    return "not a regular file";
  }
  return error;
}

/// root/ itself must be a directory: a link there would take every read outside the snapshot.
util::UniqueFd open_root(int snapshot, const std::string& dir) {
  util::UniqueFd root(::openat(snapshot, "root", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.valid() || errno == ENOENT) {
    return root;  // a snapshot without root/ holds only its manifest
  }
  struct ::stat st {};
  if (::fstatat(snapshot, "root", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    throw SnapshotError(dir +
                        "/root: is a symbolic link; a snapshot's root/ must be a directory "
                        "(rocdoc never reads outside a snapshot)");
  }
  throw SnapshotError(dir + "/root: not a directory (" + errno_name(errno) + ")");
}

}  // namespace

SnapshotHost::SnapshotHost(std::string dir) : m_dir(std::move(dir)) {
  while (m_dir.size() > 1 && m_dir.back() == '/') {
    m_dir.pop_back();
  }
  util::UniqueFd snapshot(::open(m_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!snapshot.valid()) {
    throw SnapshotError(m_dir +
                        (errno == ENOTDIR
                             ? ": not a directory (--root takes a snapshot directory)"
                             : ": cannot open snapshot: " + std::string(std::strerror(errno))));
  }
  m_root = std::make_unique<SnapshotRoot>(open_root(snapshot.get(), m_dir), m_dir + "/root");
  const SnapshotRoot snapshot_dir(std::move(snapshot), m_dir);
  const std::string manifest_path = m_dir + "/" + std::string(k_manifest_name);
  const FileRead text =
      snapshot_dir.read_regular("/" + std::string(k_manifest_name), k_max_manifest_bytes + 1);
  if (!text.content) {
    throw SnapshotError(manifest_path + ": cannot read the snapshot manifest: " +
                        manifest_read_problem(text.error));
  }
  if (text.content->size() > k_max_manifest_bytes) {
    throw SnapshotError(manifest_path + ": larger than " +
                        std::to_string(k_max_manifest_bytes >> 20) +
                        " MiB, more than rocdoc reads; a real snapshot's manifest is a few KB");
  }
  m_manifest = parse_snapshot_manifest(*text.content, manifest_path);
  refuse_empty();
}

SnapshotHost::SnapshotHost(std::string name, std::string_view manifest_text,
                           std::unique_ptr<SnapshotTree> root)
    : m_dir(std::move(name)), m_root(std::move(root)), m_on_disk(false) {
  if (manifest_text.size() > k_max_manifest_bytes) {
    throw SnapshotError(m_dir + ": " + std::string(k_manifest_name) + " is larger than " +
                        std::to_string(k_max_manifest_bytes >> 20) +
                        " MiB, more than rocdoc reads; a real snapshot's manifest is a few KB");
  }
  m_manifest = parse_snapshot_manifest(manifest_text, m_dir + ": " + std::string(k_manifest_name));
  refuse_empty();
}

void SnapshotHost::refuse_empty() const {
  const SnapshotManifest& m = m_manifest;
  const bool described = !m.uname.sysname.empty() || !m.uname.release.empty() ||
                         !m.identity.user.empty() || m.identity.uid != 0 ||
                         !m.identity.groups.empty() || !m.env.empty() || !m.nodes.empty() ||
                         !m.links.empty() || !m.pci_paths.empty();
  if (described) {
    return;
  }
  const auto files = m_root->list("/", k_max_directory_entries);
  if (files && !files->empty()) {
    return;
  }
  throw SnapshotError(m_dir +
                      ": this snapshot holds nothing (no uname, identity, environment, device "
                      "nodes or files under root/): it is not a capture of a machine; `rocdoc "
                      "snapshot` makes one");
}

std::optional<std::string> SnapshotHost::link_target(const std::string& inside) const {
  if (const auto it = m_manifest.links.find(inside); it != m_manifest.links.end()) {
    return it->second;
  }
  if (const auto it = m_link_cache.find(inside); it != m_link_cache.end()) {
    return it->second;
  }
  auto target = m_root->read_link(inside);
  m_link_cache.emplace(inside, target);
  return target;
}

std::optional<std::string> SnapshotHost::resolve(std::string_view path,
                                                 FinalLink final_link) const {
  return resolve_in_root(
      path, [this](const std::string& inside) { return link_target(inside); }, final_link);
}

FileRead SnapshotHost::read_file_or_error(std::string_view path, std::size_t max_bytes) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return {std::nullopt, "ENOENT"};
  }
  if (const auto it = m_manifest.read_errors.find(*inside); it != m_manifest.read_errors.end()) {
    return {std::nullopt, it->second};
  }
  if (m_manifest.binaries.count(*inside) != 0 || m_manifest.nodes.count(*inside) != 0) {
    return {std::nullopt, "EACCES"};  // present, but its content was not captured
  }
  // Every link was resolved inside the root; what is left must be a plain file.
  return m_root->read_regular(*inside, max_bytes);
}

std::optional<std::vector<std::string>> SnapshotHost::list_dir(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  std::set<std::string> names;
  bool exists = false;
  if (auto entries = m_root->list(*inside, k_max_directory_entries)) {
    exists = true;
    names.insert(entries->begin(), entries->end());
  }
  // A manifest entry implies the directories above it: /sys/.../nodes/3/properties in
  // read_errors makes 3 appear in the listing of nodes/.
  const std::string prefix = *inside == "/" ? "/" : *inside + "/";
  const auto add_children = [&](const auto& map) {
    for (auto it = map.lower_bound(prefix); it != map.end() && it->first.rfind(prefix, 0) == 0;
         ++it) {
      const std::string rest = it->first.substr(prefix.size());
      if (!rest.empty()) {
        names.insert(rest.substr(0, rest.find('/')));
        exists = true;
      }
    }
  };
  add_children(m_manifest.nodes);
  add_children(m_manifest.links);
  add_children(m_manifest.binaries);
  add_children(m_manifest.read_errors);
  add_children(m_manifest.stats);
  if (!exists) {
    return std::nullopt;
  }
  return std::vector<std::string>(names.begin(), names.end());
}

std::optional<FileStat> SnapshotHost::stat(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  if (const auto it = m_manifest.stats.find(*inside); it != m_manifest.stats.end()) {
    return it->second;
  }
  if (const auto it = m_manifest.nodes.find(*inside); it != m_manifest.nodes.end()) {
    return it->second.stat;
  }
  if (const auto it = m_manifest.binaries.find(*inside); it != m_manifest.binaries.end()) {
    FileStat result;
    result.type = FileType::regular;
    result.mode = 0644;
    result.size = it->second.size;
    return result;
  }
  if (m_manifest.read_errors.count(*inside) != 0) {
    FileStat result;  // sysfs files: present, readable by mode, refused on read
    result.type = FileType::regular;
    result.mode = 0444;
    return result;
  }
  const auto st = m_root->lstat(*inside);
  if (!st) {
    return std::nullopt;
  }
  FileStat result = file_stat_from(*st);
  result.owner_known = false;  // whoever checked the tree out owns it, not the machine's users
  return result;
}

std::optional<std::string> SnapshotHost::read_link(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::keep);
  if (!inside) {
    return std::nullopt;
  }
  if (inside->rfind(k_pci_devices, 0) == 0) {
    const auto it = m_manifest.pci_paths.find(inside->substr(k_pci_devices.size()));
    if (it != m_manifest.pci_paths.end()) {
      return it->second;
    }
  }
  return link_target(*inside);
}

OpenResult SnapshotHost::open_device(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (inside) {
    if (const auto it = m_manifest.nodes.find(*inside); it != m_manifest.nodes.end()) {
      return it->second.open;
    }
  }
  return {OpenAccess::none, "ENOENT"};
}

std::optional<std::uint64_t> SnapshotHost::filesystem_size(std::string_view path) const {
  const auto it = m_manifest.filesystems.find(normalize_absolute(path));
  if (it == m_manifest.filesystems.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::optional<std::string> SnapshotHost::env(std::string_view name) const {
  if (!is_allowed_env(name)) {
    return std::nullopt;
  }
  const auto it = m_manifest.env.find(std::string(name));
  if (it == m_manifest.env.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<std::pair<std::string, std::string>> SnapshotHost::environment() const {
  std::vector<std::pair<std::string, std::string>> result;
  for (const auto& [name, value] : m_manifest.env) {
    if (!is_tool_env(name)) {
      result.emplace_back(name, value);
    }
  }
  return result;
}

std::optional<std::vector<std::string>> SnapshotHost::offload_targets(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  const auto it = m_manifest.binaries.find(*inside);
  if (it == m_manifest.binaries.end() || it->second.gfx_targets.empty()) {
    return std::nullopt;
  }
  return it->second.gfx_targets;
}

std::optional<std::vector<std::string>> SnapshotHost::needed_libraries(
    std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  const auto it = m_manifest.binaries.find(*inside);
  return it == m_manifest.binaries.end() ? std::nullopt : it->second.needed;
}

std::optional<std::string> SnapshotHost::local_path(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  if (!m_on_disk) {
    return std::nullopt;  // an archive read into memory has no directory to point at
  }
  return m_dir + "/root" + *inside;  // root/ was checked to be a directory, not a link
}

}  // namespace rocdoc
