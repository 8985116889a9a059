#include "src/util/system_names.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "src/util/strings.h"

namespace rocdoc::util {

namespace {

struct Name {
  int value;
  const char* name;
};

#define ROCDOC_NAME(symbol) \
  { symbol, #symbol }

// Every errno of Linux's asm-generic/errno-base.h and the ones rocdoc's reads can meet beyond it.
constexpr Name k_errnos[] = {
    ROCDOC_NAME(EPERM),     ROCDOC_NAME(ENOENT),       ROCDOC_NAME(ESRCH),
    ROCDOC_NAME(EINTR),     ROCDOC_NAME(EIO),          ROCDOC_NAME(ENXIO),
    ROCDOC_NAME(E2BIG),     ROCDOC_NAME(ENOEXEC),      ROCDOC_NAME(EBADF),
    ROCDOC_NAME(ECHILD),    ROCDOC_NAME(EAGAIN),       ROCDOC_NAME(ENOMEM),
    ROCDOC_NAME(EACCES),    ROCDOC_NAME(EFAULT),       ROCDOC_NAME(ENOTBLK),
    ROCDOC_NAME(EBUSY),     ROCDOC_NAME(EEXIST),       ROCDOC_NAME(EXDEV),
    ROCDOC_NAME(ENODEV),    ROCDOC_NAME(ENOTDIR),      ROCDOC_NAME(EISDIR),
    ROCDOC_NAME(EINVAL),    ROCDOC_NAME(ENFILE),       ROCDOC_NAME(EMFILE),
    ROCDOC_NAME(ENOTTY),    ROCDOC_NAME(ETXTBSY),      ROCDOC_NAME(EFBIG),
    ROCDOC_NAME(ENOSPC),    ROCDOC_NAME(ESPIPE),       ROCDOC_NAME(EROFS),
    ROCDOC_NAME(EMLINK),    ROCDOC_NAME(EPIPE),        ROCDOC_NAME(EDOM),
    ROCDOC_NAME(ERANGE),    ROCDOC_NAME(EDEADLK),      ROCDOC_NAME(ENAMETOOLONG),
    ROCDOC_NAME(ENOLCK),    ROCDOC_NAME(ENOSYS),       ROCDOC_NAME(ENOTEMPTY),
    ROCDOC_NAME(ELOOP),     ROCDOC_NAME(ENODATA),      ROCDOC_NAME(ETIME),
    ROCDOC_NAME(EOVERFLOW), ROCDOC_NAME(EILSEQ),       ROCDOC_NAME(EOPNOTSUPP),
    ROCDOC_NAME(ETIMEDOUT), ROCDOC_NAME(ECONNREFUSED), ROCDOC_NAME(ESTALE),
    ROCDOC_NAME(EDQUOT),    ROCDOC_NAME(ECANCELED),    ROCDOC_NAME(ENOMEDIUM),
    ROCDOC_NAME(EUCLEAN),   ROCDOC_NAME(ENOKEY),       ROCDOC_NAME(EKEYREVOKED),
    ROCDOC_NAME(EHWPOISON),
};

constexpr Name k_signals[] = {
    ROCDOC_NAME(SIGHUP),  ROCDOC_NAME(SIGINT),    ROCDOC_NAME(SIGQUIT), ROCDOC_NAME(SIGILL),
    ROCDOC_NAME(SIGTRAP), ROCDOC_NAME(SIGABRT),   ROCDOC_NAME(SIGBUS),  ROCDOC_NAME(SIGFPE),
    ROCDOC_NAME(SIGKILL), ROCDOC_NAME(SIGUSR1),   ROCDOC_NAME(SIGSEGV), ROCDOC_NAME(SIGUSR2),
    ROCDOC_NAME(SIGPIPE), ROCDOC_NAME(SIGALRM),   ROCDOC_NAME(SIGTERM), ROCDOC_NAME(SIGSTKFLT),
    ROCDOC_NAME(SIGCHLD), ROCDOC_NAME(SIGCONT),   ROCDOC_NAME(SIGSTOP), ROCDOC_NAME(SIGTSTP),
    ROCDOC_NAME(SIGTTIN), ROCDOC_NAME(SIGTTOU),   ROCDOC_NAME(SIGURG),  ROCDOC_NAME(SIGXCPU),
    ROCDOC_NAME(SIGXFSZ), ROCDOC_NAME(SIGVTALRM), ROCDOC_NAME(SIGPROF), ROCDOC_NAME(SIGWINCH),
    ROCDOC_NAME(SIGIO),   ROCDOC_NAME(SIGPWR),    ROCDOC_NAME(SIGSYS),
};

#undef ROCDOC_NAME

template <std::size_t N>
const char* find(const Name (&table)[N], int value) {
  for (const auto& entry : table) {
    if (entry.value == value) {
      return entry.name;
    }
  }
  return nullptr;
}

// close_range(2) (Linux 5.9): the same number on every architecture; glibc 2.31's headers
// do not name it.
constexpr long k_close_range = 436;

}  // namespace

bool nss_asks_files_first(std::string_view nsswitch, std::string_view database) {
  while (!nsswitch.empty()) {
    const std::size_t end = std::min(nsswitch.find('\n'), nsswitch.size());
    std::string_view line = nsswitch.substr(0, end);
    nsswitch.remove_prefix(std::min(end + 1, nsswitch.size()));
    line = line.substr(0, line.find('#'));
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) {
      continue;
    }
    line.remove_prefix(start);
    const std::size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    name = name.substr(0, name.find_last_not_of(" \t") + 1);
    if (colon == std::string_view::npos || name != database) {
      continue;
    }
    std::string_view sources = line.substr(colon + 1);
    const std::size_t first = sources.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      return false;
    }
    sources.remove_prefix(first);
    const std::string_view source = sources.substr(0, sources.find_first_of(" \t["));
    return source == "files" || source == "compat";
  }
  return false;  // glibc's built-in default: leave it to NSS
}

std::optional<std::string> name_of_id(std::string_view file, std::uint32_t id) {
  while (!file.empty()) {
    const std::size_t end = std::min(file.find('\n'), file.size());
    std::string_view line = file.substr(0, end);
    file.remove_prefix(std::min(end + 1, file.size()));
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos || line[start] == '#') {
      continue;
    }
    line.remove_prefix(start);
    if (line.front() == '+' || line.front() == '-') {
      return std::nullopt;  // NIS compat entries: NSS decides
    }
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos || first == 0) {
      continue;
    }
    const std::string_view field = line.substr(second + 1, line.find(':', second + 1) - second - 1);
    if (field.find_first_not_of("0123456789") == std::string_view::npos &&
        parse_number<std::uint32_t>(field) == id) {
      return std::string(line.substr(0, first));
    }
  }
  return std::nullopt;
}

std::string errno_symbol(int error) {
  const char* name = find(k_errnos, error);
  return name != nullptr ? name : "E" + std::to_string(error);
}

std::string signal_symbol(int signal) {
  const char* name = find(k_signals, signal);
  return name != nullptr ? name : std::to_string(signal);
}

void close_descriptors_from(int first) {
  if (::syscall(k_close_range, static_cast<unsigned>(first), ~0u, 0u) == 0) {
    return;
  }
  const long limit = ::sysconf(_SC_OPEN_MAX);
  const int last = limit > 0 && limit < 65536 ? static_cast<int>(limit) : 65536;
  for (int fd = first; fd < last; ++fd) {
    ::close(fd);
  }
}

}  // namespace rocdoc::util
