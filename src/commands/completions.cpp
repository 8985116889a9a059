// `rocdoc completions`: the scripts of bash, zsh and fish from one walk of the command line.
// Whole on purpose: the three scripts share the walk and the value kinds of each type name.
#include "src/commands/completions.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iterator>
#include <set>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/render.h"
#include "src/commands/command.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// What an option's value (or a command's argument) is, and so how it is completed.
enum class Values {
  none,
  text,
  file,
  directory,
  check_ids,
  checks,
  formats,         ///< human json markdown (explain, triage, fleet)
  report_formats,  ///< check's: k_report_formats
  levels,
  shells,
  commands,
  targets,       ///< gfx targets the rules know (rules show WHAT)
  target_lists,  ///< the same, comma-separated (--gpu gfx942,gfx1100)
};

struct CompletedOption {
  std::vector<std::string> names;  ///< "-v", "--verbose"
  std::string help;
  Values values = Values::none;  ///< none: a flag
};

struct CompletedCommand {
  std::string path;  ///< "check", "rules lint"; "" for rocdoc itself
  std::string name;  ///< "lint"
  std::string help;
  std::vector<CompletedOption> options;
  Values argument = Values::none;
  std::vector<std::string> subcommands;
};

/// The values of an option whose type name is `type` (an argument: its type name, else its
/// name). The lists here are of values, never of flags: every flag comes from CLI11.
Values values_of(std::string_view type) {
  if (type == "FILE" || type == "FILE|-" || type == "FILE..." || type == "PATH") {
    return Values::file;
  }
  if (type == "DIR") {
    return Values::directory;
  }
  if (type == "ID|AREA.*") {
    return Values::checks;
  }
  if (type == "ID") {
    return Values::check_ids;
  }
  if (type == "FORMAT") {
    return Values::formats;
  }
  if (type == "LEVEL") {
    return Values::levels;
  }
  if (type == "SHELL") {
    return Values::shells;
  }
  if (type == "WHAT" || type == "GFX") {
    return Values::targets;  // rules show: the gfx targets; names and versions are typed
  }
  if (type == "GPUS") {
    return Values::target_lists;
  }
  return Values::text;
}

const char* values_name(Values values) {
  switch (values) {
    case Values::none:
      return "";
    case Values::text:
      return "text";
    case Values::file:
      return "file";
    case Values::directory:
      return "dir";
    case Values::check_ids:
      return "ids";
    case Values::checks:
      return "checks";
    case Values::formats:
      return "formats";
    case Values::report_formats:
      return "report_formats";
    case Values::levels:
      return "levels";
    case Values::shells:
      return "shells";
    case Values::commands:
      return "commands";
    case Values::targets:
      return "gfx_targets";
    case Values::target_lists:
      return "gfx_target_lists";
  }
  return "";
}

/// A description short enough for a completion menu: its first clause.
std::string short_help(std::string_view help) {
  for (const std::string_view stop : {": ", " (", "; ", ", e.g."}) {
    if (const auto at = help.find(stop); at != std::string_view::npos && at >= 12) {
      help = help.substr(0, at);
    }
  }
  return std::string(help);
}

void walk(const CLI::App& app, const std::string& path, std::vector<CompletedCommand>& commands) {
  CompletedCommand command;
  command.path = path;
  command.name = app.get_name();
  command.help = short_help(app.get_description());
  for (const CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) {
      const std::string& type = option->get_type_name();
      command.argument = values_of(type.empty() ? option->get_name(true) : type);
      continue;
    }
    CompletedOption completed;
    for (const auto& name : option->get_snames()) {
      completed.names.push_back("-" + name);
    }
    for (const auto& name : option->get_lnames()) {
      completed.names.push_back("--" + name);
    }
    completed.help = short_help(option->get_description());
    completed.values =
        option->get_expected_max() == 0 ? Values::none : values_of(option->get_type_name());
    if (completed.values == Values::formats && path == "check") {
      completed.values = Values::report_formats;  // check alone has the one-line and metric formats
    }
    command.options.push_back(std::move(completed));
  }
  const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* subcommand : subcommands) {
    command.subcommands.push_back(subcommand->get_name());
  }
  commands.push_back(std::move(command));
  for (const CLI::App* subcommand : subcommands) {
    walk(*subcommand, path.empty() ? subcommand->get_name() : path + " " + subcommand->get_name(),
         commands);
  }
}

