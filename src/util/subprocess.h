// Running one program and capturing its output, with a time limit. Only `check --python`
// uses it: the default check never starts a process.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rocdoc::util {

/// What bounds one run: the program is trusted with nothing, so every wait has an end.
struct CaptureLimits {
  /// One deadline for the whole exchange, reading and reaping: at it, the program is killed.
  std::chrono::milliseconds time;
  /// The most bytes of standard output kept; one more and the program is killed.
  std::size_t max_output;
  /// How long its standard output may stay open after the program itself exited (a process it
  /// left behind holds it); then what was read is used.
  std::chrono::milliseconds exit_grace{200};
};

enum class Ending {
  finished,           ///< it exited or a signal ended it; `out` is all it printed
  timed_out,          ///< it had not exited at the deadline
  output_over_limit,  ///< it printed more than `max_output` bytes
};

struct ProcessOutput {
  Ending ending = Ending::finished;
  std::optional<int> exit_status;  ///< finished: its exit status, when it exited
  std::optional<int> signal;       ///< finished: the signal that ended it, when one did
  std::string out;                 ///< what it printed, at most `max_output` bytes
};

/// Runs argv[0] (no shell, no PATH search) with exactly `environment` ("NAME=value" strings),
/// stdin from /dev/null, stderr discarded and no other descriptor of this process. It runs in
/// a process group of its own, which is killed (SIGKILL) when the run ends, whatever the
/// ending: at the deadline, over the output limit, or after it exited, so nothing it started
/// outlives the run. nullopt and `error` set only when it cannot be started. While it runs,
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT first kill that group (Ctrl-C no longer reaches it), then
/// act as before, and an ignored SIGCHLD is set to its default; so it is not for two threads
/// at once.
std::optional<ProcessOutput> run_capture(const std::vector<std::string>& argv,
                                         const std::vector<std::string>& environment,
                                         const CaptureLimits& limits, std::string& error);

/// "SIGSEGV" for a signal with a name, else its number ("40").
std::string signal_name(int signal);

}  // namespace rocdoc::util
