#include "src/cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "rocdoc/check.h"
#include "rocdoc/env_allowlist.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/completions.h"
#include "src/declared_gpus.h"
#include "src/explain.h"
#include "src/fleet_command.h"
#include "src/live_host.h"
#include "src/redacting_host.h"
#include "src/render_npd.h"
#include "src/render_prometheus.h"
#include "src/render_rules.h"
#include "src/rules_lookup.h"
#include "src/snapshot_command.h"
#include "src/snapshot_host.h"
#include "src/sysroot_host.h"
#include "src/targets_command.h"
#include "src/text_layout.h"
#include "src/triage.h"
#include "src/triage_command.h"
#include "src/util/replace_file.h"
#include "src/util/strings.h"
#include "src/util/subprocess.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

constexpr int k_exit_usage = 2;

// Each command's help ends with its own exit codes (docs/exit-codes.md).
constexpr std::string_view k_check_exit_codes =
    "Exit codes:\n"
    "  0  the report was written; nothing reached the --fail-on level (default: error)\n"
    "  1  a finding reached the --fail-on level, or a check named with --require did not run\n"
    "  2  rocdoc could not do its job: bad arguments, an unreadable snapshot, invalid rules,\n"
    "     or the report (or a file of --output, --json-output, --junit) could not be written\n";
constexpr std::string_view k_lint_exit_codes =
    "Exit codes:\n"
    "  0  the rules are valid\n"
    "  2  they are not, DIR holds no rules files, bad arguments, or the output could not be\n"
    "     written\n";
constexpr std::string_view k_show_exit_codes =
    "Exit codes:\n"
    "  0  the knowledge base knows it; printed\n"
    "  2  it knows nothing of that name, invalid rules, bad arguments, or the output could not\n"
    "     be written\n";
constexpr std::string_view k_rules_exit_codes =
    "Exit codes: see 'rocdoc rules lint --help' and 'rocdoc rules show --help'.\n";
constexpr std::string_view k_snapshot_exit_codes =
    "Exit codes:\n"
    "  0  the snapshot was written (whatever the findings in it)\n"
    "  2  it could not be: bad arguments, an unreadable source snapshot, invalid rules, or the\n"
    "     file could not be written (it already exists, no space)\n";
constexpr std::string_view k_list_exit_codes =
    "Exit codes:\n"
    "  0  the list was printed\n"
    "  2  bad arguments, or the output could not be written\n";
constexpr std::string_view k_completions_exit_codes =
    "Exit codes:\n"
    "  0  the script was printed\n"
    "  2  no shell or another shell than bash, zsh or fish, or the output could not be written\n";
constexpr std::string_view k_explain_exit_codes =
    "Exit codes:\n"
    "  0  the check was explained\n"
    "  2  no check has that id (a planned check is not implemented yet), bad arguments, or the\n"
    "     output could not be written\n";
constexpr std::string_view k_top_footer =
    "Without a command, rocdoc runs check: `rocdoc --json` is `rocdoc check --json`.\n"
    "'rocdoc help COMMAND' or 'rocdoc COMMAND --help' shows a command's options and exit "
    "codes.\n"
    "\n"
    "Exit codes of check: 0 nothing reached --fail-on, 1 something did (or a --require check\n"
    "did not run), 2 rocdoc could not do its job (bad arguments, input, rules, or writing).\n";

struct CheckOptions {
  std::string root;
  std::string snapshot;  ///< --snapshot FILE: a snapshot archive (.tar.gz)
  bool redact = false;   ///< --redact: names, home paths and ids as placeholders
  std::string rules;
  bool json = false;
  std::string format;  ///< --format: human, json or markdown; "" when not given
  bool verbose = false;
  bool no_color = false;
  std::string fail_on = "error";
  std::vector<std::string> only;
  std::vector<std::string> skip;
  std::vector<std::string> pythons;
  std::vector<std::string> gpus;     ///< --gpu: GPU-less mode (docs/gpu-less.md)
  std::string sysroot;               ///< --sysroot DIR: a plain root filesystem
  std::vector<std::string> env;      ///< --env NAME=VALUE for a --sysroot
  std::vector<std::string> require;  ///< ids (or areas) that must run, else exit 1
  std::string output;                ///< --output: the report there instead of on stdout
  std::string json_output;           ///< --json-output: the JSON report there as well
  std::string junit;                 ///< --junit: JUnit XML there as well
  bool deep = false;                 ///< --deep: load the runtimes in child processes
  std::string timeout;               ///< --timeout SECONDS for the --deep children
};

struct ExplainOptions {
  std::string id;
  bool json = false;
  std::string format;  ///< human, json or markdown; "" when not given
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

/// Unicode glyphs only under a UTF-8 locale: LC_ALL, else LC_CTYPE, else LANG (the first set
/// and not empty, as setlocale(3) picks), read through the allow-list rather than with
/// setlocale()/nl_langinfo(): rocdoc's process stays in the C locale, and no locale data has
/// to be installed for the answer. Unset, C, POSIX or another charset: ASCII.
Glyphs choose_glyphs() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const auto value = tool_env(name);
    if (value && !value->empty()) {
      return text::locale_is_utf8(*value) ? Glyphs::unicode : Glyphs::ascii;
    }
  }
  return Glyphs::ascii;
}

