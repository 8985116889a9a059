// `rocdoc list-checks [--json]`: every check id of the check table with its severity.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "rocdoc/check.h"
#include "src/commands/command.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_list_exit_codes =
    "Exit codes:\n"
    "  0  the list was printed\n"
    "  2  bad arguments, or the output could not be written\n";

std::string_view to_string(Scope scope) {
  return scope == Scope::bare_metal ? "bare_metal" : "anywhere";
}

/// One line per check; columns two spaces apart, each as wide as its longest entry.
int run_list_checks(bool json, std::ostream& out) {
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& check : check_table()) {
      nlohmann::json needs = nlohmann::json::array();
      for (const auto need : check.needs) {
        needs.push_back(need);
      }
      list.push_back({{"id", check.id},
                      {"area", check.area},  // as in the report: the heading
                      {"title", check.title},
                      {"severity", to_string(check.severity)},
                      {"scope", to_string(check.scope)},
                      {"needs", needs}});
    }
    out << list.dump(2) << "\n";
    return 0;
  }
  std::size_t id_width = 0;
  std::size_t area_width = 0;
  for (const auto& check : check_table()) {
    id_width = std::max(id_width, check.id.size());
    area_width = std::max(area_width, check.area.size());
  }
  for (const auto& check : check_table()) {
    out << fmt::format("{:<{}}  {:<7}  {:<{}}  {}\n", check.id, id_width, to_string(check.severity),
                       check.area, area_width, check.title);
  }
  return 0;
}

}  // namespace

RegisteredCommand add_list_checks_options(CLI::App& command, const CLI::App& /*app*/) {
  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = &command;
  list->add_flag("--json", *list_json,
                 "Print a JSON array of {id, area, title, severity, scope, needs}");
  list->footer(std::string(k_list_exit_codes));
  return {[] { return std::optional<std::string>(); },
          [list_json](const CommandStreams& io) { return run_list_checks(*list_json, io.out); }};
}

}  // namespace rocdoc
