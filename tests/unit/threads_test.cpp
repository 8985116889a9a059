#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "src/util/threads.h"

using rocdoc::util::run_on_threads;

TEST_CASE("run_on_threads runs the work on that many threads at once, the caller's among them",
          "[util]") {
  std::mutex mutex;
  std::condition_variable all_in;
  std::set<std::thread::id> seen;
  bool waited_out = false;
  run_on_threads(4, [&] {
    std::unique_lock lock(mutex);
    seen.insert(std::this_thread::get_id());
    all_in.notify_all();
    // Each waits for the others: the four run at once, not one after another.
    if (!all_in.wait_for(lock, std::chrono::seconds(10), [&] { return seen.size() == 4; })) {
      waited_out = true;
    }
  });
  CHECK_FALSE(waited_out);
  CHECK(seen.size() == 4);
  CHECK(seen.count(std::this_thread::get_id()) == 1);
}

TEST_CASE("run_on_threads gives each item to one thread, and one thread is the caller alone",
          "[util]") {
  std::vector<std::atomic<int>> done(200);
  std::atomic<std::size_t> taken{0};
  const auto work = [&] {
    for (std::size_t n = taken++; n < done.size(); n = taken++) {
      ++done[n];
    }
  };
  run_on_threads(3, work);
  for (const auto& count : done) {
    CHECK(count == 1);
  }

  std::set<std::thread::id> seen;
  run_on_threads(1, [&] { seen.insert(std::this_thread::get_id()); });
  CHECK(seen == std::set<std::thread::id>{std::this_thread::get_id()});
}