/// The columns the human report wraps at: COLUMNS when it is a positive number (terminal or
/// not); else the terminal's width, or 80 when a terminal tells none; else (a pipe, a file)
/// 0: no wrapping.
std::size_t choose_width(OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns) {
  if (const auto columns = tool_env("COLUMNS")) {
    if (const auto number = util::parse_number<std::uint16_t>(util::trim(*columns));
        number && *number > 0) {
      return *number;
    }
  }
  if (terminal == OutputIsTerminal::no) {
    return 0;
  }
  return terminal_columns.value_or(0) > 0 ? *terminal_columns : 80;
}

/// "perm" for "perm.kfd": what --only torch.* selects by.
std::string_view id_area(std::string_view id) { return id.substr(0, id.find('.')); }

/// The areas of the check ids, sorted: "arch", "driver", ….
std::vector<std::string> check_areas() {
  std::set<std::string> areas;
  for (const auto& check : check_table()) {
    areas.emplace(id_area(check.id));
  }
  return {areas.begin(), areas.end()};
}

/// The candidate closest to `word` (at most 3 edits, and fewer than its length), or "". Of
/// two as close, the one that starts with the same letter ("trch": torch, not arch).
std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::min<std::size_t>(4, word.size());
  const auto same_start = [&](std::string_view candidate) {
    return !word.empty() && !candidate.empty() && word.front() == candidate.front();
  };
  for (const auto& candidate : candidates) {
    const std::size_t distance = util::edit_distance(word, candidate);
    if (distance < best_distance || (distance == best_distance && !best.empty() &&
                                     same_start(candidate) && !same_start(best))) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view id) {
  std::vector<std::string> ids;
  for (const auto& check : check_table()) {
    ids.emplace_back(check.id);
  }
  const auto areas = check_areas();
  if (std::find(areas.begin(), areas.end(), id) != areas.end()) {
    return "; did you mean " + std::string(id) + ".* (every " + std::string(id) + " check)?";
  }
  const std::string best = closest(id, ids);
  return best.empty() ? "; `rocdoc list-checks` lists them" : "; did you mean " + best + "?";
}

/// "a,b" and repeated flags both work; "torch.*" is every check of the torch area.
std::set<std::string> check_ids(const std::vector<std::string>& values, std::string_view flag,
                                std::ostream& err, bool& ok) {
  std::set<std::string> ids;
  for (const auto& value : values) {
    for (const auto part : util::split(value, ',')) {
      const std::string id(util::trim(part));
      if (id.empty()) {
        continue;
      }
      if (id.size() > 2 && id.substr(id.size() - 2) == ".*") {
        const std::string area = id.substr(0, id.size() - 2);
        const auto areas = check_areas();
        if (std::find(areas.begin(), areas.end(), area) == areas.end()) {
          const std::string best = closest(area, areas);
          err << fmt::format("rocdoc: check {}: unknown area '{}'{}\n", flag, util::printable(id),
                             best.empty() ? "; the areas are " + util::join(areas, ".*, ") + ".*"
                                          : "; did you mean " + best + ".*?");
          ok = false;
          continue;
        }
        for (const auto& check : check_table()) {
          if (id_area(check.id) == area) {
            ids.emplace(check.id);
          }
        }
        continue;
      }
      if (find_check(id) == nullptr) {
        err << fmt::format("rocdoc: check {}: unknown check id '{}'{}\n", flag, util::printable(id),
                           did_you_mean(id));
        ok = false;
      }
      ids.insert(id);
    }
  }
  return ids;
}

/// --gpu, --sysroot and --env used together in a way that cannot work; nullopt when fine.
std::optional<std::string> gpu_less_problem(const CheckOptions& options) {
  if (!options.sysroot.empty() && !options.root.empty()) {
    return "check --sysroot: --sysroot and --root both name what to read; give one";
  }
  if (!options.sysroot.empty() && options.gpus.empty()) {
    return "check --sysroot: it judges a root filesystem for the GPUs it must run on: add --gpu "
           "(e.g. --gpu gfx942,gfx1100)";
  }
  if (!options.sysroot.empty() && !options.pythons.empty()) {
    return "check --python: it runs an interpreter of this machine; it cannot go with --sysroot";
  }
  if (!options.env.empty() && options.sysroot.empty()) {
    return "check --env: it gives a --sysroot its environment variables; without --sysroot they "
           "are read from the machine or the snapshot";
  }
  if (!options.pythons.empty() && !options.root.empty()) {
    return "check --python: it runs an interpreter of this machine; it cannot go with --root";
  }
  for (const auto& setting : options.env) {
    const auto equals = setting.find('=');
    const std::string name = setting.substr(0, equals);
    if (equals == std::string::npos) {
      return "check --env '" + util::excerpt(setting, 40) + "': expected NAME=VALUE";
    }
    if (!is_allowed_env(name) || is_tool_env(name)) {
      return "check --env '" + util::excerpt(setting, 40) +
             "': rocdoc reads only the variables of its allow-list (rules/env_vars.yaml)";
    }
  }
  return std::nullopt;
}

