#include "src/triage_command.h"

#include <sstream>

#include "rocdoc/knowledge.h"
#include "src/render_triage.h"
#include "src/triage.h"
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

int run_triage(const TriageOptions& options, std::ostream& out, std::ostream& err) {
  const Knowledge knowledge =
      options.rules.empty() ? load_embedded_knowledge() : load_knowledge_dir(options.rules);
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

}  // namespace rocdoc
