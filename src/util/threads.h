// Running one piece of work on a few threads at once.
#pragma once

#include <cstddef>
#include <functional>

namespace rocdoc::util {

/// The CPUs this process may run on (its affinity mask, which taskset and a container's
/// cpuset narrow); 1 when it cannot be read.
std::size_t usable_cpus();

/// Runs `work` on `threads` threads at once, the caller's among them, and returns when all are
/// done. `work` takes its items itself (an atomic index). Fewer threads run when no more can be
/// started (a container's pids limit): the caller's always does. The threads start one another,
/// so the caller's work begins after one thread's start: it takes the first item, as a rule.
void run_on_threads(std::size_t threads, const std::function<void()>& work);

}  // namespace rocdoc::util
