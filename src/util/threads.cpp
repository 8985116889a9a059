#include "src/util/threads.h"

#include <sched.h>

#include <system_error>
#include <thread>

namespace rocdoc::util {

std::size_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) {
    return 1;
  }
  const int count = CPU_COUNT(&set);
  return count > 0 ? static_cast<std::size_t>(count) : 1;
}

void run_on_threads(std::size_t threads, const std::function<void()>& work) {
  // The caller starts one thread, which starts the next, and so on: the caller's own work begins
  // after one pthread_create, not after all of them, and it takes the first item (the longest)
  // while the other threads are still starting.
  std::thread next;
  if (threads > 1) {
    try {
      next = std::thread([threads, &work] { run_on_threads(threads - 1, work); });
    } catch (const std::system_error&) {
      // no more threads: the ones started, and this one, do it
    }
  }
  work();
  if (next.joinable()) {
    next.join();
  }
}

}  // namespace rocdoc::util
