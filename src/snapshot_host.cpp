#include "src/snapshot_host.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "rocdoc/env_allowlist.h"
#include "src/live_host.h"
#include "src/path_in_root.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

using nlohmann::json;

constexpr std::string_view k_pci_devices = "/sys/bus/pci/devices/";

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw SnapshotError(file + ": " + what);
}

const json* member(const json& object, const char* key, json::value_t type, const std::string& file,
                   const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return nullptr;
  }
  const bool number_ok = type == json::value_t::number_unsigned && it->is_number_unsigned();
  if (it->type() != type && !number_ok) {
    bad(file, where + "\"" + key + "\" has the wrong type (" + it->type_name() + ")");
  }
  return &*it;
}

std::string string_member(const json& object, const char* key, const std::string& file,
                          const std::string& where) {
  const json* value = member(object, key, json::value_t::string, file, where);
  return value != nullptr ? value->get<std::string>() : std::string();
}

std::uint32_t number_member(const json& object, const char* key, const std::string& file,
                            const std::string& where) {
  const json* value = member(object, key, json::value_t::number_unsigned, file, where);
  return value != nullptr ? value->get<std::uint32_t>() : 0;
}

FileType node_type(const std::string& type, const std::string& file, const std::string& where) {
  if (type == "char") {
    return FileType::char_device;
  }
  if (type == "block") {
    return FileType::block_device;
  }
  if (type == "dir") {
    return FileType::directory;
  }
  if (type == "file") {
    return FileType::regular;
  }
  bad(file, where + "\"type\" must be char, block, dir or file, not \"" + type + "\"");
}

OpenAccess node_access(const std::string& access, const std::string& file,
                       const std::string& where) {
  if (access == "rw") {
    return OpenAccess::read_write;
  }
  if (access == "r") {
    return OpenAccess::read_only;
  }
  if (access == "w") {
    return OpenAccess::write_only;
  }
  if (access == "none" || access.empty()) {
    return OpenAccess::none;
  }
  bad(file, where + "\"access\" must be rw, r, w or none, not \"" + access + "\"");
}

SnapshotNode parse_node(const json& node, const std::string& file, const std::string& where) {
  if (!node.is_object()) {
    bad(file, where + "must be an object");
  }
  SnapshotNode result;
  result.stat.type = node_type(string_member(node, "type", file, where), file, where);
  const std::string mode = string_member(node, "mode", file, where);
  const auto mode_value = util::parse_unsigned(mode.empty() ? "0" : mode, 8);
  if (!mode_value || *mode_value > 07777) {
    bad(file, where + "\"mode\" must be an octal string such as \"0660\", not \"" + mode + "\"");
  }
  result.stat.mode = static_cast<std::uint32_t>(*mode_value);
  result.stat.uid = number_member(node, "uid", file, where);
  result.stat.gid = number_member(node, "gid", file, where);
  if (node.contains("major")) {
    result.stat.major = number_member(node, "major", file, where);
  }
  if (node.contains("minor")) {
    result.stat.minor = number_member(node, "minor", file, where);
  }
  result.open.access = node_access(string_member(node, "access", file, where), file, where);
  result.open.error = string_member(node, "errno", file, where);
  if (result.open.access != OpenAccess::read_write && result.open.error.empty()) {
    result.open.error = "EACCES";
  }
  return result;
}

std::map<std::string, std::string> string_map(const json& root, const char* key,
                                              const std::string& file) {
  std::map<std::string, std::string> result;
  const json* object = member(root, key, json::value_t::object, file, "");
  if (object == nullptr) {
    return result;
  }
  for (const auto& [name, value] : object->items()) {
    if (!value.is_string()) {
      bad(file, std::string("\"") + key + "\"." + name + " must be a string");
    }
    result[name] = value.get<std::string>();
  }
  return result;
}

}  // namespace

