#include "src/snapshot/memory_tree.h"

#include <algorithm>

#include "rocdoc/host.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::string parent_of(const std::string& inside) {
  const auto slash = inside.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : inside.substr(0, slash);
}

}  // namespace

void MemoryTree::hold(std::size_t bytes) {
  if (m_entries.size() + 1 > k_max_paths) {
    throw HostLimitError("more than " + std::to_string(k_max_paths) +
                         " paths, entries and the directories above them, more than rocdoc "
                         "reads of a snapshot (a real one holds a few thousand)");
  }
  m_path_bytes += bytes;
  if (m_path_bytes > k_max_path_bytes) {
    throw HostLimitError("paths of more than " + std::to_string(k_max_path_bytes >> 20) +
                         " MiB in all, more than rocdoc reads of a snapshot (a real one's are "
                         "under 1 MB)");
  }
}

void MemoryTree::add(const std::string& inside, Entry entry) {
  if (const auto depth = static_cast<std::size_t>(std::count(inside.begin(), inside.end(), '/'));
      depth > k_max_depth) {
    throw HostLimitError("deeper than " + std::to_string(k_max_depth) +
                         " components, more than rocdoc resolves in a path");
  }
  if (m_entries.empty()) {
    hold(1);
    m_entries.emplace("/", Entry{Type::directory, {}});
  }
  // Up from the parent to the first directory that exists; "/" always does.
  for (std::string dir = parent_of(inside);; dir = parent_of(dir)) {
    const auto it = m_entries.find(dir);
    if (it != m_entries.end() && it->second.type == Type::directory) {
      break;
    }
    if (it != m_entries.end()) {
      it->second = Entry{Type::directory, {}};  // a later member's parent wins, as tar does
    } else {
      hold(dir.size());
      m_entries.emplace(dir, Entry{Type::directory, {}});
    }
  }
  if (inside == "/") {
    return;
  }
  const auto it = m_entries.find(inside);
  if (it == m_entries.end()) {
    hold(inside.size());
    m_entries.emplace(inside, std::move(entry));
  } else {
    it->second = std::move(entry);
  }
}

FileRead MemoryTree::read_regular(std::string_view inside, std::size_t max_bytes) const {
  const auto it = m_entries.find(inside);
  if (it == m_entries.end()) {
    return {std::nullopt, "ENOENT"};
  }
  switch (it->second.type) {
    case Type::symlink:
      return {std::nullopt, "ELOOP"};  // as SnapshotRoot: a link met here is never followed
    case Type::directory:
      return {std::nullopt, "EISDIR"};
    case Type::regular:
      break;
  }
  return {it->second.data.substr(0, max_bytes), ""};
}

std::optional<struct ::stat> MemoryTree::lstat(std::string_view inside) const {
  const auto it = m_entries.find(inside);
  if (it == m_entries.end()) {
    return std::nullopt;
  }
  struct ::stat st {};
  switch (it->second.type) {
    case Type::regular:
      st.st_mode = S_IFREG | 0644;
      break;
    case Type::directory:
      st.st_mode = S_IFDIR | 0755;
      break;
    case Type::symlink:
      st.st_mode = S_IFLNK | 0777;
      break;
  }
  st.st_size = static_cast<off_t>(it->second.data.size());
  return st;
}

std::optional<std::string> MemoryTree::read_link(std::string_view inside) const {
  const auto it = m_entries.find(inside);
  if (it == m_entries.end() || it->second.type != Type::symlink) {
    return std::nullopt;
  }
  return it->second.data;
}

std::optional<std::vector<std::string>> MemoryTree::list(std::string_view inside,
                                                         std::size_t max_entries) const {
  const auto it = m_entries.find(inside);
  if (it == m_entries.end() || it->second.type != Type::directory) {
    return std::nullopt;
  }
  const std::string prefix = inside == "/" ? "/" : std::string(inside) + "/";
  std::vector<std::string> names;
  auto child = m_entries.lower_bound(prefix);
  while (child != m_entries.end() && child->first.compare(0, prefix.size(), prefix) == 0) {
    const std::string_view rest = std::string_view(child->first).substr(prefix.size());
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
      // A grandchild: skip the whole subtree ("name/" sorts just below "name0").
      child = m_entries.lower_bound(prefix + std::string(rest.substr(0, slash)) + "0");
      continue;
    }
    ++child;
    if (rest.empty()) {
      continue;
    }
    if (names.size() == max_entries) {
      throw HostLimitError("snapshot archive: " + util::excerpt(inside, 200) +
                           ": holds more than " + std::to_string(max_entries) +
                           " entries, more than rocdoc reads in one directory of a snapshot");
    }
    names.emplace_back(rest);
  }
  return names;
}

}  // namespace rocdoc
