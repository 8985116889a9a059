// `rocdoc completions bash|zsh|fish`: shell completion scripts generated from the command line
// itself, so a new command or flag is completed without a second list.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace rocdoc {

/// The completion script of `shell` ("bash", "zsh" or "fish") for the command line `app`: its
/// subcommands (nested ones too: rules lint) and each one's options, walked from CLI11, with
/// the values an option or argument takes decided by its type name (FILE, PATH: files; DIR:
/// directories; ID|AREA.*: comma-separated check ids and AREA.* from the check table;
/// FORMAT: human json markdown; LEVEL: error warning never; SHELL), plus `help COMMAND` and
/// `version`. nullopt for another shell.
std::optional<std::string> completion_script(const CLI::App& app, std::string_view shell);

}  // namespace rocdoc
