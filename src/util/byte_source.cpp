#include "src/util/byte_source.h"

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

}  // namespace rocdoc::util
