// Atomic replacement of a file: an unnamed file (O_TMPFILE) or a temporary one in the same
// directory, fsync, rename.
#include "src/util/replace_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>
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

/// `pattern` with its trailing "XXXXXX" replaced by random letters and digits, as mkstemp
/// would, without creating the file.
std::string with_random_suffix(std::string pattern) {
  static constexpr std::string_view k_letters =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char random[6] = {};
  if (::getrandom(random, sizeof random, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof random)) {
    const auto seed =
        static_cast<unsigned long>(::getpid()) ^
        static_cast<unsigned long>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (std::size_t i = 0; i < sizeof random; ++i) {
      random[i] = static_cast<unsigned char>(seed >> (8 * i));
    }
  }
  for (std::size_t i = 0; i < sizeof random; ++i) {
    pattern[pattern.size() - sizeof random + i] = k_letters[random[i] % k_letters.size()];
  }
  return pattern;
}

/// Writes `text` to `file` with the mode a new file gets, and syncs it.
std::optional<std::string> fill(int file, std::string_view text) {
  auto problem = write_all(file, text);
  if (!problem && ::fchmod(file, default_file_mode()) != 0) {
    problem = std::strerror(errno);
  }
  if (!problem && ::fsync(file) != 0 && errno != EINVAL) {
    problem = std::strerror(errno);
  }
  return problem;
}

/// Writes `text` as an unnamed file in `directory` (O_TMPFILE) and links it as a new name of
/// `pattern` ("….XXXXXX"): that name exists only once the file is whole, from the link to the
/// rename, so a SIGKILL while writing leaves nothing. nullopt where the file system, the kernel
/// or a missing /proc allow no unnamed file (the caller writes a named one); else the name, or
/// the write's problem as `problem`.
struct Unnamed {
  std::string name;
  std::optional<std::string> problem;
};
std::optional<Unnamed> write_unnamed(const std::string& directory, const std::string& pattern,
                                     std::string_view text) {
  UniqueFd file(::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!file.valid()) {
    return std::nullopt;
  }
  if (auto problem = fill(file.get(), text)) {
    return Unnamed{{}, std::move(problem)};
  }
  const std::string by_proc = "/proc/self/fd/" + std::to_string(file.get());
  for (unsigned attempt = 0; attempt < 100; ++attempt) {
    const std::string temporary = with_random_suffix(pattern);
    if (::linkat(AT_FDCWD, by_proc.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      return Unnamed{temporary, std::nullopt};
    }
    if (errno != EEXIST) {
      return std::nullopt;  // no /proc, or a file system that links no unnamed file
    }
  }
  return Unnamed{{}, std::strerror(EEXIST)};
}

}  // namespace

std::optional<std::string> replace_file(const std::string& path, std::string_view text) {
  const auto slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string pattern =
      (slash == std::string::npos ? std::string() : directory) + "." + name + ".tmp.XXXXXX";
  std::string temporary;
  std::optional<std::string> problem;
  if (auto unnamed = write_unnamed(directory, pattern, text)) {
    temporary = std::move(unnamed->name);
    problem = std::move(unnamed->problem);
  } else {
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    UniqueFd file(::mkostemp(buffer.data(), O_CLOEXEC));
    if (!file.valid()) {
      return std::strerror(errno);
    }
    temporary.assign(buffer.data());
    problem = fill(file.get(), text);
    if (!problem && ::close(file.release()) != 0 && errno != EINTR) {
      problem = std::strerror(errno);
    }
  }
  if (!problem && std::rename(temporary.c_str(), path.c_str()) != 0) {
    problem = std::strerror(errno);
  }
  if (problem) {
    if (!temporary.empty()) {
      ::unlink(temporary.c_str());
    }
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