/// Every command of `app`, rocdoc itself first; `help` and `version` are words of their own
/// (normalize_arguments in cli.cpp), and rocdoc without a command takes check's options.
std::vector<CompletedCommand> completed_commands(const CLI::App& app) {
  std::vector<CompletedCommand> commands;
  walk(app, "", commands);
  CompletedCommand& top = commands.front();
  top.subcommands.push_back("help");
  top.subcommands.push_back("version");
  commands.push_back(
      {"help", "help", "Show a command's options and exit codes", {}, Values::commands, {}});
  commands.push_back({"version", "version", "Print the version", {}, Values::none, {}});
  return commands;
}

const CompletedCommand* find_command(const std::vector<CompletedCommand>& commands,
                                     std::string_view path) {
  for (const auto& command : commands) {
    if (command.path == path) {
      return &command;
    }
  }
  return nullptr;
}

/// The options rocdoc completes after `path`: without a command, rocdoc's own and check's.
std::vector<CompletedOption> options_of(const std::vector<CompletedCommand>& commands,
                                        const CompletedCommand& command) {
  std::vector<CompletedOption> options = command.options;
  if (command.path.empty()) {
    if (const auto* check = find_command(commands, "check")) {
      for (const auto& option : check->options) {
        if (std::find(option.names.begin(), option.names.end(), "--help") == option.names.end()) {
          options.push_back(option);
        }
      }
    }
  }
  return options;
}

std::string check_ids() {
  std::string ids;
  for (const auto& check : check_table()) {
    ids += (ids.empty() ? "" : " ") + std::string(check.id);
  }
  return ids;
}

/// The gfx targets of the embedded rules, as `rules show` and `--gpu` take them (built once: a
/// script asks for them several times).
const std::string& target_names() {
  static const std::string names = [] {
    std::vector<std::string> list;
    for (const auto& target : embedded_knowledge(KnowledgeParts::machine).targets) {
      list.push_back(target.name);
    }
    return util::join(list, " ");
  }();
  return names;
}

std::vector<std::string> check_areas() {
  std::set<std::string> areas;
  for (const auto& check : check_table()) {
    areas.emplace(check.id.substr(0, check.id.find('.')));
  }
  return {areas.begin(), areas.end()};
}

std::string value_words(Values values) {
  switch (values) {
    case Values::formats:
      return "human json markdown";
    case Values::report_formats:
      return fmt::format("{}",
                         fmt::join(std::begin(k_report_formats), std::end(k_report_formats), " "));
    case Values::levels:
      return "error warning never";
    case Values::shells:
      return "bash zsh fish";
    case Values::targets:
    case Values::target_lists:
      return target_names();
    default:
      return "";
  }
}