SnapshotManifest parse_snapshot_manifest(std::string_view text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    bad(file, std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object()) {
    bad(file, "must hold a JSON object");
  }
  const auto format = root.find("format");
  if (format == root.end()) {
    bad(file, "no \"format\" key; expected \"format\": \"" + std::string(k_snapshot_format) + "\"");
  }
  if (!format->is_string() || format->get<std::string>() != k_snapshot_format) {
    bad(file, "\"format\" is " + format->dump() + ", expected \"" + std::string(k_snapshot_format) +
                  "\" (this rocdoc reads snapshot format version 1)");
  }
  SnapshotManifest manifest;
  manifest.note = string_member(root, "note", file, "");
  if (const json* uname = member(root, "uname", json::value_t::object, file, "")) {
    manifest.uname = {string_member(*uname, "sysname", file, "uname."),
                      string_member(*uname, "release", file, "uname."),
                      string_member(*uname, "version", file, "uname."),
                      string_member(*uname, "machine", file, "uname.")};
  }
  if (const json* identity = member(root, "identity", json::value_t::object, file, "")) {
    manifest.identity.user = string_member(*identity, "user", file, "identity.");
    manifest.identity.uid = number_member(*identity, "uid", file, "identity.");
    manifest.identity.gid = number_member(*identity, "gid", file, "identity.");
    if (const json* groups = member(*identity, "groups", json::value_t::array, file, "identity.")) {
      for (const auto& group : *groups) {
        if (!group.is_object()) {
          bad(file, "identity.groups entries must be objects {\"name\", \"gid\"}");
        }
        manifest.identity.groups.push_back({string_member(group, "name", file, "identity.groups."),
                                            number_member(group, "gid", file, "identity.groups.")});
      }
    }
  }
  for (auto& [name, value] : string_map(root, "env", file)) {
    if (is_allowed_env(name)) {
      manifest.env[name] = value;
    }
  }
  if (const json* nodes = member(root, "nodes", json::value_t::object, file, "")) {
    for (const auto& [path, node] : nodes->items()) {
      manifest.nodes[normalize_absolute(path)] = parse_node(node, file, "nodes[\"" + path + "\"].");
    }
  }
  for (auto& [path, target] : string_map(root, "links", file)) {
    manifest.links[normalize_absolute(path)] = target;
  }
  manifest.pci_paths = string_map(root, "pci_paths", file);
  for (auto& [path, error] : string_map(root, "read_errors", file)) {
    if (error.size() < 2 || error.front() != 'E' ||
        error.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 1) != std::string::npos) {
      bad(file, "\"read_errors\"[\"" + path +
                    "\"] must be an errno name such as \"EPERM\", not \"" + error + "\"");
    }
    manifest.read_errors[normalize_absolute(path)] = error;
  }
  if (const json* binaries = member(root, "binaries", json::value_t::object, file, "")) {
    for (const auto& [path, binary] : binaries->items()) {
      const std::string where = "binaries[\"" + path + "\"].";
      if (!binary.is_object()) {
        bad(file, where + " must be an object");
      }
      SnapshotBinary entry;
      if (const json* size = member(binary, "size", json::value_t::number_unsigned, file, where)) {
        entry.size = size->get<std::uint64_t>();
      }
      if (const json* targets = member(binary, "gfx_targets", json::value_t::array, file, where)) {
        for (const auto& target : *targets) {
          if (!target.is_string()) {
            bad(file, where + "gfx_targets must hold strings");
          }
          entry.gfx_targets.push_back(target.get<std::string>());
        }
      }
      manifest.binaries[normalize_absolute(path)] = entry;
    }
  }
  return manifest;
}

SnapshotHost::SnapshotHost(std::string dir) : m_dir(std::move(dir)) {
  while (m_dir.size() > 1 && m_dir.back() == '/') {
    m_dir.pop_back();
  }
  struct stat st {};
  if (::stat(m_dir.c_str(), &st) != 0) {
    throw SnapshotError(m_dir + ": cannot open snapshot: " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw SnapshotError(m_dir + ": not a directory (--root takes a snapshot directory)");
  }
  const std::string manifest_path = m_dir + "/" + std::string(k_manifest_name);
  const auto text = read_local_file(manifest_path, 64u << 20);
  if (!text) {
    throw SnapshotError(manifest_path +
                        ": cannot read the snapshot manifest: " + std::strerror(errno));
  }
  m_manifest = parse_snapshot_manifest(*text, manifest_path);
  m_root = m_dir + "/root";
}

std::optional<std::string> SnapshotHost::link_target(const std::string& inside) const {
  if (const auto it = m_manifest.links.find(inside); it != m_manifest.links.end()) {
    return it->second;
  }
  struct stat st {};
  const std::string real = m_root + inside;
  if (::lstat(real.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
    return std::nullopt;
  }
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink(real.c_str(), buffer.data(), buffer.size() - 1);
  if (n < 0) {
    return std::nullopt;
  }
  return std::string(buffer.data(), static_cast<std::size_t>(n));
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
  struct stat st {};
  const std::string real = m_root + *inside;
  // Every link was resolved inside the root; what is left must be a plain file.
  if (::lstat(real.c_str(), &st) != 0) {
    return {std::nullopt, "ENOENT"};
  }
  if (!S_ISREG(st.st_mode)) {
    return {std::nullopt, S_ISDIR(st.st_mode) ? "EISDIR" : "EINVAL"};
  }
  return read_local_file_or_error(real, max_bytes);
}

std::optional<std::vector<std::string>> SnapshotHost::list_dir(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  std::set<std::string> names;
  bool exists = false;
  struct stat st {};
  const std::string real = m_root + *inside;
  if (::lstat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    exists = true;
    if (auto entries = list_local_dir(real)) {
      names.insert(entries->begin(), entries->end());
    }
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
  struct stat st {};
  if (::lstat((m_root + *inside).c_str(), &st) != 0) {
    return std::nullopt;
  }
  return file_stat_from(st);
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

std::optional<std::uint64_t> SnapshotHost::filesystem_size(std::string_view) const {
  return std::nullopt;  // a snapshot records sizes through /proc/mounts
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

std::optional<std::string> SnapshotHost::local_path(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  return m_root + *inside;
}

}  // namespace rocdoc
