// The snapshot manifest (rocdoc-snapshot.json, SNAPSHOT-FORMAT v1): parsed hostile-safe into a
// SnapshotManifest, in bounded time and memory, with one short printable line for what is wrong.
#include "src/hosts/snapshot.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "rocdoc/env_allowlist.h"
#include "src/runtime/json.h"
#include "src/runtime/smoke_facts.h"
#include "src/util/bounded_json.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

using nlohmann::json;

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
  if (const json* known = member(node, "owner_known", json::value_t::boolean, file, where)) {
    stat.owner_known = known->get<bool>();
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
    if (const json* needed = member(binary, "needed", json::value_t::array, file, where)) {
      entry.needed.emplace();
      for (const auto& library : *needed) {
        if (!library.is_string()) {
          bad(file, where + "needed must hold strings");
        }
        entry.needed->push_back(library.get<std::string>());
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
  if (const auto smoke = root.find("smoke"); smoke != root.end() && !smoke->is_null()) {
    manifest.smoke = runtime::parse_smoke_report(*smoke, file);
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

}  // namespace rocdoc