/// The data both bash and zsh scripts read, as functions of the command's path.
std::string shell_tables(const std::vector<CompletedCommand>& commands) {
  std::string out;
  out += "_rocdoc_subcommands() {\n  case \"$1\" in\n";
  for (const auto& command : commands) {
    if (!command.subcommands.empty()) {
      out += fmt::format("    \"{}\") echo \"{}\" ;;\n", command.path,
                         fmt::join(command.subcommands, " "));
    }
  }
  out += "  esac\n}\n";
  out += "_rocdoc_options() {\n  case \"$1\" in\n";
  for (const auto& command : commands) {
    std::vector<std::string> names;
    for (const auto& option : options_of(commands, command)) {
      names.insert(names.end(), option.names.begin(), option.names.end());
    }
    out += fmt::format("    \"{}\") echo \"{}\" ;;\n", command.path, fmt::join(names, " "));
  }
  out += "  esac\n}\n";
  out += "# What the value of option $2 of command $1 is; nothing for a flag.\n";
  out += "_rocdoc_value() {\n  case \"$1 $2\" in\n";
  for (const auto& command : commands) {
    for (const auto& option : options_of(commands, command)) {
      if (option.values == Values::none) {
        continue;
      }
      std::vector<std::string> patterns;
      for (const auto& name : option.names) {
        patterns.push_back(fmt::format("\"{} {}\"", command.path, name));
      }
      out +=
          fmt::format("    {}) echo {} ;;\n", fmt::join(patterns, "|"), values_name(option.values));
    }
  }
  out += "  esac\n}\n";
  out += "_rocdoc_argument() {\n  case \"$1\" in\n";
  for (const auto& command : commands) {
    if (command.argument != Values::none) {
      out += fmt::format("    \"{}\") echo {} ;;\n", command.path, values_name(command.argument));
    }
  }
  out += "  esac\n}\n";
  out += fmt::format("_rocdoc_words() {{\n  case \"$1\" in\n");
  for (const Values values :
       {Values::formats, Values::report_formats, Values::levels, Values::shells, Values::targets}) {
    out += fmt::format("    {}) echo \"{}\" ;;\n", values_name(values), value_words(values));
  }
  out +=
      fmt::format("    commands) echo \"{}\" ;;\n", fmt::join(commands.front().subcommands, " "));
  out += fmt::format("    ids) echo \"{}\" ;;\n", check_ids());
  out += "  esac\n}\n";
  return out;
}

constexpr std::string_view k_bash = R"bash(
# The command the words before the cursor name ("check", "rules lint", "" for none yet); a word
# after an option that takes a value is that value.
_rocdoc_command() {
  local command="" i=1 word
  while ((i < cword)); do
    word="${words[i]}"
    if [[ "$word" == -* ]]; then
      [[ -z "$command" && "$word" != -h && "$word" != --help && "$word" != -V && "$word" != --version ]] && command=check
      if [[ "$word" != *=* && -n "$(_rocdoc_value "$command" "$word")" ]]; then
        ((i++))
        [[ "${words[i]}" == "=" ]] && ((i++))
      fi
    elif [[ -z "$command" ]]; then
      command="$word"
    elif [[ " $(_rocdoc_subcommands "$command") " == *" $word "* ]]; then
      command="$command $word"
    fi
    ((i++))
  done
  echo "$command"
}

_rocdoc_complete_values() {
  local kind="$1" prefix=""
  case "$kind" in
    file)
      if declare -F _filedir >/dev/null; then _filedir; else
        compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); fi ;;
    dir)
      if declare -F _filedir >/dev/null; then _filedir -d; else
        compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur"); fi ;;
    checks)
      [[ "$cur" == *,* ]] && prefix="${cur%,*},"
      local word all
      read -ra all <<< "$(_rocdoc_words ids) $(_rocdoc_areas)"
      COMPREPLY=()
      for word in "${all[@]}"; do
        [[ "$word" == "${cur##*,}"* ]] || continue
        # AREA.* goes into the command line as AREA.\*, so the shell never expands it.
        if [[ "$word" == *.\* ]]; then word="${word%\*}\\*"; fi
        COMPREPLY+=("$prefix$word")
      done ;;
    gfx_target_lists)
      [[ "$cur" == *,* ]] && prefix="${cur%,*},"
      mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$(_rocdoc_words gfx_targets)" -- "${cur##*,}") ;;
    ids|formats|report_formats|levels|shells|commands|gfx_targets)
      mapfile -t COMPREPLY < <(compgen -W "$(_rocdoc_words "$kind")" -- "$cur") ;;
    *) COMPREPLY=() ;;
  esac
}

_rocdoc() {
  local cur prev words cword split=false
  if declare -F _init_completion >/dev/null; then
    _init_completion -s || return
  else
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ "$cur" == = ]]; then cur=""; fi
    if [[ "$prev" == = ]] && ((cword > 1)); then prev="${COMP_WORDS[COMP_CWORD-2]}"; split=true; fi
    if [[ "$cur" == --*=* ]]; then prev="${cur%%=*}"; cur="${cur#*=}"; split=true; fi
  fi
  local command value
  command="$(_rocdoc_command)"
  if [[ "$prev" == -* ]]; then
    value="$(_rocdoc_value "$command" "$prev")"
    [[ -z "$command" && -z "$value" ]] && value="$(_rocdoc_value check "$prev")"
    if [[ -n "$value" ]]; then
      _rocdoc_complete_values "$value"
      return 0
    fi
  fi
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_rocdoc_options "$command")" -- "$cur")
    return 0
  fi
  local subcommands
  subcommands="$(_rocdoc_subcommands "$command")"
  if [[ -n "$subcommands" ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur")
    return 0
  fi
  _rocdoc_complete_values "$(_rocdoc_argument "$command")"
  return 0
}
complete -F _rocdoc rocdoc
)bash";

