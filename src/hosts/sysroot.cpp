#include "src/hosts/sysroot.h"

#include "src/binaries/elf_needed.h"
#include "src/binaries/offload_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "rocdoc/env_allowlist.h"
#include "src/hosts/live.h"
#include "src/hosts/snapshot.h"

namespace rocdoc {

SysrootHost::SysrootHost(std::string dir, std::map<std::string, std::string> env)
    : m_dir(std::move(dir)) {
  while (m_dir.size() > 1 && m_dir.back() == '/') {
    m_dir.pop_back();
  }
  // DIR itself is the user's own argument, so a link naming it is followed; nothing beneath
  // it ever is (SnapshotRoot).
  util::UniqueFd root(::open(m_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) {
    const int error = errno;
    throw SnapshotError(
        "--sysroot " + m_dir +
        (error == ENOTDIR  ? ": not a directory (--sysroot takes an unpacked root filesystem)"
         : error == ENOENT ? ": no such directory"
                           : ": cannot open: " + std::string(std::strerror(error))));
  }
  m_root = SnapshotRoot(std::move(root), m_dir);
  for (auto& [name, value] : env) {
    if (is_allowed_env(name) && !is_tool_env(name)) {
      m_env[name] = without_secrets(value);
    }
  }
  m_env.emplace("PATH", std::string(k_container_default_path));
}

std::optional<std::string> SysrootHost::resolve(std::string_view path, FinalLink final_link) const {
  return resolve_in_root(
      path,
      [this](const std::string& inside) {
        if (const auto it = m_link_cache.find(inside); it != m_link_cache.end()) {
          return it->second;
        }
        auto target = m_root.read_link(inside);
        m_link_cache.emplace(inside, target);
        return target;
      },
      final_link);
}

FileRead SysrootHost::read_file_or_error(std::string_view path, std::size_t max_bytes) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return {std::nullopt, "ENOENT"};
  }
  return m_root.read_regular(*inside, max_bytes);
}

std::optional<std::vector<std::string>> SysrootHost::offload_targets(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  util::UniqueFd fd = m_root.open_regular(*inside);
  if (!fd.valid()) {
    return std::nullopt;
  }
  return offload_targets_answer(scan_offload_file(std::move(fd)));
}

std::optional<std::vector<std::string>> SysrootHost::needed_libraries(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  return elf_needed_of_file(m_root.open_regular(*inside));
}

std::optional<std::vector<std::string>> SysrootHost::list_dir(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  auto names = m_root.list(*inside, k_max_directory_entries);
  if (names) {
    std::sort(names->begin(), names->end());
  }
  return names;
}

std::optional<FileStat> SysrootHost::stat(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::follow);
  if (!inside) {
    return std::nullopt;
  }
  const auto st = m_root.lstat(*inside);
  if (!st) {
    return std::nullopt;
  }
  return file_stat_from(*st);
}

std::optional<std::string> SysrootHost::read_link(std::string_view path) const {
  const auto inside = resolve(path, FinalLink::keep);
  if (!inside) {
    return std::nullopt;
  }
  return m_root.read_link(*inside);
}

OpenResult SysrootHost::open_device(std::string_view) const { return {OpenAccess::none, "ENOENT"}; }

std::optional<std::uint64_t> SysrootHost::filesystem_size(std::string_view) const {
  return std::nullopt;  // the tree's filesystem is the reading machine's, not the image's
}

std::optional<std::string> SysrootHost::env(std::string_view name) const {
  if (!is_allowed_env(name)) {
    return std::nullopt;
  }
  const auto it = m_env.find(std::string(name));
  if (it == m_env.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<std::pair<std::string, std::string>> SysrootHost::environment() const {
  return {m_env.begin(), m_env.end()};
}

Identity SysrootHost::identity() const { return {"root", 0, 0, {{"root", 0}}}; }

}  // namespace rocdoc
