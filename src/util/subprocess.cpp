// Child processes under a deadline: run_capture (--python) and run_forked (--deep). Whole on
// purpose: both share the process-group kill, the signal forwarding and the bounded reads.
#include "src/util/subprocess.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "src/util/strings.h"
#include "src/util/system_names.h"

namespace rocdoc::util {

namespace {

using Clock = std::chrono::steady_clock;

/// How often the read loop looks whether the program exited while its output is still open.
/// poll() cannot wait for a child; a SIGCHLD handler would need a self-pipe and would replace
/// the caller's, and pidfd_open is not in glibc 2.35 and is refused by some seccomp profiles.
constexpr std::chrono::milliseconds k_exit_check{10};

/// How long a program killed with SIGKILL may take to die before it is left unreaped: one in
/// uninterruptible sleep (a hung network file system) cannot be killed at all, and rocdoc must
/// not wait for it.
constexpr std::chrono::seconds k_death_wait{1};

// The program runs in a process group of its own, so that everything it starts can be killed
// with it. A Ctrl-C at the terminal signals rocdoc's group, which then no longer includes the
// program: while it runs, these signals kill its group first and then get rocdoc's previous
// handling (the default: rocdoc ends).
constexpr std::array<int, 4> k_forwarded_signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
/// The process groups of the programs running now (run_capture: one; run_forked: a few).
std::array<std::atomic<pid_t>, k_max_forked> running_groups{};
std::array<struct sigaction, k_forwarded_signals.size()> previous_actions{};
static_assert(std::atomic<pid_t>::is_always_lock_free, "read in a signal handler");

void kill_group_and_reraise(int signal) {
  for (const auto& running : running_groups) {
    const pid_t group = running.load();
    if (group > 0) {
      ::kill(-group, SIGKILL);
    }
  }
  for (std::size_t i = 0; i < k_forwarded_signals.size(); ++i) {
    if (k_forwarded_signals[i] == signal) {
      ::sigaction(signal, &previous_actions[i], nullptr);
    }
  }
  ::raise(signal);  // blocked until this handler returns, then handled as before
}

/// Signal handling for the lifetime of one run: the forwarding handlers (a signal that was
/// ignored stays ignored), and SIGCHLD at its default, because with SIGCHLD ignored (inherited
/// from whoever started rocdoc) the kernel reaps the child itself and its exit status is lost.
class SignalsDuringRun {
 public:
  SignalsDuringRun() {
    ::sigaction(SIGCHLD, nullptr, &m_child_action);
    m_child_reset =
        m_child_action.sa_handler == SIG_IGN || (m_child_action.sa_flags & SA_NOCLDWAIT) != 0;
    if (m_child_reset) {
      struct sigaction action {};
      action.sa_handler = SIG_DFL;
      ::sigemptyset(&action.sa_mask);
      ::sigaction(SIGCHLD, &action, nullptr);
    }
    for (std::size_t i = 0; i < k_forwarded_signals.size(); ++i) {
      ::sigaction(k_forwarded_signals[i], nullptr, &previous_actions[i]);
      m_installed[i] = previous_actions[i].sa_handler != SIG_IGN;
      if (m_installed[i]) {
        struct sigaction action {};
        action.sa_handler = kill_group_and_reraise;
        ::sigemptyset(&action.sa_mask);
        ::sigaction(k_forwarded_signals[i], &action, nullptr);
      }
    }
  }
  ~SignalsDuringRun() {
    for (auto& running : running_groups) {
      running.store(0);
    }
    for (std::size_t i = 0; i < k_forwarded_signals.size(); ++i) {
      if (m_installed[i]) {
        ::sigaction(k_forwarded_signals[i], &previous_actions[i], nullptr);
      }
    }
    if (m_child_reset) {
      ::sigaction(SIGCHLD, &m_child_action, nullptr);
    }
  }
  SignalsDuringRun(const SignalsDuringRun&) = delete;
  SignalsDuringRun& operator=(const SignalsDuringRun&) = delete;

  void forward_to(pid_t group) {
    for (auto& running : running_groups) {
      if (running.load() == 0) {
        running.store(group);
        return;
      }
    }
  }

