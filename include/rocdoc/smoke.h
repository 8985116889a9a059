// --smoke: torch run for real by each Python environment's interpreter, in a child with a
// deadline (src/runtime/smoke_runner.cpp runs it; src/runtime/smoke.py is the script). What the
// Host answers (SmokeReport: how each child ended and what it printed, raw) and what the smoke
// probe makes of it (SmokeFacts).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rocdoc/runtime.h"

namespace rocdoc {

/// Whether the Host may run the interpreters, or only replay what a snapshot recorded.
enum class SmokeMode { recorded_only, run };

/// One interpreter to run, and the environment (site directory) it stands for.
struct SmokeTarget {
  std::string interpreter;  ///< absolute path
  std::string site_dir;     ///< the environment whose torch it imports
};

struct SmokeRequest {
  SmokeMode mode = SmokeMode::recorded_only;
  std::chrono::milliseconds timeout{60'000};
  std::vector<SmokeTarget> targets;
};

/// One interpreter's run, raw.
struct SmokeRun {
  SmokeTarget target;
  ChildEnding ending = ChildEnding::not_started;
  std::optional<int> exit_status;
  std::optional<std::string> signal;
  bool output_over_limit = false;  ///< it printed more than rocdoc reads: it was killed
  double seconds = 0;
  std::string output;  ///< its standard output: "# step" lines, then one JSON document
  std::string error;   ///< not_started: why
};

struct SmokeReport {
  std::chrono::milliseconds timeout{60'000};
  std::vector<SmokeRun> runs;
};

// ---- what the smoke probe makes of a SmokeReport --------------------------------------------

/// A Python exception as the script caught it.
struct SmokeError {
  std::string type;     ///< "RuntimeError"
  std::string message;  ///< "RuntimeError: HIP error: invalid device function"
};

/// One test on one device: matmul-fp32, matmul-fp16, matmul-bf16, conv2d, alloc.
struct SmokeTest {
  std::string name;
  std::string status;               ///< "ok", "wrong", "failed", "skipped"
  std::optional<double> error;      ///< largest difference from the CPU's, relative
  std::optional<double> tolerance;  ///< what it may be
  std::optional<double> seconds;
  std::optional<SmokeError> exception;
};

struct SmokeDevice {
  int index = 0;
  std::string name;
  std::string arch;  ///< gcnArchName ("gfx1100", "gfx90a:sramecc+:xnack-") or "sm_90"
  std::optional<std::uint64_t> total_memory;
  std::vector<SmokeTest> tests;  ///< in the order they ran
};

/// What one interpreter's run says.
struct SmokeResult {
  SmokeTarget target;
  ChildEnding ending = ChildEnding::not_started;
  std::optional<int> exit_status;
  std::optional<std::string> signal;
  bool output_over_limit = false;
  double seconds = 0;
  std::string error;                      ///< not_started: why
  std::optional<std::string> last_step;   ///< the last "# step" line: where it was
  bool document = false;                  ///< its JSON document was read
  std::optional<std::string> unreadable;  ///< why the output could not be read
  std::optional<std::string> python;      ///< "3.11.2"
  std::optional<bool> network_isolated;   ///< it ran in a network namespace of its own
  std::optional<SmokeError> import_error;
  std::optional<std::string> torch_version;
  std::optional<std::string> torch_file;
  std::optional<std::string> hip;
  std::optional<std::string> cuda;
  std::optional<bool> available;
  std::optional<int> device_count;
  std::vector<std::string> arch_list;
  std::vector<std::string> warnings;  ///< torch's own, from is_available()
  std::optional<SmokeError> available_error;
  std::vector<SmokeDevice> devices;
};

/// --smoke's facts (or a snapshot's `smoke`); nullopt in Facts when neither.
struct SmokeFacts {
  double timeout_seconds = 60;
  std::vector<SmokeResult> results;
};

}  // namespace rocdoc
