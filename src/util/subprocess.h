// Running one program and capturing its output, with a time limit; running a few functions
// in forked children the same way. Only `check --python` and `--deep` use them: the default
// check never starts a process.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
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

/// The most children run_forked() runs at once.
inline constexpr std::size_t k_max_forked = 4;

/// What bounds the children of run_forked(): one deadline for all of them, and what is kept
/// of each stream (the rest is read and dropped, so a child never blocks on a full pipe).
struct ForkLimits {
  std::chrono::milliseconds time;
  std::size_t max_output = 64 * 1024;   ///< of its standard output and of its standard error
  std::size_t max_result = 256 * 1024;  ///< of its result channel
  std::chrono::milliseconds exit_grace{200};
};

/// One stream of a child: its first bytes, and how many it wrote in all.
struct CapturedStream {
  std::string kept;
  std::uint64_t bytes = 0;
};

struct ForkedOutput {
  Ending ending = Ending::finished;  ///< finished or timed_out
  std::optional<int> exit_status;
  std::optional<int> signal;
  std::chrono::milliseconds elapsed{0};  ///< until it exited, or the deadline
  CapturedStream out;
  CapturedStream err;
  CapturedStream result;
  std::string error;  ///< it could not be started (and nothing else is set)
};

/// Runs each function in a child forked from this process, all at once, and waits for them
/// under one deadline. A child gets stdin from /dev/null, its stdout and stderr on pipes, a
/// result channel on file descriptor `k_result_fd`, no other descriptor, default signal
/// handling, and a process group of its own; the function's return is its exit status (an
/// exception is 125), and it ends with _exit (no atexit handler, no destructor of this
/// process). Every group is killed (SIGKILL) at the end, whatever happened, and every child
/// reaped (one that SIGKILL cannot end within a second is left, as in run_capture). For a
/// single-threaded process only: fork() copies the calling thread alone.
std::vector<ForkedOutput> run_forked(const std::vector<std::function<int(int result_fd)>>& bodies,
                                     const ForkLimits& limits);

/// The result channel's descriptor in a child of run_forked().
inline constexpr int k_result_fd = 3;

/// "SIGSEGV" for a signal with a name, else its number ("40").
std::string signal_name(int signal);

}  // namespace rocdoc::util
