#include "src/hosts/kernel_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "src/hosts/live.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

bool is_gpu_kernel_message(std::string_view message) {
  static constexpr std::string_view k_words[] = {
      "amdgpu",     "kfd",       "amd-vi",          "iommu",
      "radeon",     "lockdown:", "unsigned module", "module verification failed",
      "secure boot"};
  const std::string lower = util::to_lower(message);
  for (const std::string_view word : k_words) {
    if (lower.find(word) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> gpu_kernel_line(std::string_view record) {
  const auto semicolon = record.find(';');
  if (semicolon == std::string_view::npos) {
    return std::nullopt;
  }
  const auto fields = util::split(record.substr(0, semicolon), ',');
  std::string_view message = record.substr(semicolon + 1);
  message = message.substr(0, message.find('\n'));  // continuation lines: device properties
  if (fields.size() < 3 || !is_gpu_kernel_message(message)) {
    return std::nullopt;
  }
  const auto usec = util::parse_number<std::uint64_t>(fields[2]);
  std::string line = usec ? fmt::format("[{:5}.{:06}] ", *usec / 1000000, *usec % 1000000) : "";
  line += message.substr(0, k_max_kernel_line);
  return line;
}

KernelLog read_kernel_log(const char* device) {
  KernelLog log;
  util::UniqueFd fd(::open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    log.error = errno_name(errno);
    return log;
  }
  log.lines.emplace();
  std::array<char, 8192> record{};  // the kernel's records are at most 1 KB of text plus keys
  for (std::size_t records = 0; records < k_max_kernel_records; ++records) {
    const ssize_t n = ::read(fd.get(), record.data(), record.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EPIPE) {
      continue;  // the record was overwritten while reading: the next one follows
    }
    if (n <= 0) {
      break;  // EAGAIN: the end of the buffer; nothing blocks
    }
    if (auto line = gpu_kernel_line(std::string_view(record.data(), static_cast<std::size_t>(n)));
        line && log.lines->size() < k_max_kernel_lines) {
      log.lines->push_back(std::move(*line));
    }
  }
  return log;
}

}  // namespace rocdoc
