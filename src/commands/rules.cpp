// `rocdoc rules lint [DIR]` and `rocdoc rules show WHAT`: validate the knowledge base, and say
// what it knows of a gfx target, PCI id, product name, torch, ROCm or driver version.
#include <algorithm>
#include <memory>

#include "rocdoc/knowledge_loader.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/knowledge/lookup.h"
#include "src/knowledge/show.h"
#include "src/knowledge/show_json.h"
#include "src/triage/scan.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_lint_exit_codes =
    "Exit codes:\n"
    "  0  the rules are valid\n"
    "  2  they are not, DIR holds no rules files, bad arguments, or the output could not be\n"
    "     written\n";
constexpr std::string_view k_show_exit_codes =
    "Exit codes:\n"
    "  0  the knowledge base knows it; printed\n"
    "  2  it knows nothing of that name (a ROCm, torch or driver version newer than the rules\n"
    "     included: they say so), invalid rules, bad arguments, or the output could not be\n"
    "     written\n";
constexpr std::string_view k_rules_exit_codes =
    "Exit codes: see 'rocdoc rules lint --help' and 'rocdoc rules show --help'.\n";

struct RulesOptions {
  std::string dir;                ///< lint: the directory; show: --rules
  std::vector<std::string> what;  ///< show: "gfx1031" | "torch 2.6" | "73df"
  bool json = false;              ///< show --json
};

int run_rules_lint(const RulesOptions& options, std::ostream& out) {
  const auto rules = load_rules(options.dir);  // throws RulesError: exit 2
  const Knowledge& knowledge = *rules;
  // Every check id that a signature of triage.yaml names exists (the loader cannot tell).
  check_triage_signatures(knowledge);
  render_rules_summary(knowledge, out);
  out << "valid\n";
  return 0;
}

int run_rules_show(const RulesOptions& options, std::ostream& out, std::ostream& err) {
  const auto rules = load_rules(options.dir);
  const Knowledge& knowledge = *rules;
  const std::string query = util::join(options.what, " ");
  RulesLookup found = lookup_rules(knowledge, query);
  const bool unknown_torch =
      found.kind == RulesLookup::Kind::torch && torch_releases_named(knowledge, found.text).empty();
  if (unknown_torch && knowledge.torch_newer_than_rules(found.text)) {
    found.kind = RulesLookup::Kind::newer;  // one answer for a ROCm, torch or driver too new
    found.text = "torch " + found.text;
  }
  // Exit 2 prints nothing on standard output: a version newer than the rules is said on
  // standard error, with or without --json.
  if (options.json && found.kind != RulesLookup::Kind::none &&
      found.kind != RulesLookup::Kind::newer && !unknown_torch) {
    render_rules_show_json(knowledge, query, found, out);
    return 0;
  }
  if (!found.note.empty() && found.kind != RulesLookup::Kind::newer) {
    out << "(" << util::printable(found.note) << ")\n";
  }
  switch (found.kind) {
    case RulesLookup::Kind::gfx_target:
      render_target(knowledge, *found.targets.front(), out);
      return 0;
    case RulesLookup::Kind::pci_id:
      render_pci_id(knowledge, *found.pci_ids.front(), out);
      return 0;
    case RulesLookup::Kind::product:
      for (const PciIdEntry* entry : found.pci_ids) {
        render_pci_id_line(*entry, out);
      }
      for (const GfxTarget* target : found.targets) {
        if (!found.pci_ids.empty() && !found.pci_ids_map_to(*target)) {
          out << "(" << target->name
              << " below is not what the PCI ids above map to: it names these products' "
                 "engineering samples or what older kernels reported)\n";
        }
        render_target(knowledge, *target, out);
      }
      return 0;
    case RulesLookup::Kind::torch:
      if (!render_torch(knowledge, found.text, out)) {
        err << "rocdoc: no torch release " << util::printable(found.text)
            << " in these rules (revision " << util::printable(knowledge.revision) << ")\n";
        return k_exit_usage;
      }
      return 0;
    case RulesLookup::Kind::torch_version:
      render_torch_version(knowledge, found.text, out);
      return 0;
    case RulesLookup::Kind::rocm:
      render_rocm_release(knowledge, *found.rocm, out);
      return 0;
    case RulesLookup::Kind::driver:
      render_driver(knowledge, *found.driver, out);
      return 0;
    case RulesLookup::Kind::newer:
      err << "rocdoc: " << util::printable(found.text) << " is newer than these rules (revision "
          << util::printable(knowledge.revision) << "): rocdoc knows nothing about it yet"
          << (found.note.empty() ? "" : "; " + util::printable(found.note)) << "\n";
      return k_exit_usage;
    case RulesLookup::Kind::none:
      break;
  }
  err << "rocdoc: the knowledge base knows nothing called '" << util::printable(query) << "'"
      << (found.suggestion.empty() ? ""
                                   : "; did you mean " + util::printable(found.suggestion) + "?")
      << " (rules show takes a gfx target, a PCI id, a product name such as \"RX 7900 XTX\", a "
         "torch version such as 2.6.0+rocm6.2.4, a ROCm or HIP version, an amdgpu driver module "
         "or an AMD GPU Driver release such as 31.40)\n";
  return k_exit_usage;
}

}  // namespace

RegisteredCommand add_rules_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<RulesOptions>();
  CLI::App* rules = &command;
  RulesOptions& rules_options = *state;
  rules->require_subcommand(1);
  rules->footer(std::string(k_rules_exit_codes));
  CLI::App* lint =
      rules->add_subcommand("lint", "Validate a rules directory (default: the embedded rules)");
  lint->add_option("DIR", rules_options.dir, "Directory of *.yaml rules")->type_name("");
  lint->footer(std::string(k_lint_exit_codes));
  CLI::App* show =
      rules->add_subcommand("show",
                            "Show what the knowledge base knows: gfx1031, 73df, \"RX 7900 XTX\", "
                            "2.6.0+rocm6.2.4, torch 2.6, 7.2.1, 31.40, 6.19.14.31400000");
  show->add_option("WHAT", rules_options.what,
                   "gfx target, PCI device id, product name, torch version, ROCm or driver version")
      ->type_name("");
  show->add_flag("--json", rules_options.json,
                 "Print the entries as JSON (schema rocdoc-rules-show/1)");
  show->add_option("--rules", rules_options.dir, "Use the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  show->footer(std::string(k_show_exit_codes));
  return {[state, lint, show]() -> std::optional<std::string> {
            if (lint->parsed() && !state->dir.empty()) {
              return directory_problem("rules lint", state->dir);
            }
            if (show->parsed()) {
              return state->what.empty() ? "rules show: say what to show (a gfx target, PCI id, "
                                           "product name, torch or ROCm version)"
                                         : directory_problem("rules show --rules", state->dir);
            }
            return std::nullopt;
          },
          [state, lint](const CommandStreams& io) {
            return lint->parsed() ? run_rules_lint(*state, io.out)
                                  : run_rules_show(*state, io.out, io.err);
          }};
}

}  // namespace rocdoc
