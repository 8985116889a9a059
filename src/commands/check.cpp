// `rocdoc check`: inspect this machine (or a snapshot, a sysroot, declared GPUs) and report, in
// the format asked, to standard output and the files asked.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/env_allowlist.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/python_interpreter.h"
#include "src/commands/scan.h"
#include "src/commands/terminal_style.h"
#include "src/hosts/declared_gpus.h"
#include "src/hosts/live.h"
#include "src/hosts/redacting.h"
#include "src/hosts/snapshot.h"
#include "src/hosts/sysroot.h"
#include "src/render/npd.h"
#include "src/render/prometheus.h"
#include "src/snapshot/open.h"
#include "src/util/replace_file.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {

namespace {

// Each command's help ends with its own exit codes (docs/exit-codes.md).
constexpr std::string_view k_check_exit_codes =
    "Exit codes:\n"
    "  0  the report was written; nothing reached the --fail-on level (default: error)\n"
    "  1  a finding reached the --fail-on level, or a check named with --require did not run\n"
    "  2  rocdoc could not do its job: bad arguments, an unreadable snapshot, invalid rules,\n"
    "     or the report (or a file of --output, --json-output, --junit) could not be written\n";

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
  bool smoke = false;                ///< --smoke: run torch on the GPUs in child processes
  std::string timeout;               ///< --timeout SECONDS for the --deep and --smoke children
  std::string scan;                  ///< --scan DIR: the code.* checks judge this source tree
};

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
  if (auto problem = deep_timeout_problem("check", options.deep, options.smoke, options.timeout)) {
    return problem;
  }
  if (options.smoke &&
      (!options.root.empty() || !options.snapshot.empty() || !options.sysroot.empty())) {
    return std::string(
        "check --smoke: it runs this machine's torch; it cannot go with --root, --snapshot or "
        "--sysroot (a snapshot made with snapshot --smoke replays its runs without it)");
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
  if (auto problem = directory_problem("check --scan", options.scan)) {
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
  for (const auto& [id, message] : report.unrun_required()) {
    out << "required check " << id << " did not run: "
        << (message.empty() ? std::string("it was not selected (--only, --skip)")
                            : util::printable(message))
        << "\n";
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
  // Only what check reads: the code patterns with --scan, never the triage signatures. The
  // embedded rules are built while the probes that do not read them run.
  const KnowledgeSource knowledge = start_loading_rules(
      options.rules, options.scan.empty() ? KnowledgeParts::machine
                                          : KnowledgeParts::machine | KnowledgeParts::code);
  std::vector<DeclaredGpu> declared_gpus;
  if (!options.gpus.empty()) {
    try {
      declared_gpus = parse_declared_gpus(knowledge.get(), options.gpus);
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
  std::optional<CodeScanFacts> code_scan;
  if (!options.scan.empty()) {
    code_scan = scan_directory(options.scan, knowledge.get(), false);
  }
  Report report = run_report(
      redacting ? *redacting : *host, knowledge, selection, interpreters, declared_gpus,
      runtime_options(options.deep, options.smoke, options.timeout), std::move(code_scan));
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
    human.color = choose_color(options.no_color ? ColorFlag::no_color : ColorFlag::none, target);
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

}  // namespace

RegisteredCommand add_check_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<CheckOptions>();
  CLI::App* check = &command;
  CheckOptions& options = *state;
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
  check
      ->add_option("--scan", options.scan,
                   "Also scan the source tree DIR for code that only runs on NVIDIA (the code.* "
                   "checks, as rocdoc scan DIR finds them)")
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
                  "process with a deadline, and run work on each GPU (runtime.hip-init, "
                  "runtime.smi, runtime.compute)");
  check->add_flag("--smoke", options.smoke,
                  "Also run each torch found (or each --python) on the GPUs, in a child process "
                  "with a deadline: matrix products and a convolution checked against the CPU "
                  "(torch.smoke)");
  check
      ->add_option("--timeout", options.timeout,
                   "With --deep or --smoke: how long the runtimes (default 10) or each torch run "
                   "(default 60) may take, in seconds")
      ->type_name("SECONDS")
      ->take_last();
  // --help lists the options in these groups, in this order (by each group's first option).
  const std::vector<std::pair<std::string, std::vector<std::string>>> groups = {
      {"What to read",
       {"--root", "--snapshot", "--rules", "--python", "--deep", "--smoke", "--timeout", "--scan"}},
      {"Without the GPU (GPU-less mode)", {"--gpu", "--sysroot", "--env"}},
      {"Which checks, and what fails", {"--only", "--skip", "--require", "--fail-on"}},
      {"Output",
       {"--json", "--format", "--verbose", "--no-color", "--output", "--json-output", "--junit",
        "--redact"}}};
  for (const auto& [group, names] : groups) {
    for (const auto& name : names) {
      check->get_option(name)->group(group);
    }
  }
  check->footer(std::string(k_check_exit_codes));
  return {[state] { return check_argument_problem(*state); },
          [state](const CommandStreams& io) {
            return run_check(*state, io.out, io.err, io.terminal, io.terminal_columns);
          }};
}

}  // namespace rocdoc
