#include "src/hosts/snapshot_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <string>

#include "src/hosts/live.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::size_t k_max_link_target = 4095;  // PATH_MAX less the terminating NUL

/// "/etc/os-release" → "etc/os-release"; "/" → ".".
std::string relative_to_root(std::string_view inside) {
  const auto start = inside.find_first_not_of('/');
  return start == std::string_view::npos ? std::string(".") : std::string(inside.substr(start));
}

#ifndef SYS_openat2
#define SYS_openat2 437  // the same number on every architecture; glibc 2.31 does not name it
#endif

/// openat2 exists from Linux 5.6; a container's seccomp filter may also refuse it.
std::atomic<bool> g_openat2_missing{false};
std::atomic<OpenMethod> g_open_method{OpenMethod::openat2_when_available};

util::UniqueFd open_with_openat2(int root, const std::string& relative, int flags) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_NOFOLLOW | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == E2BIG)) {
    g_openat2_missing = true;
  }
  return util::UniqueFd(static_cast<int>(fd));
}

/// The same, one component at a time: every directory on the way is opened with
/// O_NOFOLLOW, so a symbolic link anywhere makes the open fail.
util::UniqueFd open_by_components(int root, const std::string& relative, int flags) {
  const auto parts = util::split(relative, '/');
  util::UniqueFd directory(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  for (std::size_t i = 0; directory.valid() && i + 1 < parts.size(); ++i) {
    const std::string name(parts[i]);
    directory = util::UniqueFd(
        ::openat(directory.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!directory.valid()) {
    return {};
  }
  const std::string last(parts.back());
  return util::UniqueFd(::openat(directory.get(), last.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
}

/// Reads an O_PATH fd's regular file through /proc/self/fd: the file checked is the file
/// read, and no device node is ever opened for reading (opening one can have effects).
util::UniqueFd reopen_through_proc(int path_fd) {
  const std::string proc = "/proc/self/fd/" + std::to_string(path_fd);
  return util::UniqueFd(::open(proc.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
}

/// /proc is not mounted (a bare chroot, a minimal container): /proc/self/fd cannot be used.
bool proc_fd_missing() {
  struct ::stat st {};
  return ::stat("/proc/self/fd", &st) != 0;
}

bool same_file(int a, int b) {
  struct ::stat first {};
  struct ::stat second {};
  return ::fstat(a, &first) == 0 && ::fstat(b, &second) == 0 && S_ISREG(second.st_mode) &&
         first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

FileRead read_all(int fd, std::size_t max_bytes) {
  std::string content;
  std::array<char, 8192> buffer{};
  while (content.size() < max_bytes) {
    const ssize_t n =
        ::read(fd, buffer.data(), std::min(buffer.size(), max_bytes - content.size()));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return {std::nullopt, errno_name(errno)};  // sysfs refuses in read(), not open()
    }
    if (n == 0) {
      break;
    }
    content.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return {std::move(content), ""};
}

}  // namespace

void set_open_method(OpenMethod method) { g_open_method = method; }

util::UniqueFd SnapshotRoot::reopen_for_reading(std::string_view inside, int path_fd) const {
  util::UniqueFd file = reopen_through_proc(path_fd);
  if (file.valid() || errno != ENOENT || !proc_fd_missing()) {
    return file;
  }
  // Without /proc: open the path again (still no link followed anywhere) and keep it only if it
  // is the regular file just checked. Only a rename racing this open could put a device node
  // there, and the O_NONBLOCK | O_NOCTTY open of one is then closed unread.
  file = open(inside, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (file.valid() && !same_file(path_fd, file.get())) {
    errno = ESTALE;
    return {};
  }
  return file;
}

util::UniqueFd SnapshotRoot::open(std::string_view inside, int flags) const {
  if (!m_root.valid()) {
    errno = ENOENT;
    return {};
  }
  const std::string relative = relative_to_root(inside);
  if (g_open_method == OpenMethod::openat2_when_available && !g_openat2_missing) {
    auto fd = open_with_openat2(m_root.get(), relative, flags);
    // EPERM may be a seccomp filter's answer for openat2 itself: try the portable way.
    if (fd.valid() || (errno != ENOSYS && errno != E2BIG && errno != EPERM)) {
      return fd;
    }
  }
  return open_by_components(m_root.get(), relative, flags);
}

FileRead SnapshotRoot::read_regular(std::string_view inside, std::size_t max_bytes) const {
  const util::UniqueFd path = open(inside, O_PATH);
  if (!path.valid()) {
    return {std::nullopt, errno_name(errno)};
  }
  struct ::stat checked {};
  if (::fstat(path.get(), &checked) != 0) {
    return {std::nullopt, errno_name(errno)};
  }
  if (S_ISLNK(checked.st_mode)) {
    return {std::nullopt, "ELOOP"};  // as open(O_NOFOLLOW) says of a link
  }
  if (!S_ISREG(checked.st_mode)) {
    return {std::nullopt, S_ISDIR(checked.st_mode) ? "EISDIR" : "EINVAL"};
  }
  const util::UniqueFd file = reopen_for_reading(inside, path.get());
  if (!file.valid()) {
    return {std::nullopt, errno_name(errno)};
  }
  return read_all(file.get(), max_bytes);
}

util::UniqueFd SnapshotRoot::open_regular(std::string_view inside) const {
  const util::UniqueFd path = open(inside, O_PATH);
  struct ::stat checked {};
  if (!path.valid() || ::fstat(path.get(), &checked) != 0 || !S_ISREG(checked.st_mode)) {
    return {};
  }
  return reopen_for_reading(inside, path.get());
}

std::optional<struct ::stat> SnapshotRoot::lstat(std::string_view inside) const {
  const util::UniqueFd path = open(inside, O_PATH);
  struct ::stat st {};
  if (!path.valid() || ::fstat(path.get(), &st) != 0) {
    return std::nullopt;
  }
  return st;
}

std::optional<std::string> SnapshotRoot::read_link(std::string_view inside) const {
  const util::UniqueFd path = open(inside, O_PATH);
  struct ::stat st {};
  if (!path.valid() || ::fstat(path.get(), &st) != 0 || !S_ISLNK(st.st_mode)) {
    return std::nullopt;
  }
  std::array<char, k_max_link_target + 1> buffer{};
  const ssize_t n = ::readlinkat(path.get(), "", buffer.data(), buffer.size());
  if (n < 0 || static_cast<std::size_t>(n) > k_max_link_target) {
    return std::nullopt;
  }
  return std::string(buffer.data(), static_cast<std::size_t>(n));
}

std::optional<std::vector<std::string>> SnapshotRoot::list(std::string_view inside,
                                                           std::size_t max_entries) const {
  util::UniqueFd fd = open(inside, O_RDONLY | O_DIRECTORY);
  if (!fd.valid()) {
    return std::nullopt;
  }
  DIR* dir = ::fdopendir(fd.get());
  if (dir == nullptr) {
    return std::nullopt;
  }
  (void)fd.release();  // closedir() closes it
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    if (names.size() == max_entries) {
      ::closedir(dir);
      throw HostLimitError(m_name + util::excerpt(inside, 200) + ": holds more than " +
                           std::to_string(max_entries) +
                           " entries, more than rocdoc reads in one directory of a snapshot");
    }
    names.emplace_back(name);
  }
  ::closedir(dir);
  return names;
}

}  // namespace rocdoc
