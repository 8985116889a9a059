#include "src/util/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace rocdoc::util {

std::string StringBytes::read(std::uint64_t offset, std::size_t count) const {
  if (offset >= m_bytes.size()) {
    return {};
  }
  return std::string(m_bytes.substr(static_cast<std::size_t>(offset), count));
}

std::string FileBytes::read(std::uint64_t offset, std::size_t count) const {
  if (offset >= m_size) {
    return {};
  }
  std::string bytes(static_cast<std::size_t>(std::min<std::uint64_t>(count, m_size - offset)),
                    '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::pread(m_fd.get(), bytes.data() + done, bytes.size() - done,
                                static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;  // a read error or a file that shrank: what was read is all there is
    }
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

namespace {

constexpr std::size_t k_read_piece = 64 * 1024;

ReadFailure failure_of(ReadFailure::Kind kind) {
  ReadFailure failure;
  failure.kind = kind;
  return failure;
}

/// Reads `fd` to its end into `bytes`, failing once it passes `max_bytes`. `expected` (a regular
/// file's size) is read at once, with one more byte to see the end; a stream a piece at a time.
std::optional<ReadFailure> read_to_end(int fd, std::size_t max_bytes, std::size_t expected,
                                       std::string& bytes) {
  while (true) {
    const std::size_t done = bytes.size();
    const std::size_t room = expected > 0 && done <= expected ? expected + 1 - done : k_read_piece;
    const std::size_t piece = std::min(room, max_bytes + 1 - done);
    bytes.resize(done + piece);
    const ssize_t got = ::read(fd, bytes.data() + done, piece);
    const int error = errno;
    bytes.resize(done + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
    if (got < 0 && error == EINTR) {
      continue;
    }
    if (got < 0) {
      ReadFailure failure = failure_of(ReadFailure::Kind::read_error);
      failure.error = error;
      bytes.clear();
      return failure;
    }
    if (got == 0) {
      return std::nullopt;
    }
    if (bytes.size() > max_bytes) {
      bytes.clear();
      return failure_of(ReadFailure::Kind::too_large);
    }
  }
}

}  // namespace

std::string file_type_words(mode_t type) {
  switch (type & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a file";
  }
}

std::optional<ReadFailure> read_whole_file(const std::string& path, std::size_t max_bytes,
                                           std::string& bytes, Dash dash) {
  bytes.clear();
  const bool standard_input = dash == Dash::standard_input && path == "-";
  UniqueFd owned;
  if (!standard_input) {
    // O_NONBLOCK: a FIFO opens at once (and is then refused), a device does not wait either.
    owned = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (!owned.valid()) {
      ReadFailure failure = failure_of(ReadFailure::Kind::cannot_open);
      failure.error = errno;
      return failure;
    }
  }
  const int fd = standard_input ? STDIN_FILENO : owned.get();
  struct ::stat st {};
  if (::fstat(fd, &st) != 0) {
    ReadFailure failure = failure_of(ReadFailure::Kind::read_error);
    failure.error = errno;
    return failure;
  }
  if (S_ISDIR(st.st_mode) || (!standard_input && !S_ISREG(st.st_mode))) {
    ReadFailure failure = failure_of(ReadFailure::Kind::not_regular);
    failure.type = st.st_mode & S_IFMT;
    return failure;
  }
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ReadFailure failure = failure_of(ReadFailure::Kind::too_large);
    failure.size = static_cast<std::uint64_t>(st.st_size);
    return failure;
  }
  const std::size_t expected = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
  return read_to_end(fd, max_bytes, expected, bytes);
}

}  // namespace rocdoc::util
