#include "src/runtime/descendants.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc::runtime {

namespace {

using Clock = std::chrono::steady_clock;

/// How long the survivors get, all rounds together, to die once killed: SIGKILL ends a process
/// at once unless it is stuck in the kernel (a GPU driver call), and then nothing would.
constexpr std::chrono::milliseconds k_end_time{2000};
constexpr std::chrono::milliseconds k_poll{2};

/// /proc/PID/stat of one process; empty when it cannot be read (it ended meanwhile).
std::string read_stat(std::string_view pid) {
  const std::string path = "/proc/" + std::string(pid) + "/stat";
  const util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    return {};
  }
  std::array<char, 1024> buffer{};  // the parent's pid is within COMM (16 bytes) of the start
  ssize_t n = -1;
  do {
    n = ::read(fd.get(), buffer.data(), buffer.size());
  } while (n < 0 && errno == EINTR);
  return n > 0 ? std::string(buffer.data(), static_cast<std::size_t>(n)) : std::string();
}

/// Reaps the children that have exited; true while some remain (or cannot be told apart).
bool reap_exited() {
  while (true) {
    const pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) {
      continue;
    }
    return !(pid < 0 && errno == ECHILD);
  }
}

/// Kills and reaps `pids` (children of this process), waiting until `deadline` at most.
void end_children(const std::vector<pid_t>& pids, Clock::time_point deadline) {
  for (const pid_t pid : pids) {
    ::kill(pid, SIGKILL);
  }
  for (const pid_t pid : pids) {
    while (::waitpid(pid, nullptr, WNOHANG) == 0 && Clock::now() < deadline) {
      std::this_thread::sleep_for(k_poll);
    }
  }
}

void end_descendants() {
  const auto deadline = Clock::now() + k_end_time;
  while (reap_exited() && Clock::now() < deadline) {
    const auto pids = children_of(::getpid());
    if (!pids || pids->empty()) {
      return;  // none, or no /proc to find them by
    }
    end_children(*pids, deadline);
  }
}

}  // namespace

std::optional<pid_t> parse_stat_parent(std::string_view stat) {
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) {
    return std::nullopt;
  }
  // After the COMM's ") ": the state, then the parent's pid.
  const auto fields = util::split(util::trim(stat.substr(close + 1)), ' ');
  if (fields.size() < 2) {
    return std::nullopt;
  }
  return util::parse_number<pid_t>(fields[1]);
}

std::optional<std::vector<pid_t>> children_of(pid_t parent) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return std::nullopt;
  }
  std::vector<pid_t> children;
  bool any = false;
  while (const dirent* entry = ::readdir(proc)) {  // at most pid_max entries
    const std::string_view name = entry->d_name;
    const auto pid = util::parse_number<pid_t>(name);
    if (!pid) {
      continue;
    }
    const std::string stat = read_stat(name);
    any = any || !stat.empty();
    if (parse_stat_parent(stat) == parent) {
      children.push_back(*pid);
    }
  }
  ::closedir(proc);
  if (!any) {
    return std::nullopt;  // a /proc with no process in it is not procfs
  }
  return children;
}

DescendantReaper::DescendantReaper() {
  int previous = 0;
  if (::prctl(PR_GET_CHILD_SUBREAPER, &previous, 0, 0, 0) == 0 &&
      ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0) {
    m_previous = previous;
  }
}

DescendantReaper::~DescendantReaper() {
  end_descendants();
  if (m_previous) {
    ::prctl(PR_SET_CHILD_SUBREAPER, *m_previous, 0, 0, 0);
  }
}

}  // namespace rocdoc::runtime
