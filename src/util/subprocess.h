// Running one program and capturing its output, with a time limit. Only `check --python`
// uses it: the default check never starts a process.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rocdoc::util {

struct ProcessOutput {
  int exit_status = -1;  ///< -1 when it did not exit normally
  std::string out;
};

/// Runs argv[0] (no shell) with stdin from /dev/null and stderr discarded. nullopt and
/// `error` set when it cannot be started or outlives `limit` (it is killed then).
std::optional<ProcessOutput> run_capture(const std::vector<std::string>& argv,
                                         std::chrono::milliseconds limit, std::string& error);

}  // namespace rocdoc::util
