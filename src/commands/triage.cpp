#include "src/commands/triage.h"

#include <sstream>

#include <unistd.h>
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/terminal_style.h"
#include "src/render/triage.h"
#include "src/triage/scan.h"
#include "src/util/strings.h"

namespace rocdoc {

std::optional<std::string> triage_argument_problem(const TriageOptions& options,
                                                   bool stdin_is_terminal) {
  if (options.fail_on != "error" && options.fail_on != "warning" && options.fail_on != "never") {
    return "triage --fail-on: '" + util::printable(options.fail_on) +
           "' is not error, warning or never";
  }
  if (!options.format.empty() && options.format != "human" && options.format != "json" &&
      options.format != "markdown") {
    return "triage --format: '" + util::printable(options.format) +
           "' is not human, json or markdown";
  }
  if (options.json && !options.format.empty() && options.format != "json") {
    return "triage --json: it is --format json; it cannot go with --format " +
           util::printable(options.format);
  }
  if (options.file.empty() && stdin_is_terminal) {
    return "triage: name the log to read (a FILE, or - for standard input: rocdoc triage - < "
           "log.txt)";
  }
  return std::nullopt;
}

int run_triage(const TriageOptions& options, const CommandStreams& io) {
  std::ostream& out = io.out;
  std::ostream& err = io.err;
  const auto rules = load_rules(options.rules);
  const Knowledge& knowledge = *rules;
  const std::string path = options.file.empty() ? "-" : options.file;
  const TriageInput input = read_triage_input(path);
  if (input.problem) {
    err << "rocdoc: triage: " << *input.problem << "\n";
    return 2;
  }
  const TriageReport report = triage_log(input.text, knowledge);
  TriageContext context;
  context.input = path == "-" ? "standard input" : path;
  context.rules_origin = knowledge.origin;
  context.rules_revision = knowledge.revision;
  // The human answer looks as check's report does on this terminal.
  context.human.color =
      choose_color(options.no_color ? ColorFlag::no_color : ColorFlag::none, io.terminal);
  context.human.width = choose_width(io.terminal, io.terminal_columns);
  context.human.glyphs = choose_glyphs();
  context.fail_on = options.fail_on == "warning" ? FailOn::warning
                    : options.fail_on == "never" ? FailOn::never
                                                 : FailOn::error;
  const std::string format = options.json ? "json" : options.format;
  if (format == "json") {
    render_triage_json(report, context, out);
  } else if (format == "markdown") {
    render_triage_markdown(report, context, out);
  } else {
    render_triage_human(report, context, out);
  }
  return triage_exit_code(report, context.fail_on);
}

RegisteredCommand add_triage_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<TriageOptions>();
  CLI::App* triage = &command;
  TriageOptions& triage_options = *state;
  triage->add_option("FILE", triage_options.file, "The log; - reads standard input")->type_name("");
  triage->add_flag("--json", triage_options.json, "Print JSON (schema rocdoc-triage/1)");
  triage
      ->add_option("--format", triage_options.format,
                   "Output format: human (default), json, markdown")
      ->type_name("FORMAT")
      ->take_last();
  triage
      ->add_option("--fail-on", triage_options.fail_on,
                   "Lowest severity that makes the exit code 1: error (default), warning, never")
      ->type_name("LEVEL")
      ->take_last();
  triage->add_flag("--no-color", triage_options.no_color,
                   "Never colour the output (NO_COLOR works too)");
  triage->add_option("--rules", triage_options.rules, "Use the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  triage->footer(std::string(k_triage_exit_codes));
  return {[state]() -> std::optional<std::string> {
            if (auto problem = triage_argument_problem(*state, ::isatty(STDIN_FILENO) == 1)) {
              return problem;
            }
            return directory_problem("triage --rules", state->rules);
          },
          [state](const CommandStreams& io) { return run_triage(*state, io); }};
}

}  // namespace rocdoc