 private:
  std::array<bool, k_forwarded_signals.size()> m_installed{};
  struct sigaction m_child_action {};
  bool m_child_reset = false;
};

/// posix_spawn's attributes and file actions, destroyed on every path.
class SpawnSetup {
 public:
  SpawnSetup() {
    ::posix_spawnattr_init(&m_attributes);
    ::posix_spawn_file_actions_init(&m_actions);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&m_actions);
    ::posix_spawnattr_destroy(&m_attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  posix_spawnattr_t* attributes() { return &m_attributes; }
  posix_spawn_file_actions_t* actions() { return &m_actions; }

 private:
  posix_spawnattr_t m_attributes{};
  posix_spawn_file_actions_t m_actions{};
};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const auto& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// posix_spawn_file_actions_addclosefrom_np exists only from glibc 2.34: close each descriptor
// above standard error that lacks FD_CLOEXEC, as listed in /proc/self/fd (the rest close at
// exec anyway). Without /proc nothing is added: rocdoc's own descriptors are all O_CLOEXEC.
void close_inherited_descriptors(posix_spawn_file_actions_t* actions) {
  DIR* listing = ::opendir("/proc/self/fd");
  if (listing == nullptr) {
    return;
  }
  const int own = ::dirfd(listing);
  std::vector<int> inherited;
  while (const dirent* entry = ::readdir(listing)) {
    const auto fd = parse_number<int>(entry->d_name);
    if (fd && *fd > STDERR_FILENO && *fd != own) {
      const int flags = ::fcntl(*fd, F_GETFD);
      if (flags >= 0 && (flags & FD_CLOEXEC) == 0) {
        inherited.push_back(*fd);
      }
    }
  }
  ::closedir(listing);
  for (const int fd : inherited) {
    ::posix_spawn_file_actions_addclose(actions, fd);
  }
}

std::optional<pid_t> spawn(const std::vector<std::string>& argv,
                           const std::vector<std::string>& environment, int out_fd,
                           std::string& error) {
  SpawnSetup setup;
  // Process group id = its pid: killing -pid reaches everything it starts (unless something
  // leaves the group on purpose with setsid or setpgid).
  ::posix_spawnattr_setflags(setup.attributes(), POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(setup.attributes(), 0);
  ::posix_spawn_file_actions_addopen(setup.actions(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(setup.actions(), out_fd, STDOUT_FILENO);
  ::posix_spawn_file_actions_addopen(setup.actions(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  // rocdoc's own descriptors are O_CLOEXEC, but one it inherited without that flag from
  // whoever started it is none of the program's business.
  close_inherited_descriptors(setup.actions());
  auto args = c_strings(argv);
  auto env = c_strings(environment);
  pid_t pid = 0;
  const int failed =
      ::posix_spawn(&pid, args[0], setup.actions(), setup.attributes(), args.data(), env.data());
  if (failed != 0) {
    error = argv[0] + ": " + std::strerror(failed);
    return std::nullopt;
  }
  return pid;
}

/// Whether the child has exited, leaving it unreaped: while it is a zombie its pid, which is
/// also its process group id, cannot be reused, so killing the group later hits no stranger.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) {
      return true;  // ECHILD: there is nothing left to wait for
    }
  }
  return info.si_pid != 0;
}

/// Waits until the child has exited (true) or `until` has passed (false).
bool wait_for_exit(pid_t pid, Clock::time_point until) {
  while (!has_exited(pid)) {
    const auto now = Clock::now();
    if (now >= until) {
      return false;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(until - now, k_exit_check));
  }
  return true;
}

/// Reaps a child that was sent SIGKILL; nullopt when it did not die in time (left unreaped).
std::optional<int> reap_killed(pid_t pid) {
  if (!wait_for_exit(pid, Clock::now() + k_death_wait)) {
    return std::nullopt;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return std::nullopt;
    }
  }
  return status;
}

enum class ReadEnd {
  eof,         ///< every writer closed the pipe
  held_open,   ///< the child exited, but the pipe stayed open past the grace period
  deadline,    ///< the deadline passed with the pipe open and the child running
  over_limit,  ///< more than max_output bytes
};

/// Reads the pipe into `out` until one of ReadEnd happens; never keeps more than max_output.
ReadEnd read_output(int fd, pid_t pid, const CaptureLimits& limits, Clock::time_point deadline,
                    std::string& out) {
  std::array<char, 65536> buffer{};
  std::optional<Clock::time_point> grace_end;
  while (true) {
    const auto now = Clock::now();
    if (!grace_end && has_exited(pid)) {
      grace_end = now + limits.exit_grace;
    }
    const auto stop = grace_end ? std::min(*grace_end, deadline) : deadline;
    if (now >= stop) {
      return grace_end ? ReadEnd::held_open : ReadEnd::deadline;
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        std::min<Clock::duration>(stop - now, k_exit_check));
    pollfd ready_fd{fd, POLLIN, 0};
    const int ready = ::poll(&ready_fd, 1, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR) {
      return ReadEnd::eof;  // cannot happen on a valid pipe; stop reading, keep the deadline
    }
    if (ready <= 0) {
      continue;
    }
    // One byte more than the limit tells "exactly at it" from "over it".
    const std::size_t room = limits.max_output + 1 - out.size();
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), room));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return ReadEnd::eof;
    }
    out.append(buffer.data(), static_cast<std::size_t>(n));
    if (out.size() > limits.max_output) {
      out.resize(limits.max_output);
      return ReadEnd::over_limit;
    }
  }
}

