#include "src/hosts/kernel_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/klog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>

#include "src/hosts/live.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

bool is_gpu_kernel_message(std::string_view message) {
  static constexpr std::string_view k_words[] = {
      "amdgpu",     "kfd",       "amd-vi",          "iommu",
      "radeon",     "lockdown:", "unsigned module", "module verification failed",
      "secure boot"};
  // Every record of the log passes here: lower its ASCII letters into a buffer kept between
  // calls, then search with memchr-backed find.
  thread_local std::string t_lower;
  t_lower.assign(message);
  for (char& c : t_lower) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  for (const std::string_view word : k_words) {
    if (t_lower.find(word) != std::string::npos) {
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
  std::string_view message = record.substr(semicolon + 1);
  message = message.substr(0, message.find('\n'));  // continuation lines: device properties
  if (!is_gpu_kernel_message(message)) {
    return std::nullopt;
  }
  const auto fields = util::split(record.substr(0, semicolon), ',');
  if (fields.size() < 3) {
    return std::nullopt;
  }
  const auto usec = util::parse_number<std::uint64_t>(fields[2]);
  std::string line = usec ? fmt::format("[{:5}.{:06}] ", *usec / 1000000, *usec % 1000000) : "";
  line += message.substr(0, k_max_kernel_line);
  return line;
}

namespace {

// klogctl(2)'s actions (<sys/klog.h> does not name them).
constexpr int k_syslog_action_read_all = 3;
constexpr int k_syslog_action_size_buffer = 10;

/// The largest log buffer read in one call (log_buf_len is 128 KiB to a few MiB).
constexpr int k_max_syslog_buffer = 16 << 20;

/// A GPU message this long may have been cut short in READ_ALL's copy (the kernel prints a
/// record with its prefixes into 1 KiB, 2 KiB since Linux 6.5); /dev/kmsg gives it whole.
constexpr std::size_t k_syslog_record_margin = 960;

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The prefix of a line of READ_ALL's text: "<6>[    7.026427] ", or with CONFIG_PRINTK_CALLER
/// "<6>[    7.026427][  T123] " (record_print_text, info_print_prefix).
struct SyslogPrefix {
  std::string_view priority;
  std::uint64_t usec = 0;
  std::size_t size = 0;
};

std::optional<SyslogPrefix> parse_syslog_prefix(std::string_view line) {
  const std::size_t close = line.find('>');
  if (line.empty() || line.front() != '<' || close == std::string_view::npos ||
      !all_digits(line.substr(1, close - 1))) {
    return std::nullopt;
  }
  std::size_t pos = close + 1;
  if (pos >= line.size() || line[pos] != '[') {
    return std::nullopt;  // printk.time=0
  }
  pos = line.find_first_not_of(' ', pos + 1);
  const std::size_t dot = line.find('.', pos);
  if (dot == std::string_view::npos || dot + 7 >= line.size() || line[dot + 7] != ']') {
    return std::nullopt;
  }
  const std::string_view seconds = line.substr(pos, dot - pos);
  const std::string_view micros = line.substr(dot + 1, 6);
  const auto whole =
      all_digits(seconds) ? util::parse_number<std::uint64_t>(seconds) : std::nullopt;
  if (!whole || !all_digits(micros) || *whole > UINT64_MAX / 1000000 - 1) {
    return std::nullopt;
  }
  pos = dot + 8;
  if (pos < line.size() && line[pos] == '[') {
    pos = line.find(']', pos);  // the caller, "[  T123]"
    if (pos == std::string_view::npos) {
      return std::nullopt;
    }
    ++pos;
  }
  if (pos >= line.size() || line[pos] != ' ') {
    return std::nullopt;
  }
  return SyslogPrefix{line.substr(1, close - 1),
                      *whole * 1000000 + *util::parse_number<std::uint64_t>(micros), pos + 1};
}

/// `text` as /dev/kmsg shows it: a byte below ' ', from 127 on, or a backslash as "\xNN"
/// (msg_add_ext_text).
void append_kmsg_escaped(std::string& out, std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  const auto escaped = [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < ' ' || byte >= 127 || c == '\\';
  };
  // Runs of plain bytes are appended whole: every record of the log passes here.
  std::size_t at = 0;
  while (at < text.size()) {
    const auto plain_end =
        std::find_if(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(), escaped);
    const auto plain = static_cast<std::size_t>(plain_end - text.begin()) - at;
    out.append(text.data() + at, plain);
    at += plain;
    if (at < text.size()) {
      const auto byte = static_cast<unsigned char>(text[at]);
      const char escape[] = {'\\', 'x', k_hex[byte >> 4], k_hex[byte & 0xf]};
      out.append(escape, sizeof escape);
      ++at;
    }
  }
}

/// A /dev/kmsg record without its sequence number, flags and keys: priority, time and text.
std::optional<std::array<std::string_view, 3>> kmsg_identity(std::string_view record) {
  const std::size_t semicolon = record.find(';');
  if (semicolon == std::string_view::npos) {
    return std::nullopt;
  }
  const auto fields = util::split(record.substr(0, semicolon), ',');
  if (fields.size() < 3) {
    return std::nullopt;
  }
  const std::string_view text = record.substr(semicolon + 1);
  return std::array<std::string_view, 3>{fields[0], fields[2], text.substr(0, text.find('\n'))};
}

}  // namespace

bool for_each_syslog_record(std::string_view text,
                            const std::function<void(std::string_view, std::size_t)>& each) {
  std::string record;
  std::string_view prefix;
  std::size_t lines = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const auto parsed = parse_syslog_prefix(line);
    if (!parsed) {
      if (lines > 0) {
        each(record, lines);
      }
      return false;
    }
    if (lines > 0 && line.substr(0, parsed->size) == prefix) {
      record += "\\x0a";  // the next line of the same message
      append_kmsg_escaped(record, line.substr(parsed->size));
      ++lines;
      continue;
    }
    if (lines > 0) {
      each(record, lines);
    }
    prefix = line.substr(0, parsed->size);
    record.assign(parsed->priority);
    record += ",0,";
    record += std::to_string(parsed->usec);
    record += ",-;";
    append_kmsg_escaped(record, line.substr(parsed->size));
    lines = 1;
  }
  if (lines > 0) {
    each(record, lines);
  }
  return true;
}

std::optional<std::vector<std::string>> gpu_kernel_lines_of_syslog(std::string_view text,
                                                                   std::string_view first_record) {
  std::vector<std::string> lines;
  std::size_t records = 0;
  bool same = true;
  const auto first = kmsg_identity(first_record);
  const bool complete =
      for_each_syslog_record(text, [&](std::string_view record, std::size_t line_count) {
        if (!same) {
          return;
        }
        if (++records > k_max_kernel_records || (records == 1 && kmsg_identity(record) != first)) {
          same = false;
          return;
        }
        auto line = gpu_kernel_line(record);
        if (!line) {
          return;
        }
        if (line_count > 1 || record.size() - record.find(';') > k_syslog_record_margin) {
          same = false;  // this GPU message may differ from /dev/kmsg's
          return;
        }
        if (lines.size() < k_max_kernel_lines) {
          lines.push_back(std::move(*line));
        }
      });
  if (!complete || !same || !first || records == 0) {
    return std::nullopt;
  }
  return lines;
}

std::optional<std::string> read_syslog_buffer() {
  const int size = ::klogctl(k_syslog_action_size_buffer, nullptr, 0);
  if (size <= 0 || size > k_max_syslog_buffer) {
    return std::nullopt;
  }
  // The copy prints a prefix on each line, which the buffer does not hold: room for twice the
  // buffer. A copy that still does not fit leaves out its oldest records, and then its first
  // record is not /dev/kmsg's.
  const int capacity = size * 2;
  const std::unique_ptr<char[]> buffer(new char[static_cast<std::size_t>(capacity)]);
  const int read = ::klogctl(k_syslog_action_read_all, buffer.get(), capacity);
  if (read < 0) {
    return std::nullopt;
  }
  return std::string(buffer.get(), static_cast<std::size_t>(read));
}

KernelLog read_kernel_log(const char* device, KernelLogRead how) {
  KernelLog log;
  util::UniqueFd fd(::open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    log.error = errno_name(errno);
    return log;
  }
  log.lines.emplace();
  std::array<char, 8192> record{};  // the kernel's records are at most 1 KB of text plus keys
  bool first = how == KernelLogRead::whole_buffer_first;
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
    const std::string_view text(record.data(), static_cast<std::size_t>(n));
    if (first) {
      first = false;
      // One klogctl call instead of a read() per record: a long-running host holds thousands.
      const auto buffer = read_syslog_buffer();
      if (auto lines = buffer ? gpu_kernel_lines_of_syslog(*buffer, text) : std::nullopt) {
        log.lines = std::move(*lines);
        return log;
      }
    }
    if (auto line = gpu_kernel_line(text); line && log.lines->size() < k_max_kernel_lines) {
      log.lines->push_back(std::move(*line));
    }
  }
  return log;
}

}  // namespace rocdoc
