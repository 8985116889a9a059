// The command line: parses arguments and dispatches to one subcommand.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>

namespace rocdoc {

enum class OutputIsTerminal { no, yes };

/// Runs rocdoc; returns the process exit code (0, 1, 2; see docs/exit-codes.md). What a
/// command prints is written to `out` once it is done, and `out` is flushed: when that write
/// fails (a full disk, a closed descriptor, a reader that went away), one line says why on
/// `err` and the exit code is 2.
/// `terminal_columns`: the width of the terminal that is standard output, when it says one
/// (the human report wraps at it; docs/rocdoc.1.md, COLUMNS).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns = std::nullopt);

}  // namespace rocdoc
