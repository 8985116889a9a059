// `rocdoc explain ID`: the check's section of docs/checks.md (src/knowledge/explain.cpp) as
// terminal text, Markdown or JSON.
#include <memory>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/terminal_style.h"
#include "src/knowledge/explain.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_explain_exit_codes =
    "Exit codes:\n"
    "  0  the check was explained\n"
    "  2  no check has that id (a planned check is not implemented yet), bad arguments, or the\n"
    "     output could not be written\n";

struct ExplainOptions {
  std::string id;
  bool json = false;
  std::string format;        ///< human, json or markdown; "" when not given
  bool no_color = false;     ///< --no-color
  Color color = Color::off;  ///< chosen from the terminal when it runs
};

/// `rocdoc explain ID`: the check's section of docs/checks.md (src/knowledge/explain.cpp). An id
/// that is not in the check table is exit 2, with the closest id, or the line of a planned check.
int run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err) {
  const std::string& id = options.id;
  const CheckInfo* check = find_check(id);
  if (check == nullptr) {
    if (const auto planned = planned_check(embedded_checks_doc(), id)) {
      err << "rocdoc: explain: " << util::printable(id)
          << " is a planned check, not implemented yet (" << util::printable(*planned)
          << "); rocdoc list-checks lists the checks it runs\n";
      return k_exit_usage;
    }
    std::vector<std::string> ids;
    for (const auto& entry : check_table()) {
      ids.emplace_back(entry.id);
    }
    const std::string best = closest(id, ids);
    err << "rocdoc: explain: unknown check id '" << util::printable(id) << "'"
        << (best.empty() ? "; rocdoc list-checks lists them" : "; did you mean " + best + "?")
        << "\n";
    return k_exit_usage;
  }
  const ExplainFormat format = options.json || options.format == "json" ? ExplainFormat::json
                               : options.format == "markdown"           ? ExplainFormat::markdown
                                                                        : ExplainFormat::human;
  if (!render_explain(*check, embedded_knowledge(), embedded_checks_doc(), format, out,
                      options.color)) {
    err << "rocdoc: explain: docs/checks.md has no section for " << check->id
        << " (a build of rocdoc without it)\n";
    return k_exit_usage;
  }
  return 0;
}

}  // namespace

RegisteredCommand add_explain_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<ExplainOptions>();
  CLI::App* explain = &command;
  ExplainOptions& explain_options = *state;
  explain->add_option("ID", explain_options.id, "A check id, as rocdoc list-checks prints it")
      ->type_name("");
  explain->add_flag("--json", explain_options.json, "Print it as JSON: --format json");
  explain
      ->add_option("--format", explain_options.format,
                   "human (default), json, or markdown (the section of docs/checks.md)")
      ->type_name("FORMAT")
      ->take_last();
  explain->add_flag("--no-color", explain_options.no_color,
                    "Never colour the output (NO_COLOR works too)");
  explain->footer(std::string(k_explain_exit_codes));
  return {[state]() -> std::optional<std::string> {
            return state->id.empty()
                       ? "explain: say which check to explain (an id that rocdoc list-checks "
                         "prints, e.g. perm.kfd)"
                       : format_problem("explain", state->format, state->json);
          },
          [state](const CommandStreams& io) {
            state->color =
                choose_color(state->no_color ? ColorFlag::no_color : ColorFlag::none, io.terminal);
            return run_explain(*state, io.out, io.err);
          }};
}

}  // namespace rocdoc
