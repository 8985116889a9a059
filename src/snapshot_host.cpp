#include "src/snapshot_host.h"

#include <fcntl.h>
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
#include "src/runtime/runtime_json.h"
#include "src/util/bounded_json.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

using nlohmann::json;

constexpr std::string_view k_pci_devices = "/sys/bus/pci/devices/";

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw SnapshotError(file + ": " + what);
}

/// A key or value of the manifest, quoted short and printable for an error message.
std::string in_quotes(std::string_view text) { return "\"" + util::excerpt(text) + "\""; }

/// Parses with a nesting and a value limit, both checked while the text is read and in linear
/// time: a deep document is no manifest, and printing or walking one recursively would exhaust
/// the stack; an array of millions of empty objects is no manifest either.
json parse_bounded(std::string_view text, const std::string& file) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    bad(file, "not valid JSON: a NUL byte at offset " + std::to_string(nul));
  }
  const util::JsonLimits limits{k_max_manifest_depth, k_max_manifest_values};
  auto parsed = util::parse_json_bounded(text, limits);
  switch (parsed.refused) {
    case util::JsonRefusal::none:
      return std::move(parsed.value);
    case util::JsonRefusal::too_deep:
      bad(file, "nested deeper than " + std::to_string(k_max_manifest_depth) +
                    " levels; a snapshot manifest is at most 4 deep");
    case util::JsonRefusal::too_many_values:
      bad(file, "holds more than " + std::to_string(k_max_manifest_values) +
                    " JSON values; a real machine's snapshot holds a few thousand");
    case util::JsonRefusal::not_json:
      break;
  }
  bad(file, "not valid JSON: " + parsed.syntax_error);
}

/// Paths and link targets are bounded as the kernel bounds them.
const std::string& checked_path(const std::string& path, const std::string& file,
                                const std::string& where) {
  if (path.size() > k_max_manifest_path) {
    bad(file, where + " is " + std::to_string(path.size()) + " bytes long; a path is at most " +
                  std::to_string(k_max_manifest_path) + " (PATH_MAX)");
  }
  return path;
}

const json* member(const json& object, const char* key, json::value_t type, const std::string& file,
                   const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return nullptr;
  }
  if (type == json::value_t::number_unsigned && it->is_number()) {
    if (!it->is_number_unsigned()) {
      bad(file, where + "\"" + key + "\" must be a whole number from 0 to 4294967295, not " +
                    util::excerpt(it->dump(), 30));
    }
    return &*it;
  }
  if (it->type() != type) {
    bad(file, where + "\"" + key + "\" has the wrong type (" + it->type_name() + ")");
  }
  return &*it;
}

std::string string_member(const json& object, const char* key, const std::string& file,
                          const std::string& where) {
  const json* value = member(object, key, json::value_t::string, file, where);
  return value != nullptr ? value->get<std::string>() : std::string();
}

/// A uid, gid or device number: 32 bits on Linux. A larger value is refused, never wrapped
/// (2^32 would become uid 0, root).
std::uint32_t number_member(const json& object, const char* key, const std::string& file,
                            const std::string& where) {
  const json* value = member(object, key, json::value_t::number_unsigned, file, where);
  if (value == nullptr) {
    return 0;
  }
  const auto number = value->get<std::uint64_t>();
  if (number > 0xffffffffu) {
    bad(file, where + "\"" + key + "\" is " + std::to_string(number) +
                  ", out of range (a 32-bit id or device number)");
  }
  return static_cast<std::uint32_t>(number);
}

bool is_errno_name(std::string_view name) {
  return name.size() >= 2 && name.size() <= 16 && name.front() == 'E' &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 1) == std::string::npos;
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
  if (type == "other") {
    return FileType::other;  // `stats` only: a FIFO or a socket
  }
  bad(file, where + "\"type\" must be char, block, dir or file, not " + in_quotes(type));
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
  bad(file, where + "\"access\" must be rw, r, w or none, not " + in_quotes(access));
}

/// The stat part of a `nodes` or `stats` entry.
FileStat parse_stat(const json& node, const std::string& file, const std::string& where) {
  if (!node.is_object()) {
    bad(file, where + "must be an object");
  }
  FileStat stat;
  stat.type = node_type(string_member(node, "type", file, where), file, where);
  const std::string mode = string_member(node, "mode", file, where);
  const auto mode_value = util::parse_unsigned(mode.empty() ? "0" : mode, 8);
  if (!mode_value || *mode_value > 07777) {
    bad(file, where + "\"mode\" must be an octal string such as \"0660\", not " + in_quotes(mode));
  }
  stat.mode = static_cast<std::uint32_t>(*mode_value);
  stat.uid = number_member(node, "uid", file, where);
  stat.gid = number_member(node, "gid", file, where);
  if (node.contains("major")) {
    stat.major = number_member(node, "major", file, where);
  }
  if (node.contains("minor")) {
    stat.minor = number_member(node, "minor", file, where);
  }
  if (const json* size = member(node, "size", json::value_t::number_unsigned, file, where)) {
    stat.size = size->get<std::uint64_t>();
  }
  return stat;
}

