#include "src/cli.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "rocdoc/check.h"
#include "rocdoc/env_allowlist.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/live_host.h"
#include "src/render_rules.h"
#include "src/rules_lookup.h"
#include "src/snapshot_host.h"
#include "src/util/strings.h"
#include "src/util/subprocess.h"

namespace rocdoc {

namespace {

constexpr int k_exit_usage = 2;

constexpr std::string_view k_exit_codes =
    "Exit codes of `check`:\n"
    "  0  nothing at or above the --fail-on level (default: error)\n"
    "  1  at least one finding at or above it\n"
    "  2  rocdoc could not do its job: bad arguments, unreadable snapshot, invalid rules\n";

struct CheckOptions {
  std::string root;
  std::string rules;
  bool json = false;
  bool verbose = false;
  bool no_color = false;
  std::string fail_on = "error";
  std::vector<std::string> only;
  std::vector<std::string> skip;
  std::vector<std::string> pythons;
};

struct RulesOptions {
  std::string dir;                ///< lint: the directory; show: --rules
  std::vector<std::string> what;  ///< show: "gfx1031" | "torch 2.6" | "73df"
};

/// One deadline for an interpreter named with --python: starting, answering and exiting.
constexpr std::chrono::seconds k_python_limit{10};
/// A sys.path is a few KB; output this large is not one, and is not kept.
constexpr std::size_t k_python_output_limit = std::size_t{1} << 20;

/// "python3" → the first PATH directory's python3 that can be executed, as a shell finds it.
std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  const char* path = is_allowed_env("PATH") ? std::getenv("PATH") : nullptr;
  for (const auto dir : util::split(path != nullptr ? path : "", ':')) {
    if (dir.empty()) {
      continue;
    }
    const std::string candidate = std::string(dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  throw std::runtime_error("--python " + name + ": not found on PATH");
}

/// The interpreter's whole environment. `python -I` needs none of it (and ignores PYTHON*), so
/// nothing of rocdoc's own environment, where tokens and passwords sit, is passed on: only a
/// plain PATH and locale, and what a version manager's shim needs to start the interpreter that
/// typing its name starts: HOME (asdf reads the global version from ~/.tool-versions; taken from
/// /etc/passwd, not from the environment) and pyenv's choice of version (allow-listed).
std::vector<std::string> interpreter_environment() {
  std::vector<std::string> environment = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8"};
  if (const passwd* user = ::getpwuid(::getuid()); user != nullptr && user->pw_dir != nullptr) {
    environment.push_back(std::string("HOME=") + user->pw_dir);
  }
  for (const char* name : {"PYENV_ROOT", "PYENV_VERSION"}) {
    const char* value = is_allowed_env(name) ? std::getenv(name) : nullptr;
    if (value != nullptr) {
      environment.push_back(std::string(name) + "=" + value);
    }
  }
  return environment;
}

/// Why a run of an interpreter gave no sys.path; nullopt when it exited with status 0.
std::optional<std::string> run_problem(const util::ProcessOutput& output) {
  switch (output.ending) {
    case util::Ending::timed_out:
      return fmt::format("did not exit within {} s; it was killed, with every process it started",
                         k_python_limit.count());
    case util::Ending::output_over_limit:
      return fmt::format("printed more than {} MiB (a sys.path is a few KB); it was killed",
                         k_python_output_limit >> 20);
    case util::Ending::finished:
      break;
  }
  if (output.signal) {
    return "was killed by signal " + util::signal_name(*output.signal);
  }
  if (output.exit_status && *output.exit_status != 0) {
    return "exited with status " + std::to_string(*output.exit_status);
  }
  return std::nullopt;
}

/// Asks an interpreter named with --python for its sys.path: the one time rocdoc runs a
/// program, and only because the user named it. A bare name is looked up on PATH.
PythonInterpreter ask_interpreter(const std::string& name) {
  const std::string python = find_on_path(name);
  std::string error;
  const auto output =
      util::run_capture({python, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"},
                        interpreter_environment(), {k_python_limit, k_python_output_limit}, error);
  if (!output) {
    throw std::runtime_error("--python " + python + ": " + error);
  }
  if (const auto problem = run_problem(*output)) {
    throw std::runtime_error("--python " + python + ": " + *problem);
  }
  PythonInterpreter interpreter{python, {}};
  try {
    for (const auto& entry : nlohmann::json::parse(output->out)) {
      interpreter.sys_path.push_back(entry.get<std::string>());
    }
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("--python " + python + ": did not print its sys.path as JSON");
  }
  return interpreter;
}

/// Reads a variable that steers rocdoc's own output; only allow-listed names.
std::optional<std::string> tool_env(std::string_view name) {
  if (!is_allowed_env(name) || !is_tool_env(name)) {
    return std::nullopt;
  }
  const char* value = std::getenv(std::string(name).c_str());
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

Color choose_color(const CheckOptions& options, OutputIsTerminal terminal) {
  const auto no_color = tool_env("NO_COLOR");
  if (options.no_color || (no_color && !no_color->empty())) {
    return Color::off;
  }
  const auto force = tool_env("CLICOLOR_FORCE");
  if (force && !force->empty() && *force != "0") {
    return Color::on;
  }
  const auto term = tool_env("TERM");
  if (terminal == OutputIsTerminal::no || (term && *term == "dumb")) {
    return Color::off;
  }
  return Color::on;
}

std::string did_you_mean(std::string_view id) {
  std::string best;
  std::size_t best_distance = 4;
  for (const auto& check : check_table()) {
    const std::size_t distance = util::edit_distance(id, check.id);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(check.id);
    }
  }
  return best.empty() ? "; `rocdoc list-checks` lists them" : "; did you mean " + best + "?";
}

/// "a,b" and repeated flags both work.
std::set<std::string> check_ids(const std::vector<std::string>& values, std::string_view flag,
                                std::ostream& err, bool& ok) {
  std::set<std::string> ids;
  for (const auto& value : values) {
    for (const auto part : util::split(value, ',')) {
      const std::string id(util::trim(part));
      if (id.empty()) {
        continue;
      }
      if (find_check(id) == nullptr) {
        err << fmt::format("rocdoc: {}: unknown check id '{}'{}\n", flag, util::printable(id),
                           did_you_mean(id));
        ok = false;
      }
      ids.insert(id);
    }
  }
  return ids;
}

Knowledge load_rules(const std::string& dir) {
  return dir.empty() ? load_embedded_knowledge() : load_knowledge_dir(dir);
}

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err,
              OutputIsTerminal terminal) {
  bool ok = true;
  CheckSelection selection;
  selection.only = check_ids(options.only, "--only", err, ok);
  selection.skip = check_ids(options.skip, "--skip", err, ok);
  if (!ok) {
    return k_exit_usage;
  }
  FailOn fail_on = FailOn::error;
  if (options.fail_on == "warning") {
    fail_on = FailOn::warning;
  } else if (options.fail_on == "never") {
    fail_on = FailOn::never;
  }
  if (!options.pythons.empty() && !options.root.empty()) {
    err << "rocdoc: --python runs an interpreter of this machine; it cannot go with --root\n";
    return k_exit_usage;
  }
  const Knowledge knowledge = load_rules(options.rules);
  std::unique_ptr<Host> host;
  if (options.root.empty()) {
    host = std::make_unique<LiveHost>();
  } else {
    host = std::make_unique<SnapshotHost>(options.root);
  }
  std::vector<PythonInterpreter> interpreters;
  for (const auto& python : options.pythons) {
    interpreters.push_back(ask_interpreter(python));
  }
  Report report = run_report(*host, knowledge, selection, interpreters);
  report.outcome = judge(report, fail_on);
  if (options.json) {
    render_json(report, out);
  } else {
    render_human(report, out, choose_color(options, terminal),
                 options.verbose ? Verbosity::verbose : Verbosity::normal);
  }
  return report.outcome.exit_code;
}

int run_rules_lint(const RulesOptions& options, std::ostream& out) {
  const Knowledge knowledge = load_rules(options.dir);  // throws RulesError: exit 2
  render_rules_summary(knowledge, out);
  out << "valid\n";
  return 0;
}

int run_rules_show(const RulesOptions& options, std::ostream& out, std::ostream& err) {
  const Knowledge knowledge = load_rules(options.dir);
  const std::string query = util::join(options.what, " ");
  const RulesLookup found = lookup_rules(knowledge, query);
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
      out << util::printable(found.text) << " is newer than these rules (revision "
          << util::printable(knowledge.revision) << "): rocdoc knows nothing about it yet\n";
      return 0;
    case RulesLookup::Kind::none:
      break;
  }
  err << "rocdoc: the knowledge base knows nothing called '" << util::printable(query) << "'"
      << (found.suggestion.empty() ? ""
                                   : "; did you mean " + util::printable(found.suggestion) + "?")
      << " (rules show takes a gfx target, a PCI id, a product name such as \"RX 7900 XTX\", a "
         "torch version such as 2.6.0+rocm6.2.4, a ROCm or an amdgpu driver version)\n";
  return k_exit_usage;
}

int run_list_checks(std::ostream& out) {
  for (const auto& check : check_table()) {
    out << fmt::format("{:<24} {:<8} {:<18} {}\n", check.id, to_string(check.severity), check.area,
                       check.title);
  }
  return 0;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            OutputIsTerminal terminal) {
  CLI::App app{
      "rocdoc: the ROCm environment doctor. Says why PyTorch cannot use your AMD GPU "
      "and what to type to fix it. It only reads; fixes are printed, never run.",
      "rocdoc"};
  app.set_version_flag("--version", std::string("rocdoc ") + ROCDOC_VERSION);
  app.footer(std::string(k_exit_codes));
  app.require_subcommand(1);

  CheckOptions options;
  CLI::App* check = app.add_subcommand("check", "Inspect this machine (or a snapshot) and report");
  check->add_option("--root", options.root, "Read a snapshot directory instead of this machine")
      ->check(CLI::ExistingDirectory);
  check->add_option("--rules", options.rules, "Use the rules in DIR instead of the embedded ones")
      ->check(CLI::ExistingDirectory);
  check->add_flag("--json", options.json, "Print the report as JSON (schema rocdoc-report/1)");
  check->add_flag("-v,--verbose", options.verbose,
                  "Also show skipped checks and the facts behind passing ones");
  check->add_flag("--no-color", options.no_color, "Never colour the output (NO_COLOR works too)");
  check->add_option("--fail-on", options.fail_on, "Lowest severity that makes the exit code 1")
      ->check(CLI::IsMember({"error", "warning", "never"}));
  check->add_option("--only", options.only, "Run only these check ids (comma-separated)");
  check->add_option("--skip", options.skip, "Do not run these check ids (comma-separated)");
  check->add_option(
      "--python", options.pythons,
      "Also search the environment of this interpreter (runs it once to ask for sys.path)");
  check->footer(std::string(k_exit_codes));

  RulesOptions rules_options;
  CLI::App* rules = app.add_subcommand("rules", "Validate or show the knowledge base");
  rules->require_subcommand(1);
  CLI::App* lint =
      rules->add_subcommand("lint", "Validate a rules directory (default: the embedded rules)");
  lint->add_option("dir", rules_options.dir, "Directory of *.yaml rules")
      ->check(CLI::ExistingDirectory);
  CLI::App* show =
      rules->add_subcommand("show",
                            "Show what the knowledge base knows: gfx1031, 73df, \"RX 7900 XTX\", "
                            "2.6.0+rocm6.2.4, torch 2.6, 7.2.1, 6.19.14.31400000");
  show->add_option("what", rules_options.what,
                   "gfx target, PCI device id, product name, torch version, ROCm or driver version")
      ->required();
  show->add_option("--rules", rules_options.dir, "Use the rules in DIR")
      ->check(CLI::ExistingDirectory);

  CLI::App* list = app.add_subcommand("list-checks", "List every check id with its severity");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    const auto parsed = app.get_subcommands();
    out << (parsed.empty() ? app.help() : parsed.front()->help());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << "rocdoc " << ROCDOC_VERSION << " (rules revision " << embedded_knowledge_data().revision
        << ")\n";
    return 0;
  } catch (const CLI::ParseError& error) {
    err << "rocdoc: " << util::printable(error.what()) << "\nRun 'rocdoc --help' for usage.\n";
    return k_exit_usage;
  }

  try {
    if (check->parsed()) {
      return run_check(options, out, err, terminal);
    }
    if (list->parsed()) {
      return run_list_checks(out);
    }
    if (lint->parsed()) {
      return run_rules_lint(rules_options, out);
    }
    if (show->parsed()) {
      return run_rules_show(rules_options, out, err);
    }
  } catch (const RulesError& error) {
    // Each message quotes what it read (a manifest key, a rules scalar, a path): printable()
    // keeps it one line of plain text, whatever bytes the input held.
    err << "rocdoc: invalid rules: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  } catch (const SnapshotError& error) {
    err << "rocdoc: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  } catch (const std::exception& error) {
    err << "rocdoc: " << util::printable(error.what()) << "\n";
    return k_exit_usage;
  }
  return k_exit_usage;
}

}  // namespace rocdoc
