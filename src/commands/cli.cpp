#include "src/commands/cli.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/commands/arguments.h"
#include "src/commands/build_commit.h"
#include "src/commands/command.h"
#include "src/commands/help_formatter.h"
#include "src/commands/terminal_style.h"
#include "src/hosts/snapshot.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

// The command line in rocdoc's words (docs/rocdoc.1.md): `rocdoc` alone is `rocdoc check`,
// every error is one line naming the command and the flag, then a hint at that command's help.
// The commands themselves are rows of the table (src/commands/table.cpp).

constexpr std::string_view k_top_footer =
    "Without a command, rocdoc runs check: `rocdoc --json` is `rocdoc check --json`.\n"
    "'rocdoc help COMMAND' or 'rocdoc COMMAND --help' shows a command's options and exit "
    "codes.\n"
    "\n"
    "Exit codes of check: 0 nothing reached --fail-on, 1 something did (or a --require check\n"
    "did not run), 2 rocdoc could not do its job (bad arguments, input, rules, or writing).\n";

bool is_option(std::string_view arg) { return arg.size() > 1 && arg.front() == '-'; }

/// Whether `word` is one of the own commands of `command` ("lint" of "rules").
bool is_subcommand(std::string_view command, std::string_view word) {
  const Command* row = find_command(command);
  return row != nullptr && std::find(row->subcommands.begin(), row->subcommands.end(), word) !=
                               row->subcommands.end();
}

/// "check, snapshot, …, rules lint, rules show, completions, help and version": every command
/// of the table, in its order, with its own commands.
std::string command_list() {
  std::vector<std::string> names;
  for (const Command& command : command_table()) {
    if (command.subcommands.empty()) {
      names.emplace_back(command.name);
    }
    for (const std::string_view sub : command.subcommands) {
      names.push_back(std::string(command.name) + " " + std::string(sub));
    }
  }
  names.emplace_back("help");
  return util::join(names, ", ") + " and version";
}

/// "check", "rules lint", "list-checks", "rules", or "" (the program itself): the command
/// that normalized arguments run.
std::string command_name(const std::vector<std::string>& args) {
  if (args.empty() || find_command(args[0]) == nullptr) {
    return "";
  }
  if (args.size() > 1 && is_subcommand(args[0], args[1])) {
    return args[0] + " " + args[1];
  }
  return args[0];
}

std::string usage_hint(const std::string& command) {
  return "Run 'rocdoc " + (command.empty() ? "" : command + " ") + "--help' for usage.\n";
}

/// `rocdoc` and `rocdoc --json …` run check; `help [COMMAND]` is `[COMMAND] --help`;
/// `version` is --version. An unknown command is (the problem, the command whose help to
/// point at).
std::optional<std::pair<std::string, std::string>> normalize_arguments(
    std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "help") {
    args.erase(args.begin());
    if (!args.empty() && args[0] == "help") {
      args.erase(args.begin());  // `help help`: the help of help is rocdoc's own (N29)
    }
    args.emplace_back("--help");
  } else if (!args.empty() && args[0] == "version") {
    args[0] = "--version";
  }
  const auto top_level = [](std::string_view arg) {
    return arg == "-h" || arg == "--help" || arg == "-V" || arg == "--version";
  };
  if (args.empty() || (is_option(args[0]) && !top_level(args[0]))) {
    args.insert(args.begin(), "check");
  }
  if (top_level(args[0])) {
    return std::nullopt;
  }
  if (find_command(args[0]) == nullptr) {
    // A command's own commands are suggested with it: "lint" is "rules lint".
    std::vector<std::string> candidates;
    std::vector<std::string> full_names;
    for (const Command& command : command_table()) {
      candidates.emplace_back(command.name);
      full_names.emplace_back(command.name);
    }
    candidates.insert(candidates.end(), {"help", "version"});
    full_names.insert(full_names.end(), {"help", "version"});
    for (const Command& command : command_table()) {
      for (const std::string_view sub : command.subcommands) {
        candidates.emplace_back(sub);
        full_names.push_back(std::string(command.name) + " " + std::string(sub));
      }
    }
    const std::string best = closest(args[0], candidates);
    const auto at = std::find(candidates.begin(), candidates.end(), best);
    const std::string suggestion =
        best.empty() ? best : full_names[static_cast<std::size_t>(at - candidates.begin())];
    return std::pair{"unknown command '" + util::printable(args[0]) + "'" +
                         (suggestion.empty() ? "; the commands are " + command_list()
                                             : "; did you mean " + suggestion + "?"),
                     std::string()};
  }
  // A command with commands of its own ("rules lint"): one of them must follow it.
  const Command& row = *find_command(args[0]);
  if (!row.subcommands.empty() && (args.size() == 1 || !is_option(args[1]))) {
    const std::vector<std::string> subcommands(row.subcommands.begin(), row.subcommands.end());
    const std::string name(row.name);
    if (args.size() == 1) {
      return std::pair{name + ": needs a command: " + util::join(subcommands, " or "), name};
    }
    if (!is_subcommand(row.name, args[1])) {
      const std::string best = closest(args[1], subcommands);
      return std::pair{name + ": unknown command '" + util::printable(args[1]) + "'" +
                           (best.empty() ? "; the commands are " + util::join(subcommands, " and ")
                                         : "; did you mean " + best + "?"),
                       name};
    }
  }
  return std::nullopt;
}