SnapshotNode parse_node(const json& node, const std::string& file, const std::string& where) {
  SnapshotNode result;
  result.stat = parse_stat(node, file, where);
  result.open.access = node_access(string_member(node, "access", file, where), file, where);
  result.open.error = string_member(node, "errno", file, where);
  if (!result.open.error.empty() && !is_errno_name(result.open.error)) {
    bad(file, where + "\"errno\" must be an errno name such as \"EACCES\", not " +
                  in_quotes(result.open.error));
  }
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
      bad(file, std::string("\"") + key + "\"[" + in_quotes(name) + "] must be a string");
    }
    result[name] = value.get<std::string>();
  }
  return result;
}

}  // namespace

namespace {

/// A value in a message: a string's text, or the JSON of anything else, short and printable.
std::string describe(const json& value) {
  if (value.is_string()) {
    return in_quotes(value.get_ref<const std::string&>());
  }
  if (value.is_structured()) {
    return std::string("a JSON ") + value.type_name();  // never dump() hostile nesting
  }
  return util::excerpt(value.dump(), 30);
}

void count_entries(std::size_t& entries, std::size_t more, const std::string& file) {
  entries += more;
  if (entries > k_max_manifest_entries) {
    bad(file, "holds more than " + std::to_string(k_max_manifest_entries) +
                  " entries (nodes, links, binaries, read_errors, pci_paths, env, groups), more "
                  "than rocdoc reads; a real machine's snapshot holds a few hundred");
  }
}

void parse_identity(const json& identity, SnapshotManifest& manifest, std::size_t& entries,
                    const std::string& file) {
  manifest.identity.user = string_member(identity, "user", file, "identity.");
  manifest.identity.uid = number_member(identity, "uid", file, "identity.");
  manifest.identity.gid = number_member(identity, "gid", file, "identity.");
  const json* groups = member(identity, "groups", json::value_t::array, file, "identity.");
  if (groups == nullptr) {
    return;
  }
  count_entries(entries, groups->size(), file);
  for (const auto& group : *groups) {
    if (!group.is_object()) {
      bad(file, "identity.groups entries must be objects {\"name\", \"gid\"}");
    }
    manifest.identity.groups.push_back({string_member(group, "name", file, "identity.groups."),
                                        number_member(group, "gid", file, "identity.groups.")});
  }
}

void parse_binaries(const json& binaries, SnapshotManifest& manifest, const std::string& file) {
  for (const auto& [path, binary] : binaries.items()) {
    const std::string where = "binaries[" + in_quotes(path) + "].";
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
    manifest.binaries[normalize_absolute(checked_path(path, file, "binaries key"))] = entry;
  }
}

}  // namespace

