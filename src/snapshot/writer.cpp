#include "src/snapshot/writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "src/facts/json.h"
#include "src/runtime/json.h"
#include "src/runtime/smoke_facts.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

using nlohmann::json;

std::string type_name(FileType type) {
  switch (type) {
    case FileType::regular:
      return "file";
    case FileType::directory:
      return "dir";
    case FileType::char_device:
      return "char";
    case FileType::block_device:
      return "block";
    case FileType::symlink:
    case FileType::other:
      break;
  }
  return "other";
}

std::string octal(std::uint32_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", mode & 07777u);
  return text;
}

json stat_json(const FileStat& stat) {
  json entry = {{"type", type_name(stat.type)},
                {"mode", octal(stat.mode)},
                {"uid", stat.uid},
                {"gid", stat.gid}};
  if (stat.type == FileType::regular || stat.type == FileType::directory) {
    entry["size"] = stat.size;
  }
  if (stat.major) {
    entry["major"] = *stat.major;
  }
  if (stat.minor) {
    entry["minor"] = *stat.minor;
  }
  if (!stat.owner_known) {
    entry["owner_known"] = false;  // from a snapshot's tree: mode and owner are not the machine's
  }
  return entry;
}

json manifest_json(const Recording& recording, const CaptureInfo& info,
                   const std::vector<PythonInterpreter>& interpreters) {
  json manifest = {{"format", "rocdoc-snapshot/1"},
                   {"created", info.created},
                   {"rocdoc_version", info.rocdoc_version},
                   {"rules_revision", info.rules_revision},
                   {"redacted", info.redacted},
                   {"note", info.note}};
  if (recording.uname) {
    manifest["uname"] = {{"sysname", recording.uname->sysname},
                         {"release", recording.uname->release},
                         {"version", recording.uname->version},
                         {"machine", recording.uname->machine}};
  }
  if (recording.identity) {
    json groups = json::array();
    for (const auto& group : recording.identity->groups) {
      groups.push_back({{"name", group.name}, {"gid", group.gid}});
    }
    manifest["identity"] = {{"user", recording.identity->user},
                            {"uid", recording.identity->uid},
                            {"gid", recording.identity->gid},
                            {"groups", groups}};
  }
  manifest["env"] = recording.env;
  json nodes = json::object();
  for (const auto& [path, node] : recording.nodes) {
    json entry = stat_json(node.stat);
    entry["access"] = access_name(node.open.access);
    if (!node.open.error.empty()) {
      entry["errno"] = node.open.error;
    }
    nodes[path] = entry;
  }
  manifest["nodes"] = nodes;
  manifest["links"] = recording.links;
  json binaries = json::object();
  for (const auto& [path, binary] : recording.binaries) {
    binaries[path] = {{"size", binary.size}, {"gfx_targets", binary.gfx_targets}};
    if (binary.needed) {
      binaries[path]["needed"] = *binary.needed;
    }
  }
  manifest["binaries"] = binaries;
  manifest["read_errors"] = recording.read_errors;
  json stats = json::object();
  for (const auto& [path, stat] : recording.stats) {
    stats[path] = stat_json(stat);
  }
  manifest["stats"] = stats;
  manifest["filesystems"] = recording.filesystems;
  if (!interpreters.empty()) {
    json pythons = json::array();
    for (const auto& interpreter : interpreters) {
      pythons.push_back({{"path", interpreter.path}, {"sys_path", interpreter.sys_path}});
    }
    manifest["interpreters"] = pythons;
  }
  if (recording.kernel_log &&
      (recording.kernel_log->lines || !recording.kernel_log->error.empty())) {
    json log = json::object();
    if (recording.kernel_log->lines) {
      log["lines"] = *recording.kernel_log->lines;
    }
    if (!recording.kernel_log->error.empty()) {
      log["error"] = recording.kernel_log->error;
    }
    manifest["kernel_log"] = log;
  }
  if (recording.smoke) {
    manifest["smoke"] = runtime::smoke_report_json(*recording.smoke);
  }
  if (recording.runtime) {
    manifest["runtime"] = runtime::runtime_report_json(*recording.runtime);
  }
  return manifest;
}

/// "/etc/os-release" → "root/etc/os-release"; "/" → "root".
std::string in_snapshot(const std::string& inside) {
  return inside == "/" ? std::string("root") : "root" + inside;
}

void add_parents(SnapshotImage& image, std::string path) {
  for (auto slash = path.rfind('/'); slash != std::string::npos; slash = path.rfind('/')) {
    path.resize(slash);
    if (!image.dirs.insert(path).second) {
      return;
    }
  }
}

/// True when `path` names something the manifest already describes.
bool described(const Recording& recording, const std::string& path) {
  return recording.files.count(path) != 0 || recording.dirs.count(path) != 0 ||
         recording.links.count(path) != 0 || recording.nodes.count(path) != 0 ||
         recording.binaries.count(path) != 0 || recording.read_errors.count(path) != 0 ||
         recording.stats.count(path) != 0;
}

}  // namespace

std::size_t SnapshotImage::bytes() const {
  std::size_t total = 0;
  for (const auto& [path, content] : files) {
    total += content.size();
  }
  return total;
}

