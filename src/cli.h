// The command line: parses arguments and dispatches to one subcommand.
#pragma once

#include <ostream>

namespace rocdoc {

enum class OutputIsTerminal { no, yes };

/// Runs rocdoc; returns the process exit code (0, 1, 2; see docs/exit-codes.md).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            OutputIsTerminal terminal);

}  // namespace rocdoc