std::string bash_script(const std::vector<CompletedCommand>& commands) {
  std::string out =
      "# bash completion for rocdoc: generated by `rocdoc completions bash`; do not edit.\n"
      "# Load it with: source <(rocdoc completions bash)\n";
  out += shell_tables(commands);
  out += fmt::format("_rocdoc_areas() {{\n  echo \"{}.*\"\n}}\n", fmt::join(check_areas(), ".* "));
  out += k_bash;
  return out;
}

/// Text inside single quotes, for zsh.
std::string zsh_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

constexpr std::string_view k_zsh = R"zsh(
_rocdoc_command() {
  local command="" word
  local -i i=2
  while (( i < CURRENT )); do
    word="${words[i]}"
    if [[ "$word" == -* ]]; then
      [[ -z "$command" && "$word" != (-h|--help|-V|--version) ]] && command=check
      if [[ "$word" != *=* && -n "$(_rocdoc_value "$command" "$word")" ]]; then
        (( i++ ))
      fi
    elif [[ -z "$command" ]]; then
      command="$word"
    elif [[ " $(_rocdoc_subcommands "$command") " == *" $word "* ]]; then
      command="$command $word"
    fi
    (( i++ ))
  done
  print -r -- "$command"
}

_rocdoc_complete_values() {
  case "$1" in
    file) _files ;;
    dir) _files -/ ;;
    checks)
      compset -P '*,'
      local -a checks
      checks=(${=$(_rocdoc_words ids)} ${=_rocdoc_areas})
      _wanted checks expl 'check id or area' compadd -a checks ;;
    gfx_target_lists)
      compset -P '*,'
      local -a targets
      targets=(${=$(_rocdoc_words gfx_targets)})
      _wanted targets expl 'gfx target' compadd -a targets ;;
    ids|formats|report_formats|levels|shells|commands|gfx_targets)
      local -a values
      values=(${=$(_rocdoc_words "$1")})
      _wanted values expl "$1" compadd -a values ;;
    *) _message 'value' ;;
  esac
}

_rocdoc() {
  local command value cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
  command="$(_rocdoc_command)"
  if [[ "$cur" == --*=* ]]; then
    prev="${cur%%=*}"
    compset -P '*='
    cur="${cur#*=}"
  fi
  if [[ "$prev" == -* ]]; then
    value="$(_rocdoc_value "$command" "$prev")"
    [[ -z "$command" && -z "$value" ]] && value="$(_rocdoc_value check "$prev")"
    if [[ -n "$value" ]]; then
      _rocdoc_complete_values "$value"
      return
    fi
  fi
  if [[ "$cur" == -* ]]; then
    local -a options
    options=("${(@f)$(_rocdoc_described_options "$command")}")
    _describe -t options 'option' options
    return
  fi
  if [[ -n "$(_rocdoc_subcommands "$command")" ]]; then
    local -a subcommands
    subcommands=("${(@f)$(_rocdoc_described_commands "$command")}")
    _describe -t commands 'command' subcommands
    return
  fi
  _rocdoc_complete_values "$(_rocdoc_argument "$command")"
}

if [[ "$funcstack[1]" == _rocdoc ]]; then
  _rocdoc "$@"
else
  compdef _rocdoc rocdoc
fi
)zsh";

/// "name:description" for _describe, colons in the name escaped.
std::string described(std::string_view name, std::string_view help) {
  std::string out;
  for (const char c : name) {
    out += c == ':' ? std::string("\\:") : std::string(1, c);
  }
  return out + ":" + std::string(help);
}

