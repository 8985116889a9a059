// What a runtime library leaves behind when its child is done: a process it started in a
// session or a process group of its own (setsid, setpgid), which killing the child's group does
// not reach. While the children run, rocdoc is a child subreaper, so each such orphan becomes
// rocdoc's child instead of init's; when they are done, every child rocdoc still has is killed
// and reaped, and so are the ones those had started (adopted in turn as each dies).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string_view>
#include <vector>

namespace rocdoc::runtime {

/// The parent's pid in the text of /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM may hold
/// spaces and parentheses), or nullopt.
std::optional<pid_t> parse_stat_parent(std::string_view stat);

/// The children of `parent` (from /proc/PID/stat); nullopt without a readable /proc.
std::optional<std::vector<pid_t>> children_of(pid_t parent);

/// Makes this process the subreaper of what it forks while the guard lives; its destructor
/// kills (SIGKILL) and reaps every child the process has then, until none is left or a bounded
/// time has passed (a process stuck in the kernel), and restores the previous setting. For a
/// single-threaded process whose only children are the ones run under it (as run_forked).
/// Without /proc the survivors cannot be found: only those that already exited are reaped.
class DescendantReaper {
 public:
  DescendantReaper();
  ~DescendantReaper();
  DescendantReaper(const DescendantReaper&) = delete;
  DescendantReaper& operator=(const DescendantReaper&) = delete;

 private:
  std::optional<int> m_previous;  ///< the subreaper setting before; nullopt when prctl failed
};

}  // namespace rocdoc::runtime
