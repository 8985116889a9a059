#include "src/hosts/live.h"

#include "src/binaries/elf_needed.h"
#include "src/binaries/offload_file.h"
#include "src/util/system_names.h"

#include "src/hosts/kernel_log.h"
#include "src/runtime/runner.h"
#include "src/runtime/smoke_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "rocdoc/env_allowlist.h"

namespace rocdoc {

namespace {

constexpr int k_max_indexed_env = 64;  // HSA_OVERRIDE_GFX_VERSION_0 .. _63

/// /etc/passwd or /etc/group when NSS would read it first (nsswitch.conf): the name found there
/// is NSS's answer, without getpwuid's and getgrgid's tries of nscd's socket.
std::optional<std::string> files_first(const std::optional<std::string>& nsswitch,
                                       std::string_view database, const std::string& path) {
  if (!nsswitch || !util::nss_asks_files_first(*nsswitch, database)) {
    return std::nullopt;
  }
  return read_local_file(path, 1 << 20);
}

std::string group_name(gid_t gid, const std::optional<std::string>& etc_group) {
  if (auto name = etc_group ? util::name_of_id(*etc_group, gid) : std::nullopt) {
    return std::move(*name);
  }
  std::array<char, 4096> buffer{};
  struct group entry {};
  struct group* found = nullptr;
  if (getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->gr_name;
  }
  return std::to_string(gid);
}

std::string user_name(uid_t uid, const std::optional<std::string>& etc_passwd) {
  if (auto name = etc_passwd ? util::name_of_id(*etc_passwd, uid) : std::nullopt) {
    return std::move(*name);
  }
  std::array<char, 4096> buffer{};
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

/// Who runs rocdoc: uid, gid, names, and groups with their names.
Identity read_identity() {
  Identity identity;
  identity.uid = ::getuid();
  identity.gid = ::getgid();
  const auto nsswitch = read_local_file("/etc/nsswitch.conf", 1 << 16);
  identity.user = user_name(identity.uid, files_first(nsswitch, "passwd", "/etc/passwd"));
  const auto etc_group = files_first(nsswitch, "group", "/etc/group");
  const int count = ::getgroups(0, nullptr);
  std::vector<gid_t> gids(static_cast<std::size_t>(std::max(count, 0)));
  const int got = count > 0 ? ::getgroups(count, gids.data()) : 0;
  gids.resize(static_cast<std::size_t>(std::max(got, 0)));
  if (std::find(gids.begin(), gids.end(), identity.gid) == gids.end()) {
    gids.insert(gids.begin(), identity.gid);
  }
  for (const gid_t gid : gids) {
    identity.groups.push_back({group_name(gid, etc_group), gid});
  }
  return identity;
}

}  // namespace

std::string errno_name(int error) { return util::errno_symbol(error); }

FileStat file_stat_from(const struct ::stat& st) {
  FileStat result;
  if (S_ISREG(st.st_mode)) {
    result.type = FileType::regular;
  } else if (S_ISDIR(st.st_mode)) {
    result.type = FileType::directory;
  } else if (S_ISLNK(st.st_mode)) {
    result.type = FileType::symlink;
  } else if (S_ISCHR(st.st_mode)) {
    result.type = FileType::char_device;
  } else if (S_ISBLK(st.st_mode)) {
    result.type = FileType::block_device;
  }
  result.mode = st.st_mode & 07777;
  result.uid = st.st_uid;
  result.gid = st.st_gid;
  result.size = static_cast<std::uint64_t>(st.st_size);
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    result.major = major(st.st_rdev);
    result.minor = minor(st.st_rdev);
  }
  return result;
}

FileRead read_local_file_or_error(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    return {std::nullopt, errno_name(errno)};
  }
  std::string content;
  // A regular file is read in reads of its size (and one byte more, to see it end), not of
  // 8 KiB: a package database of megabytes in 8 KiB reads costs milliseconds of system calls on
  // a VM. sysfs and procfs files report 4096 or 0 and keep the small reads.
  std::size_t chunk = 8192;
  if (struct ::stat st{}; ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    chunk = std::max(chunk, static_cast<std::size_t>(st.st_size) + 1);
  }
  int error = 0;
  while (content.size() < max_bytes) {
    const std::size_t at = content.size();
    const std::size_t want = std::min(chunk, max_bytes - at);
    content.resize(at + want);
    const ssize_t n = ::read(fd, content.data() + at, want);
    content.resize(at + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = errno;
      break;
    }
    if (n == 0) {
      break;
    }
    chunk = 8192;  // what is left is the file's growth since fstat, or only its end
  }
  ::close(fd);
  if (error != 0) {
    return {std::nullopt, errno_name(error)};  // sysfs reports EPERM from read(), not open()
  }
  return {std::move(content), ""};
}