/// What an option's value must be, for "needs a value: …".
std::string value_words(const CLI::App& command, const std::string& option) {
  static const std::map<std::string, std::string, std::less<>> k_words = {
      {"--fail-on", "error, warning or never"},
      {"--format", "human, json, markdown, slurm, prometheus or npd"},
      {"--root", "a snapshot directory"},
      {"--snapshot", "a snapshot archive (.tar.gz)"},
      {"--dir", "a directory"},
      {"-o", "a file"},
      {"--note", "text"},
      {"--rules", "a rules directory"},
      {"--sysroot", "a directory"},
      {"--only", "check ids or areas (perm.kfd,torch.*)"},
      {"--skip", "check ids or areas (perm.kfd,torch.*)"},
      {"--require", "check ids or areas (perm.kfd,torch.*)"},
      {"--python", "an interpreter (a path, or a name on PATH)"},
      {"--output", "a file"},
      {"--json-output", "a file"},
      {"--junit", "a file"},
      {"--gpu", "gfx targets (gfx942,gfx1100)"},
      {"--env", "NAME=VALUE"}};
  if (const auto it = k_words.find(option); it != k_words.end()) {
    return it->second;
  }
  const CLI::Option* found = command.get_option_no_throw(option);
  return found != nullptr ? util::to_lower(found->get_type_name()) : "a value";
}

/// A CLI11 parse error in rocdoc's words: "check --fail-on: needs a value: error, …".
std::string parse_problem(const CLI::App& command, const std::string& name,
                          const CLI::ParseError& error) {
  const std::string what = error.what();
  const std::string prefix = name.empty() ? "" : name + " ";
  // CLI11 says "--fail-on: 1 required TEXT:{error,warning,never} missing".
  const auto colon = what.find(": ");
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr && colon != std::string::npos &&
      what.find(" required ") != std::string::npos && what.size() >= 8 &&
      what.substr(what.size() - 8) == " missing") {
    const std::string option = what.substr(0, colon);
    return prefix + option + ": needs a value: " + value_words(command, option);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && name == "rules") {
    return "rules: needs a command: lint or show";
  }
  // "--fail-on: At Most 1 required but received 2"
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr && colon != std::string::npos &&
      what.find(": At Most ") == colon) {
    return prefix + what.substr(0, colon) + ": given more than once";
  }
  // "Could not convert: --json = yes": a value given to a flag.
  constexpr std::string_view k_conversion = "Could not convert: ";
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr &&
      what.rfind(k_conversion, 0) == 0 && what.find(" = ") != std::string::npos) {
    const std::string option =
        what.substr(k_conversion.size(), what.find(" = ") - k_conversion.size());
    const CLI::Option* found = command.get_option_no_throw(option);
    if (found != nullptr && found->get_expected_max() == 0) {
      return prefix + util::printable(option) + ": takes no value";
    }
  }
  return (name.empty() ? "" : name + ": ") + util::printable(what);
}

/// An argument no option took: "check: unknown option --jsn; did you mean --json?".
std::string extras_problem(const CLI::App& command, const std::string& name,
                           const std::string& extra) {
  const std::string prefix = name.empty() ? "" : name + ": ";
  if (!is_option(extra)) {
    const bool command_name = find_command(extra) != nullptr;
    return prefix + "unexpected argument '" + util::printable(extra) + "'" +
           (command_name ? " (the command comes first: rocdoc " + extra + " [OPTIONS])" : "");
  }
  const std::string option = extra.substr(0, extra.find('='));
  std::vector<std::string> names;
  for (const CLI::Option* candidate : command.get_options()) {
    for (const auto& long_name : candidate->get_lnames()) {
      names.push_back("--" + long_name);
    }
    for (const auto& short_name : candidate->get_snames()) {
      names.push_back("-" + short_name);
    }
  }
  // "-x" is one letter away from every short option: no suggestion for those.
  const std::string best = option.size() > 3 ? closest(option, names) : std::string();
  return prefix + "unknown option " + util::printable(option) +
         (best.empty() ? "" : "; did you mean " + best + "?");
}