Knowledge load_rules(const std::string& dir) {
  return dir.empty() ? load_embedded_knowledge() : load_knowledge_dir(dir);
}

/// Why `text` could not be written to FILE, or nullopt. A new or regular FILE is replaced
/// whole (util::replace_file): a failure (a full disk) leaves the old file or none, never an
/// empty or cut one. Anything else (a FIFO, /dev/stdout, a link) is written into.
std::optional<std::string> write_file(const std::string& path, std::string_view text) {
  struct ::stat st {};
  if (::lstat(path.c_str(), &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode)) {
    return util::replace_file(path, text);
  }
  util::UniqueFd file(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666));
  if (!file.valid()) {
    return std::strerror(errno);
  }
  while (!text.empty()) {
    const ssize_t written = ::write(file.get(), text.data(), text.size());
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return std::strerror(written < 0 ? errno : EIO);
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  // close() reports what a file system (NFS, a full quota) refused only when it is asked.
  if (::close(file.release()) != 0 && errno != EINTR) {
    return std::strerror(errno);
  }
  return std::nullopt;
}

/// The lines after the human report that say which --require check did not run, and why.
void render_required(const Report& report, std::ostream& out) {
  for (const auto& id : report.outcome.required) {
    const auto it = std::find_if(report.checks.begin(), report.checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (it == report.checks.end()) {
      out << "required check " << id << " did not run: it was not selected (--only, --skip)\n";
    } else if (it->result.status == Status::skip) {
      out << "required check " << id << " did not run: " << util::printable(it->result.message)
          << "\n";
    }
  }
}

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err,
              OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns) {
  bool ok = true;
  CheckSelection selection;
  selection.only = check_ids(options.only, "--only", err, ok);
  selection.skip = check_ids(options.skip, "--skip", err, ok);
  const std::set<std::string> required = check_ids(options.require, "--require", err, ok);
  if (!ok) {
    return k_exit_usage;
  }
  const FailOn fail_on = options.fail_on == "warning" ? FailOn::warning
                         : options.fail_on == "never" ? FailOn::never
                                                      : FailOn::error;
  std::map<std::string, std::string> sysroot_env;
  for (const auto& setting : options.env) {  // checked by gpu_less_problem()
    const auto equals = setting.find('=');
    sysroot_env[setting.substr(0, equals)] = setting.substr(equals + 1);
  }
  const Knowledge knowledge = load_rules(options.rules);
  std::vector<DeclaredGpu> declared_gpus;
  if (!options.gpus.empty()) {
    try {
      declared_gpus = parse_declared_gpus(knowledge, options.gpus);
    } catch (const DeclaredGpuError& error) {
      err << "rocdoc: check " << util::printable(error.what())
          << "\nRun 'rocdoc check --help' for usage.\n";
      return k_exit_usage;
    }
  }
  std::unique_ptr<Host> host;
  std::optional<std::string> capture_report;
  if (!options.sysroot.empty()) {
    host = std::make_unique<SysrootHost>(options.sysroot, std::move(sysroot_env));
  } else if (!options.snapshot.empty()) {
    OpenedSnapshot opened = open_snapshot_archive(options.snapshot);
    host = std::move(opened.host);
    capture_report = std::move(opened.capture_report);
  } else if (!options.root.empty()) {
    OpenedSnapshot opened = open_snapshot_directory(options.root);
    host = std::move(opened.host);
    capture_report = std::move(opened.capture_report);
  } else {
    host = std::make_unique<LiveHost>();
  }
  std::vector<PythonInterpreter> interpreters;
  for (const auto& python : options.pythons) {
    interpreters.push_back(ask_interpreter(python));
  }
  if (const auto* snapshot = dynamic_cast<const SnapshotHost*>(host.get())) {
    interpreters = snapshot->manifest().interpreters;  // what --python found at capture time
  }
  std::unique_ptr<Host> redacting;
  if (options.redact) {
    redacting = std::make_unique<RedactingHost>(*host);
  }
  Report report = run_report(redacting ? *redacting : *host, knowledge, selection, interpreters,
                             declared_gpus, runtime_options(options.deep, options.timeout));
  report.outcome = judge(report, fail_on, {required.begin(), required.end()});
  describe_capture(*host, capture_report, report);
  // The report is complete: render every output, then write the files, then standard output.
  // With --output the report goes to a file, which is never a terminal.
  const OutputIsTerminal target = options.output.empty() ? terminal : OutputIsTerminal::no;
  std::ostringstream text;
  if (options.json || options.format == "json") {
    render_json(report, text);
  } else if (options.format == "markdown") {
    render_markdown(report, text);
  } else if (options.format == "slurm") {
    render_slurm(report, text);
  } else if (options.format == "prometheus") {
    render_prometheus(report, text);
  } else if (options.format == "npd") {
    render_npd(report, text);
  } else {
    HumanOptions human;
    human.color = choose_color(options, target);
    human.verbosity = options.verbose ? Verbosity::verbose : Verbosity::normal;
    human.width = choose_width(target, terminal_columns);
    human.glyphs = choose_glyphs();
    render_human(report, text, human);
    render_required(report, text);
  }
  std::vector<std::pair<std::string, std::string>> files;  // path, content
  if (!options.json_output.empty()) {
    std::ostringstream json;
    render_json(report, json);
    files.emplace_back(options.json_output, json.str());
  }
  if (!options.junit.empty()) {
    std::ostringstream junit;
    render_junit(report, junit);
    files.emplace_back(options.junit, junit.str());
  }
  if (!options.output.empty()) {
    files.emplace_back(options.output, text.str());
  } else {
    out << text.str();
  }
  for (const auto& [path, content] : files) {
    // A textfile collector may read the file at any moment: it gets the old one or the new.
    const bool atomic = path == options.output && options.format == "prometheus";
    if (const auto problem =
            atomic ? util::replace_file(path, content) : write_file(path, content)) {
      err << "rocdoc: cannot write the report: " << util::printable(path) << ": " << *problem
          << "\n";
      return k_exit_usage;
    }
  }
  return report.outcome.exit_code;
}