/// One forked child as the parent follows it.
struct Child {
  pid_t pid = -1;
  std::array<int, 3> fds{-1, -1, -1};  ///< read ends: stdout, stderr, result
  std::optional<Clock::time_point> exited_at;
  ForkedOutput output;

  bool streams_open() const {
    return std::any_of(fds.begin(), fds.end(), [](int fd) { return fd >= 0; });
  }
  CapturedStream& stream(std::size_t i) {
    return i == 0 ? output.out : i == 1 ? output.err : output.result;
  }
};

/// The child's side: its descriptors in place, then the body; never returns.
[[noreturn]] void become_child(const std::function<int(int)>& body,
                               const std::array<int, 3>& ends) {
  ::setpgid(0, 0);
  for (const int signal : k_forwarded_signals) {
    ::signal(signal, SIG_DFL);
  }
  // A crash in the child ends it with its signal, whatever handler this process (or a
  // sanitizer runtime) installed: the parent reports the signal.
  for (const int signal : {SIGCHLD, SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    ::signal(signal, SIG_DFL);
  }
  // Above every target first, so that no dup2 below overwrites an end still needed.
  std::array<int, 3> high{};
  for (std::size_t i = 0; i < ends.size(); ++i) {
    high[i] = ::fcntl(ends[i], F_DUPFD, 10);
  }
  const int null = ::open("/dev/null", O_RDONLY);
  if (null < 0 || high[0] < 0 || high[1] < 0 || high[2] < 0 || ::dup2(null, STDIN_FILENO) < 0 ||
      ::dup2(high[0], STDOUT_FILENO) < 0 || ::dup2(high[1], STDERR_FILENO) < 0 ||
      ::dup2(high[2], k_result_fd) < 0) {
    ::_exit(126);
  }
  close_descriptors_from(k_result_fd + 1);
  int status = 125;
  try {
    status = body(k_result_fd);
  } catch (...) {
    status = 125;
  }
  ::_exit(status);
}

bool start_child(const std::function<int(int)>& body, Child& child) {
  std::array<std::array<int, 2>, 3> pipes{};
  for (std::size_t i = 0; i < pipes.size(); ++i) {
    if (::pipe2(pipes[i].data(), O_CLOEXEC) != 0) {
      child.output.error = std::string("pipe: ") + std::strerror(errno);
      for (std::size_t j = 0; j < i; ++j) {
        ::close(pipes[j][0]);
        ::close(pipes[j][1]);
      }
      return false;
    }
  }
  std::fflush(nullptr);  // nothing buffered here may be written twice by the child's exit
  const pid_t pid = ::fork();
  if (pid == 0) {
    become_child(body, {pipes[0][1], pipes[1][1], pipes[2][1]});
  }
  for (std::size_t i = 0; i < pipes.size(); ++i) {
    ::close(pipes[i][1]);
    child.fds[i] = pipes[i][0];
  }
  if (pid < 0) {
    child.output.error = std::string("fork: ") + std::strerror(errno);
    for (int& fd : child.fds) {
      ::close(fd);
      fd = -1;
    }
    return false;
  }
  ::setpgid(pid, pid);  // also here: the group must exist before the parent may kill it
  child.pid = pid;
  return true;
}

/// Reads what is ready on one stream: keeps up to `limit`, counts and drops the rest.
void read_stream(int& fd, CapturedStream& stream, std::size_t limit) {
  std::array<char, 65536> buffer{};
  const ssize_t n = ::read(fd, buffer.data(), buffer.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (n <= 0) {
    ::close(fd);
    fd = -1;
    return;
  }
  const auto size = static_cast<std::size_t>(n);
  stream.bytes += size;
  if (stream.kept.size() < limit) {
    stream.kept.append(buffer.data(), std::min(size, limit - stream.kept.size()));
  }
}

/// Follows every child until all have exited and closed their streams (or held them open past
/// the grace period), or the deadline passes.
void follow_children(std::vector<Child>& children, const ForkLimits& limits,
                     Clock::time_point deadline) {
  while (true) {
    const auto now = Clock::now();
    bool waiting = false;
    std::vector<pollfd> ready;
    std::vector<std::pair<std::size_t, std::size_t>> owners;  // child, stream
    for (std::size_t c = 0; c < children.size(); ++c) {
      Child& child = children[c];
      if (child.pid < 0) {
        continue;
      }
      if (!child.exited_at && has_exited(child.pid)) {
        child.exited_at = now;
      }
      const bool graced = child.exited_at && now >= *child.exited_at + limits.exit_grace;
      if (!child.streams_open() && child.exited_at) {
        continue;
      }
      if (graced) {
        continue;
      }
      waiting = true;
      for (std::size_t i = 0; i < child.fds.size(); ++i) {
        if (child.fds[i] >= 0) {
          ready.push_back({child.fds[i], POLLIN, 0});
          owners.emplace_back(c, i);
        }
      }
    }
    if (!waiting || now >= deadline) {
      return;
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        std::min<Clock::duration>(deadline - now, k_exit_check));
    const int count = ::poll(ready.data(), ready.size(), static_cast<int>(wait.count()));
    if (count <= 0) {
      continue;  // a timeout, or EINTR: look at the children again
    }
    for (std::size_t i = 0; i < ready.size(); ++i) {
      if ((ready[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) == 0) {
        continue;
      }
      auto& [c, stream] = owners[i];
      Child& child = children[c];
      read_stream(child.fds[stream], child.stream(stream),
                  stream == 2 ? limits.max_result : limits.max_output);
    }
  }
}

}  // namespace

std::vector<ForkedOutput> run_forked(const std::vector<std::function<int(int)>>& bodies,
                                     const ForkLimits& limits) {
  std::vector<Child> children(bodies.size());
  if (bodies.size() > k_max_forked) {
    for (Child& child : children) {
      child.output.error = "more children than run_forked runs at once";
    }
  } else {
    SignalsDuringRun signals;
    const auto start = Clock::now();
    const auto deadline = start + limits.time;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (start_child(bodies[i], children[i])) {
        signals.forward_to(children[i].pid);
      }
    }
    follow_children(children, limits, deadline);
    for (Child& child : children) {
      for (int& fd : child.fds) {
        if (fd >= 0) {
          ::close(fd);
          fd = -1;
        }
      }
      if (child.pid < 0) {
        continue;
      }
      const bool exited = wait_for_exit(child.pid, deadline);
      const auto end = child.exited_at ? *child.exited_at : Clock::now();
      ::kill(-child.pid, SIGKILL);  // whatever the ending: nothing it started outlives it
      const auto status = reap_killed(child.pid);
      ForkedOutput& output = child.output;
      output.elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>((exited ? end : deadline) - start);
      if (!exited || !status) {
        output.ending = Ending::timed_out;
      } else if (WIFEXITED(*status)) {
        output.exit_status = WEXITSTATUS(*status);
      } else if (WIFSIGNALED(*status)) {
        output.signal = WTERMSIG(*status);
      }
    }
  }
  std::vector<ForkedOutput> outputs;
  for (Child& child : children) {
    outputs.push_back(std::move(child.output));
  }
  return outputs;
}

std::optional<ProcessOutput> run_capture(const std::vector<std::string>& argv,
                                         const std::vector<std::string>& environment,
                                         const CaptureLimits& limits, std::string& error) {
  if (argv.empty()) {
    error = "no program to run";
    return std::nullopt;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  SignalsDuringRun signals;
  const auto pid = spawn(argv, environment, pipe_fds[1], error);
  ::close(pipe_fds[1]);
  if (!pid) {
    ::close(pipe_fds[0]);
    return std::nullopt;
  }
  signals.forward_to(*pid);
  const auto deadline = Clock::now() + limits.time;
  ProcessOutput output;
  const ReadEnd read_end = read_output(pipe_fds[0], *pid, limits, deadline, output.out);
  ::close(pipe_fds[0]);
  const bool exited = read_end != ReadEnd::over_limit && wait_for_exit(*pid, deadline);
  // Whatever the ending, the group goes: the program if it still runs, and anything it started
  // that still holds the pipe or simply lingers.
  ::kill(-*pid, SIGKILL);
  const auto status = reap_killed(*pid);
  if (read_end == ReadEnd::over_limit) {
    output.ending = Ending::output_over_limit;
  } else if (!exited || !status) {
    output.ending = Ending::timed_out;
  } else if (WIFEXITED(*status)) {
    output.exit_status = WEXITSTATUS(*status);
  } else if (WIFSIGNALED(*status)) {
    output.signal = WTERMSIG(*status);
  }
  return output;
}

std::string signal_name(int signal) { return signal_symbol(signal); }

}  // namespace rocdoc::util