/// The CLI11 command that `name` ("", "check", "rules lint") is.
const CLI::App& command_app(const CLI::App& app, const std::string& name) {
  if (name.empty()) {
    return app;
  }
  const auto space = name.find(' ');
  const CLI::App* command = app.get_subcommand(name.substr(0, space));
  return space == std::string::npos ? *command : *command->get_subcommand(name.substr(space + 1));
}

/// Runs the command line `args` (without the program's name, as CLI11 expects them after
/// normalize_arguments) through the table of commands, writing what it prints to `out`.
int run_command(const std::vector<std::string>& args, const CommandStreams& io) {
  CLI::App app{
      "rocdoc: the ROCm environment doctor. Says why PyTorch cannot use your AMD GPU "
      "and what to type to fix it. It only reads; fixes are printed, never run.",
      "rocdoc"};
  // Before the commands are added: each takes its parent's formatter.
  app.formatter(std::make_shared<HelpFormatter>(choose_width(io.terminal, io.terminal_columns)));
  app.set_version_flag("-V,--version", std::string("rocdoc ") + ROCDOC_VERSION);
  app.footer(std::string(k_top_footer));
  app.require_subcommand(1);
  app.allow_extras();  // unknown options and arguments get rocdoc's own words (extras_problem)

  // Only the command given gets its options: CLI11 builds a dozen objects for each option, and
  // every command's were a tenth of a check's whole run. The program's own help and did-you-mean
  // need only the names; completions walks every option.
  const std::string command = command_name(args);
  const std::string_view given = std::string_view(command).substr(0, command.find(' '));
  const bool every_command = given.empty() || given == "completions";
  std::vector<std::pair<CLI::App*, RegisteredCommand>> registered;
  for (const Command& row : command_table()) {
    CLI::App* subcommand = app.add_subcommand(std::string(row.name), std::string(row.summary));
    subcommand->allow_extras();
    if (!every_command && row.name != given) {
      continue;
    }
    registered.emplace_back(subcommand, row.add_options(*subcommand, app));
    for (CLI::App* sub : subcommand->get_subcommands({})) {
      sub->allow_extras();
    }
  }

  const CLI::App& current = command_app(app, command);
  const auto usage_error = [&](const std::string& problem) {
    io.err << "rocdoc: " << problem << "\n" << usage_hint(command);
    return k_exit_usage;
  };
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 takes them
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    io.out << app.help();  // of the command given: "Usage: rocdoc rules lint [OPTIONS] [DIR]"
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    io.out << "rocdoc " << ROCDOC_VERSION << " (commit " << k_build_commit << ", rules revision "
           << embedded_knowledge_revision() << ")\n";
    return 0;
  } catch (const CLI::ParseError& error) {
    return usage_error(parse_problem(current, command, error));
  }
  if (const auto extras = app.remaining(true); !extras.empty()) {
    return usage_error(extras_problem(current, command, extras.front()));
  }
  const auto chosen = std::find_if(registered.begin(), registered.end(),
                                   [](const auto& entry) { return entry.first->parsed(); });
  if (chosen == registered.end()) {
    return k_exit_usage;
  }
  if (const auto problem = chosen->second.argument_problem()) {
    return usage_error(*problem);
  }
  try {
    return chosen->second.run(io);
  } catch (const RulesError& error) {
    // Each message quotes what it read (a manifest key, a rules scalar, a path): printable()
    // keeps it one line of plain text, whatever bytes the input held.
    io.err << "rocdoc: invalid rules: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  } catch (const SnapshotError& error) {
    io.err << "rocdoc: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  } catch (const std::exception& error) {
    io.err << "rocdoc: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  }
}

/// Writes `text` and flushes; why it could not be written (errno's words), or nullopt.
std::optional<std::string> write_stream(std::ostream& out, const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  errno = 0;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (out.good()) {
    return std::nullopt;
  }
  const int error = errno;  // the failed write(2)'s: the stream makes no other call after it
  return error != 0 ? std::strerror(error) : "the output stream failed";
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  if (const auto problem = normalize_arguments(args)) {
    err << "rocdoc: " << problem->first << "\n" << usage_hint(problem->second);
    return k_exit_usage;
  }
  // Everything a command prints is kept until it is done, then written at once: a command that
  // fails (exit 2) prints nothing on standard output, and a write that fails is exit 2 too.
  // `targets` is the exception: like cat(1), it answers the files it could open when another
  // cannot be opened (exit 2).
  std::ostringstream text;
  const int code = run_command(args, {text, err, terminal, terminal_columns});
  if (code == k_exit_usage && command_name(args) != "targets") {
    return code;
  }
  if (const auto problem = write_stream(out, text.str())) {
    err << "rocdoc: cannot write the report: " << *problem << "\n";
    return k_exit_usage;
  }
  return code;
}

}  // namespace rocdoc