std::string zsh_script(const std::vector<CompletedCommand>& commands) {
  std::string out =
      "#compdef rocdoc\n"
      "# zsh completion for rocdoc: generated by `rocdoc completions zsh`; do not edit.\n"
      "# Put it in a directory of $fpath as _rocdoc, or load it with: source <(rocdoc "
      "completions zsh)\n";
  out += shell_tables(commands);
  out += fmt::format("_rocdoc_areas=\"{}.*\"\n", fmt::join(check_areas(), ".* "));
  out += "_rocdoc_described_options() {\n  case \"$1\" in\n";
  for (const auto& command : commands) {
    std::vector<std::string> lines;
    for (const auto& option : options_of(commands, command)) {
      for (const auto& name : option.names) {
        lines.push_back(zsh_quoted(described(name, option.help)));
      }
    }
    out += fmt::format("    \"{}\") print -rl -- {} ;;\n", command.path, fmt::join(lines, " "));
  }
  out += "  esac\n}\n";
  out += "_rocdoc_described_commands() {\n  case \"$1\" in\n";
  for (const auto& command : commands) {
    if (command.subcommands.empty()) {
      continue;
    }
    std::vector<std::string> lines;
    for (const auto& name : command.subcommands) {
      const std::string path = command.path.empty() ? name : command.path + " " + name;
      const auto* sub = find_command(commands, path);
      lines.push_back(zsh_quoted(described(name, sub != nullptr ? sub->help : "")));
    }
    out += fmt::format("    \"{}\") print -rl -- {} ;;\n", command.path, fmt::join(lines, " "));
  }
  out += "  esac\n}\n";
  out += k_zsh;
  return out;
}

/// Text inside single quotes, for fish.
std::string fish_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "'";
}

constexpr std::string_view k_fish = R"fish(
# The check ids and AREA.* after the last comma of the current token (--only a,b).
function __rocdoc_checks
    set -l token (commandline -ct)
    set -l prefix (string match -r '^.*,' -- $token)
    for word in (__rocdoc_described_ids) $__rocdoc_areas
        printf '%s%s\n' "$prefix" $word
    end
end

# The gfx targets after the last comma of the current token (--gpu gfx942,gfx1100).
function __rocdoc_target_list
    set -l prefix (string match -r '^.*,' -- (commandline -ct))
    for target in $__rocdoc_targets
        printf '%s%s\n' "$prefix" $target
    end
end

# True when the command line names exactly the command $argv (a path: rules lint).
function __rocdoc_is
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l subcommands $__rocdoc_top
    for token in $tokens
        if contains -- $token $subcommands
            set path $path $token
            set subcommands (__rocdoc_subcommands_of "$path")
        else if test -z "$path"; and string match -q -- '-*' $token
            and not contains -- $token -h --help -V --version
            set path check
            set subcommands
        end
    end
    test "$path" = "$argv"
end
)fish";

