// Atomic replacement of a file: temporary file in the same directory, fsync, rename.
#include "src/util/replace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "src/util/unique_fd.h"

namespace rocdoc::util {

namespace {

std::optional<std::string> write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return std::strerror(written < 0 ? errno : EIO);
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return std::nullopt;
}

/// The mode open(…, 0666) would give: 0666 less the umask (read without changing it for long).
mode_t default_file_mode() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

std::optional<std::string> replace_file(const std::string& path, std::string_view text) {
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temporary =
      (slash == std::string::npos ? std::string() : directory) + "." + name + ".tmp.XXXXXX";
  std::vector<char> buffer(temporary.begin(), temporary.end());
  buffer.push_back('\0');
  UniqueFd file(::mkostemp(buffer.data(), O_CLOEXEC));
  if (!file.valid()) {
    return std::strerror(errno);
  }
  temporary.assign(buffer.data());
  auto problem = write_all(file.get(), text);
  if (!problem && ::fchmod(file.get(), default_file_mode()) != 0) {
    problem = std::strerror(errno);
  }
  if (!problem && ::fsync(file.get()) != 0 && errno != EINVAL) {
    problem = std::strerror(errno);
  }
  if (!problem && ::close(file.release()) != 0 && errno != EINTR) {
    problem = std::strerror(errno);
  }
  if (!problem && std::rename(temporary.c_str(), path.c_str()) != 0) {
    problem = std::strerror(errno);
  }
  if (problem) {
    ::unlink(temporary.c_str());
    return problem;
  }
  // The rename is durable once the directory is synced; a failure here loses nothing now.
  const UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) {
    ::fsync(dir.get());
  }
  return std::nullopt;
}

}  // namespace rocdoc::util
