#include "src/util/threads.h"

#include <sched.h>

#include <system_error>
#include <thread>
#include <vector>

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
  std::vector<std::thread> started;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      started.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones started, and this one, do it
    }
  }
  work();
  for (auto& thread : started) {
    thread.join();
  }
}

}  // namespace rocdoc::util