std::optional<std::string> read_local_file(const std::string& path, std::size_t max_bytes) {
  return read_local_file_or_error(path, max_bytes).content;
}

std::optional<std::vector<std::string>> list_local_dir(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") {
      names.emplace_back(name);
    }
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

FileRead LiveHost::read_file_or_error(std::string_view path, std::size_t max_bytes) const {
  return read_local_file_or_error(std::string(path), max_bytes);
}

FileRead LiveHost::read_file_pieces(std::string_view path, std::size_t max_bytes,
                                    const std::function<void(std::string_view)>& piece) const {
  const int fd = ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    return {std::nullopt, errno_name(errno)};
  }
  std::vector<char> buffer(std::size_t{64} << 10);
  std::size_t total = 0;
  int error = 0;
  while (total < max_bytes) {
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), max_bytes - total));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      error = errno;
      break;
    }
    if (n == 0) {
      break;
    }
    total += static_cast<std::size_t>(n);
    piece(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
  if (error != 0) {
    return {std::nullopt, errno_name(error)};
  }
  return {std::string(), ""};
}

std::optional<std::vector<std::string>> LiveHost::offload_targets(std::string_view path) const {
  // O_NONBLOCK: a FIFO planted where a library should be must not block the report.
  util::UniqueFd fd(::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    return std::nullopt;
  }
  return offload_targets_answer(scan_offload_file(std::move(fd)));
}

std::optional<std::vector<std::string>> LiveHost::needed_libraries(std::string_view path) const {
  util::UniqueFd fd(::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  return elf_needed_of_file(std::move(fd));
}

std::optional<std::vector<std::string>> LiveHost::list_dir(std::string_view path) const {
  return list_local_dir(std::string(path));
}

std::optional<FileStat> LiveHost::stat(std::string_view path) const {
  struct ::stat st {};
  if (::stat(std::string(path).c_str(), &st) != 0) {
    return std::nullopt;
  }
  return file_stat_from(st);
}

std::optional<std::string> LiveHost::read_link(std::string_view path) const {
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink(std::string(path).c_str(), buffer.data(), buffer.size() - 1);
  if (n < 0) {
    return std::nullopt;
  }
  return std::string(buffer.data(), static_cast<std::size_t>(n));
}

OpenResult LiveHost::open_device(std::string_view path) const {
  const std::string p(path);
  OpenResult result;
  int fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0) {
    ::close(fd);
    result.access = OpenAccess::read_write;
    return result;
  }
  result.error = errno_name(errno);
  fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0) {
    ::close(fd);
    result.access = OpenAccess::read_only;
  }
  return result;
}

std::optional<std::uint64_t> LiveHost::filesystem_size(std::string_view path) const {
  struct statfs fs {};
  if (::statfs(std::string(path).c_str(), &fs) != 0) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(fs.f_blocks) * static_cast<std::uint64_t>(fs.f_bsize);
}

std::optional<std::string> LiveHost::env(std::string_view name) const {
  if (!is_allowed_env(name)) {
    return std::nullopt;
  }
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) {
    return std::nullopt;
  }
  return without_secrets(value);
}

std::vector<std::pair<std::string, std::string>> LiveHost::environment() const {
  std::vector<std::pair<std::string, std::string>> result;
  for (const std::string_view name : allowed_env_names()) {
    if (is_tool_env(name)) {
      continue;
    }
    if (auto value = env(name)) {
      result.emplace_back(name, *value);
    }
  }
  for (const std::string_view prefix : allowed_env_indexed_prefixes()) {
    for (int i = 0; i < k_max_indexed_env; ++i) {
      std::string name = std::string(prefix) + std::to_string(i);
      if (auto value = env(name)) {
        result.emplace_back(std::move(name), *value);
      }
    }
  }
  std::sort(result.begin(), result.end());
  return result;
}

Identity LiveHost::identity() const {
  std::call_once(identity_once_, [this] { identity_ = read_identity(); });
  return identity_;
}

Uname LiveHost::uname() const {
  struct utsname u {};
  if (::uname(&u) != 0) {
    return {};
  }
  return {u.sysname, u.release, u.version, u.machine};
}

KernelLog LiveHost::kernel_log() const { return read_kernel_log(); }

std::optional<RuntimeReport> LiveHost::runtime_report(const RuntimeRequest& request) const {
  if (request.mode != RuntimeMode::load) {
    return std::nullopt;  // the default check starts no process
  }
  return runtime::run_runtimes(request);
}

std::optional<SmokeReport> LiveHost::smoke_report(const SmokeRequest& request) const {
  if (request.mode != SmokeMode::run) {
    return std::nullopt;  // the default check starts no process
  }
  return runtime::run_smoke(request, environment());
}

std::optional<std::string> LiveHost::local_path(std::string_view path) const {
  return std::string(path);
}

}  // namespace rocdoc
