// `rocdoc triage [FILE|-]`: the command around src/triage/scan.cpp (options, input, output, exit
// code).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "src/commands/command.h"

namespace rocdoc {

struct TriageOptions {
  std::string file;    ///< the log; "-" or empty: standard input
  std::string rules;   ///< --rules DIR
  std::string format;  ///< --format human|json|markdown ("" = human)
  bool json = false;   ///< --json: --format json
  std::string fail_on = "error";
  bool no_color = false;  ///< --no-color
};

/// The help footer of `rocdoc triage`.
inline constexpr std::string_view k_triage_exit_codes =
    "Exit codes:\n"
    "  0  nothing known is wrong in the text (not: the machine is healthy), or nothing at the\n"
    "     --fail-on level (default: error)\n"
    "  1  a finding at the --fail-on level\n"
    "  2  the log cannot be read (missing, a directory, over 16 MiB), invalid rules, bad\n"
    "     arguments, or the output could not be written\n";

/// Option values that cannot work, before anything is read; nullopt when fine.
std::optional<std::string> triage_argument_problem(const TriageOptions& options,
                                                   bool stdin_is_terminal);

/// Reads the log, judges it and writes the answer to `out`; returns the exit code.
int run_triage(const TriageOptions& options, const CommandStreams& io);

}  // namespace rocdoc