int run_rules_lint(const RulesOptions& options, std::ostream& out) {
  const Knowledge knowledge = load_rules(options.dir);  // throws RulesError: exit 2
  // Every check id that a signature of triage.yaml names exists (the loader cannot tell).
  check_triage_signatures(knowledge);
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

/// `rocdoc explain ID`: the check's section of docs/checks.md (src/explain.cpp). An id that
/// is not in the check table is exit 2, with the closest id, or the line of a planned check.
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
  if (!render_explain(*check, load_embedded_knowledge(), embedded_checks_doc(), format, out)) {
    err << "rocdoc: explain: docs/checks.md has no section for " << check->id
        << " (a build of rocdoc without it)\n";
    return k_exit_usage;
  }
  return 0;
}

// The command line in rocdoc's words (docs/rocdoc.1.md): `rocdoc` alone is `rocdoc check`,
// every error is one line naming the command and the flag, then a hint at that command's help.

constexpr std::array<std::string_view, 9> k_commands = {"check",    "list-checks", "rules",
                                                        "snapshot", "explain",     "triage",
                                                        "targets",  "fleet",       "completions"};
constexpr std::array<std::string_view, 2> k_rules_commands = {"lint", "show"};

bool is_option(std::string_view arg) { return arg.size() > 1 && arg.front() == '-'; }

