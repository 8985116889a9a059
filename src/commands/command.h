// A command of rocdoc: its row in the table of commands (src/commands/table.cpp) and what
// registering its options gives back. Each command is one file of src/commands/ holding its
// options, its help with exit codes, and its run function; only src/commands/ parses options.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "src/commands/cli.h"

namespace rocdoc {

/// Exit code 2: rocdoc could not do its job (docs/exit-codes.md).
inline constexpr int k_exit_usage = 2;

/// Where a command writes, and what it knows of the terminal standard output is.
struct CommandStreams {
  std::ostream& out;
  std::ostream& err;
  OutputIsTerminal terminal;
  std::optional<std::size_t> terminal_columns;
};

/// A command whose options were registered with CLI11; the option values live in its closures.
struct RegisteredCommand {
  /// Why the option values cannot work, found before anything is read; nullopt when they can.
  std::function<std::optional<std::string>()> argument_problem;
  /// Runs the command: its exit code. It may throw RulesError, SnapshotError or another
  /// std::exception, which the dispatcher turns into one line and exit 2.
  std::function<int(const CommandStreams&)> run;
};

/// One row of the table of commands.
struct Command {
  std::string_view name;     ///< "check"
  std::string_view summary;  ///< one line, for rocdoc --help
  /// Commands of its own ("rules lint", "rules show"); empty for most.
  std::span<const std::string_view> subcommands;
  /// Adds the command's options, arguments and help footer to `command` (made from name and
  /// summary); `app` is the whole command line (completions walks it).
  RegisteredCommand (*add_options)(CLI::App& command, const CLI::App& app);
};

/// Every command, in the order rocdoc --help lists them.
std::span<const Command> command_table();

/// The row of `name`, or null.
const Command* find_command(std::string_view name);

}  // namespace rocdoc