SnapshotImage make_snapshot_image(const Recording& recording, const CaptureInfo& info,
                                  const std::string& report_json,
                                  const std::vector<PythonInterpreter>& interpreters) {
  SnapshotImage image;
  image.files[std::string(k_manifest_name)] =
      manifest_json(recording, info, interpreters).dump(1) + "\n";
  if (!report_json.empty()) {
    image.files[std::string(k_capture_report_name)] = report_json;
  }
  image.dirs.insert("root");
  for (const auto& [path, names] : recording.dirs) {
    image.dirs.insert(in_snapshot(path));
    add_parents(image, in_snapshot(path));
  }
  for (const auto& [path, content] : recording.files) {
    image.files[in_snapshot(path)] = content;
    add_parents(image, in_snapshot(path));
  }
  for (const auto& [path, stat] : recording.stats) {
    if (stat.type == FileType::directory && path != "/") {
      image.dirs.insert(in_snapshot(path));
      add_parents(image, in_snapshot(path));
    }
  }
  for (const auto& [path, names] : recording.dirs) {
    for (const auto& name : names) {
      const std::string child = path == "/" ? "/" + name : path + "/" + name;
      if (!described(recording, child) && image.dirs.count(in_snapshot(child)) == 0) {
        image.files[in_snapshot(child)];  // the name was read; the content was not
      }
    }
  }
  for (const auto& [path, content] : image.files) {
    if (image.dirs.count(path) != 0) {
      throw std::runtime_error("snapshot: " + path +
                               " was read both as a file and as a directory (it changed while "
                               "rocdoc read it); run rocdoc snapshot again");
    }
  }
  return image;
}

namespace {

void write_all(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      throw std::runtime_error(path + ": " + std::strerror(written < 0 ? errno : EIO));
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

namespace {

/// What one write_snapshot_directory() made inside DIR, removed again (files, then
/// directories, deepest first) unless the write finished: a failed write (a full disk) leaves
/// no partial snapshot that would refuse the next try.
class CreatedInside {
 public:
  explicit CreatedInside(int base) : m_base(base) {}
  ~CreatedInside() {
    if (m_finished) {
      return;
    }
    for (auto it = m_files.rbegin(); it != m_files.rend(); ++it) {
      ::unlinkat(m_base, it->c_str(), 0);
    }
    for (auto it = m_dirs.rbegin(); it != m_dirs.rend(); ++it) {
      ::unlinkat(m_base, it->c_str(), AT_REMOVEDIR);
    }
  }
  void dir(const std::string& path) { m_dirs.push_back(path); }
  void file(const std::string& path) { m_files.push_back(path); }
  void finished() { m_finished = true; }
  CreatedInside(const CreatedInside&) = delete;
  CreatedInside& operator=(const CreatedInside&) = delete;

 private:
  int m_base;
  std::vector<std::string> m_dirs;
  std::vector<std::string> m_files;
  bool m_finished = false;
};

/// Whether the directory open as `fd` holds nothing but . and ..
bool directory_is_empty(int fd) {
  const int copy = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) {
    return false;
  }
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    ::close(copy);
    return false;
  }
  bool empty = true;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") {
      empty = false;
      break;
    }
  }
  ::closedir(dir);
  return empty;
}

void write_into_directory(const SnapshotImage& image, const std::string& dir) {
  util::UniqueFd base(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!base.valid()) {
    throw std::runtime_error(dir + ": " + std::strerror(errno));
  }
  struct ::stat st {};
  // Nothing is lost: a directory that holds anything is not written into.
  if (::fstatat(base.get(), "rocdoc-snapshot.json", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
      ::fstatat(base.get(), "root", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    throw std::runtime_error(dir + ": already holds a snapshot; give a new directory");
  }
  if (!directory_is_empty(base.get())) {
    // `--dir .` would mix root/, report.json and the manifest into the work directory (N21).
    throw std::runtime_error(dir +
                             ": is not empty; give a new or an empty directory, so that the "
                             "snapshot's files are not mixed with what is there");
  }
  CreatedInside created(base.get());
  for (const auto& path : image.dirs) {  // sorted: a parent comes before its children
    if (::mkdirat(base.get(), path.c_str(), 0755) == 0) {
      created.dir(path);
    } else if (errno != EEXIST) {
      throw std::runtime_error(dir + "/" + path + ": " + std::strerror(errno));
    }
  }
  for (const auto& [path, content] : image.files) {
    util::UniqueFd file(::openat(base.get(), path.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!file.valid()) {
      throw std::runtime_error(dir + "/" + path + ": " + std::strerror(errno));
    }
    created.file(path);
    write_all(file.get(), content, dir + "/" + path);
    // close() reports what a file system (NFS, a full quota) refused only when it is asked.
    if (::close(file.release()) != 0 && errno != EINTR) {
      throw std::runtime_error(dir + "/" + path + ": " + std::strerror(errno));
    }
  }
  created.finished();
}

}  // namespace

void write_snapshot_directory(const SnapshotImage& image, const std::string& dir) {
  const bool made = ::mkdir(dir.c_str(), 0755) == 0;
  if (!made && errno != EEXIST) {
    throw std::runtime_error(dir + ": cannot create the directory: " + std::strerror(errno));
  }
  try {
    write_into_directory(image, dir);
  } catch (...) {
    if (made) {
      ::rmdir(dir.c_str());  // empty again: what was written inside is gone
    }
    throw;
  }
}

}  // namespace rocdoc