std::string fish_script(const std::vector<CompletedCommand>& commands) {
  std::string out =
      "# fish completion for rocdoc: generated by `rocdoc completions fish`; do not edit.\n"
      "# Put it in ~/.config/fish/completions/rocdoc.fish, or load it with:\n"
      "#   rocdoc completions fish | source\n"
      "complete -c rocdoc -e\n";
  out += fmt::format("set -g __rocdoc_areas {}.\\*\n", fmt::join(check_areas(), ".\\* "));
  // Each id with its title, which fish shows beside it (N30: not the option's help 45 times).
  out += "function __rocdoc_described_ids\n    printf '%s\\t%s\\n'";
  for (const auto& check : check_table()) {
    out += fmt::format(" \\\n        {} {}", check.id, fish_quoted(check.title));
  }
  out += "\nend\n";
  out += fmt::format("set -g __rocdoc_top {}\n", fmt::join(commands.front().subcommands, " "));
  out += fmt::format("set -g __rocdoc_targets {}\n", target_names());
  out += "function __rocdoc_subcommands_of\n    switch \"$argv\"\n";
  for (const auto& command : commands) {
    if (!command.path.empty() && !command.subcommands.empty()) {
      out += fmt::format("        case {}\n            echo {}\n", fish_quoted(command.path),
                         fmt::join(command.subcommands, "\n            echo "));
    }
  }
  out += "    end\nend\n";
  out += k_fish;
  for (const auto& command : commands) {
    const std::string condition = fish_quoted("__rocdoc_is " + command.path);
    for (const auto& name : command.subcommands) {
      const std::string path = command.path.empty() ? name : command.path + " " + name;
      const auto* sub = find_command(commands, path);
      out += fmt::format("complete -c rocdoc -f -n {} -a {} -d {}\n", condition, name,
                         fish_quoted(sub != nullptr ? sub->help : ""));
    }
    for (const auto& option : options_of(commands, command)) {
      std::string names;
      for (const auto& name : option.names) {
        names += name.size() == 2 ? " -s " + name.substr(1) : " -l " + name.substr(2);
      }
      std::string values;
      switch (option.values) {
        case Values::none:
          break;
        case Values::file:
          values = " -r -F";
          break;
        case Values::directory:
          values = " -x -a '(__fish_complete_directories (commandline -ct))'";
          break;
        case Values::checks:
          values = " -x -a '(__rocdoc_checks)'";
          break;
        case Values::check_ids:
          values = " -x -a '(__rocdoc_described_ids)'";
          break;
        case Values::target_lists:
          values = " -x -a '(__rocdoc_target_list)'";
          break;
        case Values::text:
          values = " -x";
          break;
        default:
          values = " -x -a " + fish_quoted(value_words(option.values));
      }
      out += fmt::format("complete -c rocdoc -n {}{}{} -d {}\n", condition, names, values,
                         fish_quoted(option.help));
    }
    switch (command.argument) {
      case Values::file:
        out += fmt::format("complete -c rocdoc -n {} -F\n", condition);
        break;
      case Values::directory:
        out += fmt::format(
            "complete -c rocdoc -n {} -f -a '(__fish_complete_directories (commandline -ct))'\n",
            condition);
        break;
      case Values::check_ids:
        out +=
            fmt::format("complete -c rocdoc -n {} -f -a '(__rocdoc_described_ids)'\n", condition);
        break;
      case Values::commands:
        out += fmt::format("complete -c rocdoc -n {} -f -a '$__rocdoc_top'\n", condition);
        break;
      case Values::formats:
      case Values::report_formats:
      case Values::levels:
      case Values::shells:
      case Values::targets:
        out += fmt::format("complete -c rocdoc -n {} -f -a {}\n", condition,
                           fish_quoted(value_words(command.argument)));
        break;
      default:
        out += fmt::format("complete -c rocdoc -n {} -f\n", condition);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> completion_script(const CLI::App& app, std::string_view shell) {
  const auto commands = completed_commands(app);
  if (shell == "bash") {
    return bash_script(commands);
  }
  if (shell == "zsh") {
    return zsh_script(commands);
  }
  if (shell == "fish") {
    return fish_script(commands);
  }
  return std::nullopt;
}

constexpr std::string_view k_completions_exit_codes =
    "Exit codes:\n"
    "  0  the script was printed\n"
    "  2  no shell or another shell than bash, zsh or fish, or the output could not be written\n";

RegisteredCommand add_completions_options(CLI::App& command, const CLI::App& app) {
  auto completion_shell = std::make_shared<std::string>();
  CLI::App* completions = &command;
  completions->add_option("SHELL", *completion_shell, "bash, zsh or fish")->type_name("");
  completions->footer(std::string(k_completions_exit_codes));
  return {[completion_shell, &app]() -> std::optional<std::string> {
            if (completion_shell->empty()) {
              return "completions: name the shell: bash, zsh or fish (rocdoc completions bash)";
            }
            if (!completion_script(app, *completion_shell)) {
              return "completions: unknown shell '" + util::printable(*completion_shell) +
                     "'; rocdoc completes bash, zsh and fish";
            }
            return std::nullopt;
          },
          [completion_shell, &app](const CommandStreams& io) {
            io.out << *completion_script(app, *completion_shell);
            return 0;
          }};
}

}  // namespace rocdoc