SnapshotManifest parse_snapshot_manifest(std::string_view text, const std::string& file) {
  const json root = parse_bounded(text, file);
  if (!root.is_object()) {
    bad(file, "must hold a JSON object");
  }
  const auto format = root.find("format");
  if (format == root.end()) {
    bad(file, "no \"format\" key; expected \"format\": \"" + std::string(k_snapshot_format) + "\"");
  }
  if (!format->is_string() || format->get<std::string>() != k_snapshot_format) {
    bad(file, "\"format\" is " + describe(*format) + ", expected \"" +
                  std::string(k_snapshot_format) +
                  "\" (this rocdoc reads snapshot format version 1)");
  }
  SnapshotManifest manifest;
  std::size_t entries = 0;
  manifest.note = string_member(root, "note", file, "");
  manifest.created = string_member(root, "created", file, "");
  manifest.rocdoc_version = string_member(root, "rocdoc_version", file, "");
  manifest.rules_revision = string_member(root, "rules_revision", file, "");
  if (const json* redacted = member(root, "redacted", json::value_t::boolean, file, "")) {
    manifest.redacted = redacted->get<bool>();
  }
  if (const json* uname = member(root, "uname", json::value_t::object, file, "")) {
    manifest.uname = {string_member(*uname, "sysname", file, "uname."),
                      string_member(*uname, "release", file, "uname."),
                      string_member(*uname, "version", file, "uname."),
                      string_member(*uname, "machine", file, "uname.")};
  }
  if (const json* identity = member(root, "identity", json::value_t::object, file, "")) {
    parse_identity(*identity, manifest, entries, file);
  }
  for (const char* key :
       {"env", "nodes", "links", "pci_paths", "read_errors", "binaries", "stats", "filesystems"}) {
    if (const auto it = root.find(key); it != root.end() && it->is_object()) {
      count_entries(entries, it->size(), file);
    }
  }
  for (auto& [name, value] : string_map(root, "env", file)) {
    if (is_allowed_env(name)) {
      manifest.env[name] = without_secrets(value);
    }
  }
  if (const json* nodes = member(root, "nodes", json::value_t::object, file, "")) {
    for (const auto& [path, node] : nodes->items()) {
      manifest.nodes[normalize_absolute(checked_path(path, file, "nodes key"))] =
          parse_node(node, file, "nodes[" + in_quotes(path) + "].");
    }
  }
  for (auto& [path, target] : string_map(root, "links", file)) {
    manifest.links[normalize_absolute(checked_path(path, file, "links key"))] =
        checked_path(target, file, "links[" + in_quotes(path) + "]");
  }
  for (auto& [bdf, path] : string_map(root, "pci_paths", file)) {
    manifest.pci_paths[bdf] = checked_path(path, file, "pci_paths[" + in_quotes(bdf) + "]");
  }
  for (auto& [path, error] : string_map(root, "read_errors", file)) {
    if (!is_errno_name(error)) {
      bad(file, "\"read_errors\"[" + in_quotes(path) +
                    "] must be an errno name such as \"EPERM\", not " + in_quotes(error));
    }
    manifest.read_errors[normalize_absolute(checked_path(path, file, "read_errors key"))] = error;
  }
  if (const json* binaries = member(root, "binaries", json::value_t::object, file, "")) {
    parse_binaries(*binaries, manifest, file);
  }
  if (const json* log = member(root, "kernel_log", json::value_t::object, file, "")) {
    manifest.kernel_log.error = string_member(*log, "error", file, "kernel_log.");
    if (!manifest.kernel_log.error.empty() && !is_errno_name(manifest.kernel_log.error)) {
      bad(file, "kernel_log.error must be an errno name such as \"EPERM\", not " +
                    in_quotes(manifest.kernel_log.error));
    }
    if (const json* lines = member(*log, "lines", json::value_t::array, file, "kernel_log.")) {
      count_entries(entries, lines->size(), file);
      manifest.kernel_log.lines.emplace();
      for (const auto& line : *lines) {
        if (!line.is_string()) {
          bad(file, "kernel_log.lines must hold strings");
        }
        manifest.kernel_log.lines->push_back(line.get<std::string>().substr(0, 4096));
      }
    }
  }
  if (const json* pythons = member(root, "interpreters", json::value_t::array, file, "")) {
    count_entries(entries, pythons->size(), file);
    for (const auto& python : *pythons) {
      if (!python.is_object()) {
        bad(file, "interpreters entries must be objects {\"path\", \"sys_path\"}");
      }
      PythonInterpreter interpreter;
      interpreter.path = checked_path(string_member(python, "path", file, "interpreters."), file,
                                      "interpreters.path");
      if (const json* sys_path =
              member(python, "sys_path", json::value_t::array, file, "interpreters.")) {
        count_entries(entries, sys_path->size(), file);
        for (const auto& entry : *sys_path) {
          if (!entry.is_string()) {
            bad(file, "interpreters.sys_path must hold strings");
          }
          interpreter.sys_path.push_back(
              checked_path(entry.get<std::string>(), file, "interpreters.sys_path entry"));
        }
      }
      manifest.interpreters.push_back(std::move(interpreter));
    }
  }
  if (const auto runtime = root.find("runtime"); runtime != root.end() && !runtime->is_null()) {
    manifest.runtime = runtime::parse_runtime_report(*runtime, file);
  }
  if (const json* stats = member(root, "stats", json::value_t::object, file, "")) {
    for (const auto& [path, stat] : stats->items()) {
      manifest.stats[normalize_absolute(checked_path(path, file, "stats key"))] =
          parse_stat(stat, file, "stats[" + in_quotes(path) + "].");
    }
  }
  if (const json* sizes = member(root, "filesystems", json::value_t::object, file, "")) {
    for (const auto& [path, size] : sizes->items()) {
      if (!size.is_number_unsigned()) {
        bad(file, "\"filesystems\"[" + in_quotes(path) + "] must be a size in bytes");
      }
      manifest.filesystems[normalize_absolute(checked_path(path, file, "filesystems key"))] =
          size.get<std::uint64_t>();
    }
  }
  return manifest;
}

namespace {

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
  return file_stat_from(*st);
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
