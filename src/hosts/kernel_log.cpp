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

namespace {

constexpr std::string_view k_gpu_words[] = {"amdgpu",
                                            "kfd",
                                            "amd-vi",
                                            "iommu",
                                            "radeon",
                                            "lockdown:",
                                            "unsigned module",
                                            "module verification failed",
                                            "secure boot",
                                            "amdttm",
                                            "ttm:"};

constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// Whether `text` starts with `word` (lower case), ignoring the case of ASCII letters.
bool starts_with_ignoring_case(std::string_view text, std::string_view word) {
  if (text.size() < word.size()) {
    return false;
  }
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (ascii_lower(text[i]) != word[i]) {
      return false;
    }
  }
  return true;
}

/// For each byte that starts one of k_gpu_words, in either case, the words' second letter (the
/// words starting with one letter share it); 0 for other bytes.
constexpr std::array<char, 256> gpu_word_second_letters() {
  std::array<char, 256> second{};
  for (const std::string_view word : k_gpu_words) {
    second[static_cast<unsigned char>(word[0])] = word[1];
    second[static_cast<unsigned char>(word[0] - 'a' + 'A')] = word[1];
  }
  return second;
}

constexpr bool words_of_one_first_letter_share_the_second() {
  for (const std::string_view word : k_gpu_words) {
    for (const std::string_view other : k_gpu_words) {
      if (word.size() < 2 || (word[0] == other[0] && word[1] != other[1])) {
        return false;
      }
    }
  }
  return true;
}
static_assert(words_of_one_first_letter_share_the_second());

}  // namespace