template <std::size_t N>
bool is_one_of(std::string_view word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

/// "check", "rules lint", "list-checks", "rules", or "" (the program itself): the command
/// that normalized arguments run.
std::string command_name(const std::vector<std::string>& args) {
  if (args.empty() || !is_one_of(args[0], k_commands)) {
    return "";
  }
  if (args[0] == "rules" && args.size() > 1 && is_one_of(args[1], k_rules_commands)) {
    return "rules " + args[1];
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
  if (!is_one_of(args[0], k_commands)) {
    const std::string best =
        closest(args[0], {"check", "list-checks", "rules", "snapshot", "explain", "triage",
                          "targets", "fleet", "completions", "help", "version", "lint", "show"});
    const std::string suggestion = best == "lint" || best == "show" ? "rules " + best : best;
    return std::pair{
        "unknown command '" + util::printable(args[0]) + "'" +
            (suggestion.empty()
                 ? "; the commands are check, snapshot, triage, targets, fleet, list-checks, "
                   "explain, rules lint, rules show, completions, help and version"
                 : "; did you mean " + suggestion + "?"),
        std::string()};
  }
  if (args[0] == "rules" && (args.size() == 1 || !is_option(args[1]))) {
    if (args.size() == 1) {
      return std::pair{std::string("rules: needs a command: lint or show"), std::string("rules")};
    }
    if (!is_one_of(args[1], k_rules_commands)) {
      const std::string best = closest(args[1], {"lint", "show"});
      return std::pair{
          "rules: unknown command '" + util::printable(args[1]) + "'" +
              (best.empty() ? "; the commands are lint and show" : "; did you mean " + best + "?"),
          std::string("rules")};
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
    const bool command_name = is_one_of(extra, k_commands);
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

/// Why PATH cannot be the directory that `what` names: "check --root: /x: no such directory".
std::optional<std::string> directory_problem(const std::string& what, const std::string& path) {
  if (path.empty()) {
    return std::nullopt;
  }
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const bool missing = errno == ENOENT;
    return what + ": " + util::printable(path) + ": " +
           (missing ? std::string("no such directory") : std::string(std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return what + ": " + util::printable(path) + ": not a directory";
  }
  return std::nullopt;
}

/// The most --timeout accepts: a runtime that needs longer than this to start is hung.
constexpr double k_max_deep_timeout = 600;

/// --timeout SECONDS (a positive decimal number, at most k_max_deep_timeout), or why not.
std::optional<std::string> deep_timeout_problem(std::string_view command, bool deep,
                                                const std::string& timeout) {
  if (timeout.empty()) {
    return std::nullopt;
  }
  if (!deep) {
    return fmt::format("{} --timeout: it bounds the runtimes that --deep loads; add --deep",
                       command);
  }
  const auto seconds = parse_deep_timeout(timeout);
  if (!seconds) {
    return fmt::format(
        "{} --timeout: '{}' is not a number of seconds from 0.1 to {:g} (e.g. "
        "--timeout 30)",
        command, util::excerpt(timeout, 40), k_max_deep_timeout);
  }
  return std::nullopt;
}

/// snapshot's option values that cannot work, before anything is read.
std::optional<std::string> snapshot_argument_problem(const SnapshotOptions& options) {
  if (!options.output.empty() && !options.dir.empty()) {
    return std::string("snapshot --dir: -o names a file and --dir a directory; give one");
  }
  if (auto problem = directory_problem("snapshot --root", options.root)) {
    return problem;
  }
  if (!options.root.empty() && !options.pythons.empty()) {
    return std::string(
        "snapshot --python: it runs an interpreter of this machine; it cannot go with --root");
  }
  if (auto problem = deep_timeout_problem("snapshot", options.deep, options.timeout)) {
    return problem;
  }
  if (!options.root.empty() && options.deep) {
    return std::string(
        "snapshot --deep: it loads this machine's runtimes; it cannot go with --root");
  }
  if (auto problem = directory_problem("snapshot --rules", options.rules)) {
    return problem;
  }
  if (!options.output.empty()) {
    struct ::stat st {};
    if (::lstat(options.output.c_str(), &st) == 0) {
      return "snapshot -o: " + util::printable(options.output) +
             ": already exists; give another name, or remove it";
    }
  }
  return std::nullopt;
}

/// --format's value (of check or explain), and --json beside it: "check --format: …".
std::optional<std::string> format_problem(std::string_view command, const std::string& format,
                                          bool json) {
  static const std::vector<std::string> k_formats(std::begin(k_report_formats),
                                                  std::end(k_report_formats));
  if (format.empty()) {
    return std::nullopt;
  }
  if (std::find(k_formats.begin(), k_formats.end(), format) == k_formats.end()) {
    const std::string best = closest(format, k_formats);
    return fmt::format("{} --format: '{}' is not human, json, markdown, slurm, prometheus or npd{}",
                       command, util::printable(format),
                       best.empty() ? "" : "; did you mean " + best + "?");
  }
  if (format == "slurm" && command != "check") {
    return fmt::format("{} --format: slurm is a format of check only", command);
  }
  if ((format == "prometheus" || format == "npd") && command != "check") {
    return fmt::format("{} --format: {} is a format of check only", command, format);
  }
  if (json && format != "json") {
    return fmt::format(
        "{} --format: --json is short for --format json; it cannot go with --format {}", command,
        format);
  }
  return std::nullopt;
}

/// check's option values that cannot work, before anything is read.
std::optional<std::string> check_argument_problem(const CheckOptions& options) {
  static const std::vector<std::string> k_levels = {"error", "warning", "never"};
  if (std::find(k_levels.begin(), k_levels.end(), options.fail_on) == k_levels.end()) {
    const std::string best = closest(options.fail_on, k_levels);
    return "check --fail-on: '" + util::printable(options.fail_on) +
           "' is not error, warning or never" +
           (best.empty() ? "" : "; did you mean " + best + "?");
  }
  if (auto problem = format_problem("check", options.format, options.json)) {
    return problem;
  }
  if (auto problem = deep_timeout_problem("check", options.deep, options.timeout)) {
    return problem;
  }
  if (options.deep &&
      (!options.root.empty() || !options.snapshot.empty() || !options.sysroot.empty())) {
    return std::string(
        "check --deep: it loads this machine's runtimes; it cannot go with --root, --snapshot or "
        "--sysroot (a snapshot made with snapshot --deep replays its runtimes without it)");
  }
  if (auto problem = gpu_less_problem(options)) {
    return problem;
  }
  if (auto problem = directory_problem("check --root", options.root)) {
    return problem;
  }
  if (!options.snapshot.empty()) {
    if (!options.root.empty() || !options.sysroot.empty()) {
      return std::string(
          "check --snapshot: it names what to read, as --root and --sysroot do; "
          "give one");
    }
    if (!options.pythons.empty()) {
      return std::string(
          "check --python: it runs an interpreter of this machine; it cannot go with --snapshot");
    }
    struct ::stat st {};
    if (::stat(options.snapshot.c_str(), &st) != 0) {
      return "check --snapshot: " + util::printable(options.snapshot) + ": " +
             (errno == ENOENT ? std::string("no such file") : std::string(std::strerror(errno)));
    }
    if (S_ISDIR(st.st_mode)) {
      return "check --snapshot: " + util::printable(options.snapshot) +
             ": a directory; a snapshot directory is read with --root";
    }
  }
  if (auto problem = directory_problem("check --sysroot", options.sysroot)) {
    return problem;
  }
  if (auto problem = directory_problem("check --rules", options.rules)) {
    return problem;
  }
  const std::vector<std::pair<std::string_view, const std::string*>> files = {
      {"--output", &options.output},
      {"--json-output", &options.json_output},
      {"--junit", &options.junit}};
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = i + 1; j < files.size(); ++j) {
      if (!files[i].second->empty() && *files[i].second == *files[j].second) {
        return fmt::format("check {}: {} is already the file of {}", files[j].first,
                           util::printable(*files[j].second), files[i].first);
      }
    }
  }
  return std::nullopt;
}

/// Runs the command line `args` (without the program's name, as CLI11 expects them after
/// normalize_arguments), writing what it prints to `out`.
int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns) {
  CLI::App app{
      "rocdoc: the ROCm environment doctor. Says why PyTorch cannot use your AMD GPU "
      "and what to type to fix it. It only reads; fixes are printed, never run.",
      "rocdoc"};
  app.set_version_flag("-V,--version", std::string("rocdoc ") + ROCDOC_VERSION);
  app.footer(std::string(k_top_footer));
  app.require_subcommand(1);
  app.allow_extras();  // unknown options and arguments get rocdoc's own words (extras_problem)

  CheckOptions options;
  CLI::App* check = app.add_subcommand("check", "Inspect this machine (or a snapshot) and report");
  check->add_option("--root", options.root, "Read a snapshot directory instead of this machine")
      ->type_name("DIR")
      ->take_last();
  check
      ->add_option("--snapshot", options.snapshot,
                   "Read a snapshot archive (.tar.gz, as rocdoc snapshot writes it) instead of "
                   "this machine")
      ->type_name("FILE")
      ->take_last();
  check->add_option("--rules", options.rules, "Use the rules in DIR instead of the embedded ones")
      ->type_name("DIR")
      ->take_last();
  check->add_flag("--redact", options.redact,
                  "Replace host and user names, home directories, other groups, kernel "
                  "command-line values, serial numbers and GPU unique ids with placeholders");
  check->add_flag("--json", options.json,
                  "Print the report as JSON (schema rocdoc-report/1): --format json");
  check
      ->add_option("--format", options.format,
                   "The report's format: human (default), json, markdown (for a GitHub issue "
                   "or a ticket), slurm (one line: a node's drain reason), prometheus "
                   "(node_exporter's textfile collector; --output is replaced atomically), or "
                   "npd (one line of at most 80 bytes for node-problem-detector)")
      ->type_name("FORMAT")
      ->take_last();
  check->add_flag("-v,--verbose", options.verbose,
                  "Also show skipped checks and the facts behind passing ones");
  check->add_flag("--no-color", options.no_color, "Never colour the output (NO_COLOR works too)");
  check
      ->add_option("--fail-on", options.fail_on,
                   "Lowest severity that makes the exit code 1: error (default), warning, never")
      ->type_name("LEVEL")
      ->take_last();
  check
      ->add_option("--only", options.only,
                   "Run only these checks: ids or areas, comma-separated (perm.kfd,torch.*)")
      ->type_name("ID|AREA.*");
  check->add_option("--skip", options.skip, "Do not run these checks (ids or areas, as --only)")
      ->type_name("ID|AREA.*");
  check
      ->add_option("--require", options.require,
                   "Exit 1 (verdict unchecked) when one of these checks did not run: skipped or "
                   "not selected (ids or areas, as --only)")
      ->type_name("ID|AREA.*");
  check
      ->add_option("--output", options.output,
                   "Write the report (in the --format chosen) to FILE instead of standard output")
      ->type_name("FILE")
      ->take_last();
  check
      ->add_option("--json-output", options.json_output,
                   "Also write the JSON report to FILE (the human report stays on standard output)")
      ->type_name("FILE")
      ->take_last();
  check
      ->add_option("--junit", options.junit,
                   "Also write a JUnit XML report to FILE: one testcase per check")
      ->type_name("FILE")
      ->take_last();
  check
      ->add_option(
          "--python", options.pythons,
          "Also search the environment of this interpreter (runs it once to ask for sys.path)")
      ->type_name("PATH");
  check
      ->add_option("--gpu", options.gpus,
                   "GPU-less mode: judge the software as if these GPUs were present, e.g. "
                   "gfx942,gfx1100 (hardware, driver and permissions are not judged)")
      ->type_name("GPUS");
  check
      ->add_option("--sysroot", options.sysroot,
                   "Read a plain root filesystem, e.g. an unpacked container image (needs --gpu)")
      ->type_name("DIR");
  check
      ->add_option("--env", options.env,
                   "With --sysroot: an environment variable of the image (NAME=VALUE, repeatable)")
      ->type_name("NAME=VALUE");
  check->add_flag("--deep", options.deep,
                  "Also load the HIP runtime, rocm_smi_lib and the HSA runtime, each in a child "
                  "process with a deadline (runtime.hip-init, runtime.smi)");
  check
      ->add_option("--timeout", options.timeout,
                   "With --deep: how long the runtimes may take, in seconds (default 10)")
      ->type_name("SECONDS")
      ->take_last();
  check->footer(std::string(k_check_exit_codes));

  RulesOptions rules_options;
  CLI::App* rules = app.add_subcommand("rules", "Validate or show the knowledge base");
  rules->require_subcommand(1);
  rules->footer(std::string(k_rules_exit_codes));
  CLI::App* lint =
      rules->add_subcommand("lint", "Validate a rules directory (default: the embedded rules)");
  lint->add_option("DIR", rules_options.dir, "Directory of *.yaml rules")->type_name("");
  lint->footer(std::string(k_lint_exit_codes));
  CLI::App* show =
      rules->add_subcommand("show",
                            "Show what the knowledge base knows: gfx1031, 73df, \"RX 7900 XTX\", "
                            "2.6.0+rocm6.2.4, torch 2.6, 7.2.1, 6.19.14.31400000");
  show->add_option("WHAT", rules_options.what,
                   "gfx target, PCI device id, product name, torch version, ROCm or driver version")
      ->type_name("");
  show->add_option("--rules", rules_options.dir, "Use the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  show->footer(std::string(k_show_exit_codes));

  SnapshotOptions snapshot_options;
  CLI::App* snapshot = app.add_subcommand(
      "snapshot",
      "Capture what rocdoc reads of this machine into one file, with the report, for a support "
      "ticket");
  snapshot
      ->add_option("-o,--output", snapshot_options.output,
                   "Write the snapshot to FILE (default: rocdoc-snapshot-HOST-TIME.tar.gz here); "
                   "an existing file is never replaced")
      ->type_name("FILE")
      ->take_last();
  snapshot
      ->add_option("--dir", snapshot_options.dir,
                   "Write an unpacked snapshot directory instead (read it with check --root)")
      ->type_name("DIR")
      ->take_last();
  snapshot->add_flag("--redact", snapshot_options.redact,
                     "Replace host and user names, home directories, other groups, kernel "
                     "command-line values, serial numbers and GPU unique ids with placeholders");
  snapshot
      ->add_option("--note", snapshot_options.note,
                   "Free text for the manifest (a ticket number, what was going on)")
      ->type_name("TEXT")
      ->take_last();
  snapshot
      ->add_option("--root", snapshot_options.root,
                   "Capture a snapshot directory again instead of this machine")
      ->type_name("DIR")
      ->take_last();
  snapshot
      ->add_option("--rules", snapshot_options.rules,
                   "Judge the report inside with the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  snapshot
      ->add_option("--python", snapshot_options.pythons,
                   "Also search the environment of this interpreter (runs it once to ask for "
                   "sys.path; the snapshot keeps the answer)")
      ->type_name("PATH");
  snapshot->add_flag("--deep", snapshot_options.deep,
                     "Also load the HIP runtime, rocm_smi_lib and the HSA runtime in child "
                     "processes; the snapshot keeps what they said");
  snapshot
      ->add_option("--timeout", snapshot_options.timeout,
                   "With --deep: how long the runtimes may take, in seconds (default 10)")
      ->type_name("SECONDS")
      ->take_last();
  snapshot->footer(std::string(k_snapshot_exit_codes));

  TriageOptions triage_options;
  CLI::App* triage = app.add_subcommand(
      "triage",
      "Read a pasted log (rocminfo, collect_env, dmesg, a traceback, a docker error) and answer "
      "with check ids and fixes");
  triage->add_option("FILE", triage_options.file, "The log; - reads standard input")
      ->type_name("FILE|-");
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
  triage->add_option("--rules", triage_options.rules, "Use the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  triage->footer(std::string(k_triage_exit_codes));

  TargetsOptions targets_options;
  CLI::App* targets = app.add_subcommand(
      "targets",
      "Print the GPU targets compiled into HIP binaries (.so files, objects, offload bundles, "
      "code objects) or named by a rocBLAS Tensile directory");
  targets->add_option("FILE", targets_options.files, "A HIP binary or a rocblas/library directory")
      ->type_name("FILE...");
  targets->add_flag("--json", targets_options.json, "Print JSON (schema rocdoc-targets/1)");
  targets->footer(std::string(k_targets_exit_codes));

  FleetOptions fleet_options;
  CLI::App* fleet = app.add_subcommand(
      "fleet",
      "Merge many nodes' reports (check --json files, snapshot archives) into a fleet summary: "
      "root causes by node, outliers, missing and stale nodes");
  fleet->add_option("REPORT", fleet_options.inputs, "A report, a snapshot archive, or a directory")
      ->type_name("REPORT|DIR");
  fleet
      ->add_option("--nodes", fleet_options.nodes,
                   "The nodes that should report, one name a line (absent ones are missing)")
      ->type_name("FILE")
      ->take_last();
  fleet
      ->add_option("--max-age", fleet_options.max_age,
                   "Flag reports older than DURATION (90s, 30m, 2h, 1d, 1w) as stale")
      ->type_name("DURATION")
      ->take_last();
  fleet
      ->add_option("--now", fleet_options.now,
                   "Measure ages from TIME (2026-12-01T17:57:08Z), not now: for tests, replays")
      ->type_name("TIME")
      ->take_last();
  fleet->add_flag("--json", fleet_options.json, "Print JSON (schema rocdoc-fleet/1)");
  fleet
      ->add_option("--format", fleet_options.format,
                   "Output format: human (default), json, markdown")
      ->type_name("FORMAT")
      ->take_last();
  fleet->add_option("--rules", fleet_options.rules, "Judge snapshot archives with the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  fleet->footer(std::string(k_fleet_exit_codes));

  CLI::App* list = app.add_subcommand("list-checks", "List every check id with its severity");
  bool list_json = false;
  list->add_flag("--json", list_json,
                 "Print a JSON array of {id, area, title, severity, scope, needs}");
  list->footer(std::string(k_list_exit_codes));

  ExplainOptions explain_options;
  CLI::App* explain = app.add_subcommand(
      "explain", "Explain a check: what it looks at, why it matters, how to fix it, its sources");
  explain->add_option("ID", explain_options.id, "A check id, as rocdoc list-checks prints it")
      ->type_name("");
  explain->add_flag("--json", explain_options.json, "Print it as JSON: --format json");
  explain
      ->add_option("--format", explain_options.format,
                   "human (default), json, or markdown (the section of docs/checks.md)")
      ->type_name("FORMAT")
      ->take_last();
  explain->footer(std::string(k_explain_exit_codes));

  std::string completion_shell;
  CLI::App* completions =
      app.add_subcommand("completions", "Print the completion script of a shell: bash, zsh, fish");
  completions->add_option("SHELL", completion_shell, "bash, zsh or fish")->type_name("SHELL");
  completions->footer(std::string(k_completions_exit_codes));
  for (CLI::App* command :
       {check, rules, lint, show, list, snapshot, explain, triage, targets, fleet, completions}) {
    command->allow_extras();
  }

  const std::string command = command_name(args);
  const std::map<std::string, const CLI::App*> commands = {{"", &app},
                                                           {"check", check},
                                                           {"rules", rules},
                                                           {"rules lint", lint},
                                                           {"rules show", show},
                                                           {"list-checks", list},
                                                           {"snapshot", snapshot},
                                                           {"explain", explain},
                                                           {"triage", triage},
                                                           {"targets", targets},
                                                           {"fleet", fleet},
                                                           {"completions", completions}};
  const CLI::App& current = *commands.at(command);
  const auto usage_error = [&](const std::string& problem) {
    err << "rocdoc: " << problem << "\n" << usage_hint(command);
    return k_exit_usage;
  };
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 takes them
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();  // of the command given: "Usage: rocdoc rules lint [OPTIONS] [DIR]"
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << "rocdoc " << ROCDOC_VERSION << " (commit " << ROCDOC_GIT_COMMIT << ", rules revision "
        << embedded_knowledge_data().revision << ")\n";
    return 0;
  } catch (const CLI::ParseError& error) {
    return usage_error(parse_problem(current, command, error));
  }
  if (const auto extras = app.remaining(true); !extras.empty()) {
    return usage_error(extras_problem(current, command, extras.front()));
  }
  std::optional<std::string> problem;
  if (check->parsed()) {
    problem = check_argument_problem(options);
  } else if (snapshot->parsed()) {
    problem = snapshot_argument_problem(snapshot_options);
  } else if (triage->parsed()) {
    problem = triage_argument_problem(triage_options, ::isatty(STDIN_FILENO) == 1);
    if (!problem) {
      problem = directory_problem("triage --rules", triage_options.rules);
    }
  } else if (fleet->parsed()) {
    problem = fleet_argument_problem(fleet_options);
    if (!problem) {
      problem = directory_problem("fleet --rules", fleet_options.rules);
    }
  } else if (targets->parsed() && targets_options.files.empty()) {
    problem =
        "targets: name at least one file (a HIP binary such as torch/lib/libtorch_hip.so, "
        "or a rocblas/library directory)";
  } else if (explain->parsed()) {
    problem = explain_options.id.empty()
                  ? "explain: say which check to explain (an id that rocdoc list-checks prints, "
                    "e.g. perm.kfd)"
                  : format_problem("explain", explain_options.format, explain_options.json);
  } else if (lint->parsed() && !rules_options.dir.empty()) {
    problem = directory_problem("rules lint", rules_options.dir);
  } else if (completions->parsed() && completion_shell.empty()) {
    problem = "completions: name the shell: bash, zsh or fish (rocdoc completions bash)";
  } else if (completions->parsed() && !completion_script(app, completion_shell)) {
    problem = "completions: unknown shell '" + util::printable(completion_shell) +
              "'; rocdoc completes bash, zsh and fish";
  } else if (show->parsed()) {
    problem = rules_options.what.empty()
                  ? "rules show: say what to show (a gfx target, PCI id, product name, torch or "
                    "ROCm version)"
                  : directory_problem("rules show --rules", rules_options.dir);
  }
  if (problem) {
    return usage_error(*problem);
  }

  try {
    if (check->parsed()) {
      return run_check(options, out, err, terminal, terminal_columns);
    }
    if (list->parsed()) {
      return run_list_checks(list_json, out);
    }
    if (explain->parsed()) {
      return run_explain(explain_options, out, err);
    }
    if (snapshot->parsed()) {
      std::vector<PythonInterpreter> interpreters;
      for (const auto& python : snapshot_options.pythons) {
        interpreters.push_back(ask_interpreter(python));
      }
      return run_snapshot(snapshot_options, interpreters, out, err);
    }
    if (triage->parsed()) {
      return run_triage(triage_options, out, err);
    }
    if (targets->parsed()) {
      return run_targets(targets_options, out, err);
    }
    if (fleet->parsed()) {
      return run_fleet(fleet_options, out, err);
    }
    if (lint->parsed()) {
      return run_rules_lint(rules_options, out);
    }
    if (completions->parsed()) {
      out << *completion_script(app, completion_shell);
      return 0;
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
  const int code = run_command(args, text, err, terminal, terminal_columns);
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