bool is_gpu_kernel_message(std::string_view message) {
  // Every record of the log passes here: one pass, no copy; only the two letters that start a
  // word lead to comparing words.
  static constexpr std::array<char, 256> k_second = gpu_word_second_letters();
  for (std::size_t at = 0; at + 1 < message.size(); ++at) {
    const char second = k_second[static_cast<unsigned char>(message[at])];
    if (second == 0 || ascii_lower(message[at + 1]) != second) {
      continue;
    }
    const std::string_view rest = message.substr(at);
    for (const std::string_view word : k_gpu_words) {
      if (word.front() == ascii_lower(message[at]) && starts_with_ignoring_case(rest, word)) {
        return true;
      }
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

/// The prefix of a line of READ_ALL's text: "<6>[    7.026427] ", or with CONFIG_PRINTK_CALLER
/// "<6>[    7.026427][  T123] " (record_print_text, info_print_prefix).
struct SyslogPrefix {
  std::string_view priority;
  std::uint64_t usec = 0;
  std::size_t size = 0;
};

/// The decimal number of the digits of `line` from `at` on, at most `max_digits` of them (and
/// at least one); `at` is left after them.
std::optional<std::uint64_t> digits_at(std::string_view line, std::size_t& at,
                                       std::size_t max_digits) {
  std::uint64_t value = 0;
  const std::size_t start = at;
  while (at < line.size() && at - start < max_digits && line[at] >= '0' && line[at] <= '9') {
    value = value * 10 + static_cast<std::uint64_t>(line[at] - '0');
    ++at;
  }
  return at > start ? std::optional(value) : std::nullopt;
}

std::optional<SyslogPrefix> parse_syslog_prefix(std::string_view line) {
  // Every line of the log passes here: one scan, no search. 19 digits of seconds cannot
  // overflow; the seconds are bounded below so that the microseconds cannot either.
  std::size_t at = 1;
  if (line.empty() || line.front() != '<' || !digits_at(line, at, 19) || at >= line.size() ||
      line[at] != '>') {
    return std::nullopt;
  }
  const std::string_view priority = line.substr(1, at - 1);
  if (++at >= line.size() || line[at] != '[') {
    return std::nullopt;  // printk.time=0
  }
  ++at;
  while (at < line.size() && line[at] == ' ') {
    ++at;
  }
  const auto seconds = digits_at(line, at, 19);
  if (!seconds || *seconds > UINT64_MAX / 1000000 - 1 || at >= line.size() || line[at] != '.') {
    return std::nullopt;
  }
  const std::size_t micros_start = ++at;
  const auto micros = digits_at(line, at, 6);
  if (!micros || at - micros_start != 6 || at >= line.size() || line[at] != ']') {
    return std::nullopt;
  }
  ++at;
  if (at < line.size() && line[at] == '[') {
    at = line.find(']', at);  // the caller, "[  T123]"
    if (at == std::string_view::npos) {
      return std::nullopt;
    }
    ++at;
  }
  if (at >= line.size() || line[at] != ' ') {
    return std::nullopt;
  }
  return SyslogPrefix{priority, *seconds * 1000000 + *micros, at + 1};
}

/// Whether /dev/kmsg shows this byte as "\xNN": below ' ', from 127 on, or a backslash.
bool kmsg_escapes(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < ' ' || byte >= 127 || c == '\\';
}

/// `text` as /dev/kmsg shows it: a byte below ' ', from 127 on, or a backslash as "\xNN"
/// (msg_add_ext_text).
void append_kmsg_escaped(std::string& out, std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  // Runs of plain bytes are appended whole: every record of the log passes here.
  std::size_t at = 0;
  while (at < text.size()) {
    const auto plain_end =
        std::find_if(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(), kmsg_escapes);
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

namespace {

/// One record of READ_ALL's text as the kernel printed it: its lines, each with the same prefix.
struct SyslogLines {
  SyslogPrefix prefix;    ///< the first line's
  std::string_view text;  ///< the lines with their prefixes, without the last newline
  std::size_t count = 0;
};

/// Calls `each` with every record of READ_ALL's `text`; false, after the records before it, at a
/// line without a prefix.
template <typename Each>
bool for_each_syslog_lines(std::string_view text, Each&& each) {
  std::optional<SyslogLines> current;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    const auto parsed = parse_syslog_prefix(line);
    if (!parsed) {
      if (current) {
        each(*current);
      }
      return false;
    }
    const std::string_view prefix = line.substr(0, parsed->size);
    if (current && current->text.substr(0, current->prefix.size) == prefix) {
      // the next line of the same message
      const auto start = static_cast<std::size_t>(current->text.data() - text.data());
      current->text = text.substr(start, end - start);
      ++current->count;
    } else {
      if (current) {
        each(*current);
      }
      current = SyslogLines{*parsed, line, 1};
    }
    pos = end + 1;
  }
  if (current) {
    each(*current);
  }
  return true;
}

/// `lines` as /dev/kmsg gives them: "6,0,7026427,-;msg", the lines joined by "\x0a".
void assign_kmsg_record(std::string& record, const SyslogLines& lines) {
  record.assign(lines.prefix.priority);
  record += ",0,";
  record += std::to_string(lines.prefix.usec);
  record += ",-;";
  std::size_t pos = 0;
  while (pos <= lines.text.size()) {
    const std::size_t end = std::min(lines.text.find('\n', pos), lines.text.size());
    if (pos > 0) {
      record += "\\x0a";
    }
    append_kmsg_escaped(record,
                        lines.text.substr(pos + lines.prefix.size, end - pos - lines.prefix.size));
    pos = end + 1;
  }
}

/// Whether /dev/kmsg shows `text` otherwise than as it is (append_kmsg_escaped).
bool has_kmsg_escapes(std::string_view text) {
  return std::any_of(text.begin(), text.end(), kmsg_escapes);
}

}  // namespace

bool for_each_syslog_record(std::string_view text,
                            const std::function<void(std::string_view, std::size_t)>& each) {
  std::string record;
  return for_each_syslog_lines(text, [&](const SyslogLines& lines) {
    assign_kmsg_record(record, lines);
    each(record, lines.count);
  });
}

std::optional<std::vector<std::string>> gpu_kernel_lines_of_syslog(std::string_view text,
                                                                   std::string_view first_record) {
  std::vector<std::string> lines;
  std::size_t records = 0;
  bool same = true;
  std::string record;
  const auto first = kmsg_identity(first_record);
  const bool complete = for_each_syslog_lines(text, [&](const SyslogLines& printed) {
    if (!same) {
      return;
    }
    if (++records > k_max_kernel_records) {
      same = false;
      return;
    }
    // Most records are not the GPU's: one of a single line with nothing to escape is, as
    // /dev/kmsg gives it, its own text, so it is judged without being put in /dev/kmsg's form.
    const std::string_view message = printed.text.substr(printed.prefix.size);
    if (records > 1 && printed.count == 1 && !has_kmsg_escapes(message) &&
        !is_gpu_kernel_message(message)) {
      return;
    }
    assign_kmsg_record(record, printed);
    if (records == 1 && kmsg_identity(record) != first) {
      same = false;
      return;
    }
    auto line = gpu_kernel_line(record);
    if (!line) {
      return;
    }
    if (printed.count > 1 || record.size() - record.find(';') > k_syslog_record_margin) {
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
