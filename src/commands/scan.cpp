#include "src/commands/scan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/terminal_style.h"
#include "src/scan/baseline.h"
#include "src/scan/scan_tree.h"
#include "src/util/byte_source.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::uint64_t k_max_baseline_bytes = 64ull << 20;

struct ScanOptions {
  std::string dir;
  std::string format = "human";
  std::string fail_on = "error";
  std::string baseline;
  std::string rules;
  bool vendored = false;
  bool verbose = false;
  bool no_color = false;
};

FailOn fail_on_of(const std::string& value) {
  return value == "warning" ? FailOn::warning : value == "never" ? FailOn::never : FailOn::error;
}

std::optional<std::string> scan_argument_problem(const ScanOptions& options) {
  if (options.dir.empty()) {
    return "scan: name the directory to scan (rocdoc scan DIR)";
  }
  static const std::vector<std::string> k_formats(std::begin(k_scan_formats),
                                                  std::end(k_scan_formats));
  if (std::find(k_formats.begin(), k_formats.end(), options.format) == k_formats.end()) {
    const std::string best = closest(options.format, k_formats);
    return "scan --format: '" + util::printable(options.format) + "' is not human, json or sarif" +
           (best.empty() ? "" : "; did you mean " + best + "?");
  }
  if (options.fail_on != "error" && options.fail_on != "warning" && options.fail_on != "never") {
    return "scan --fail-on: '" + util::printable(options.fail_on) +
           "' is not error, warning or never";
  }
  return directory_problem("scan --rules", options.rules);
}

/// file:///abs/dir/ for SARIF's SRCROOT; "" when the directory's absolute path is unknown.
std::string root_uri(const std::string& dir) {
  std::unique_ptr<char, decltype(&std::free)> absolute(::realpath(dir.c_str(), nullptr),
                                                       &std::free);
  if (!absolute) {
    return "";
  }
  const std::string uri = "file://" + util::uri_path(absolute.get());
  return uri.back() == '/' ? uri : uri + "/";
}

int run_scan(const ScanOptions& options, const CommandStreams& io) {
  const auto rules = load_rules(options.rules, KnowledgeParts::machine | KnowledgeParts::code);
  const Knowledge& knowledge = *rules;
  CodeScanFacts scan = scan_directory(options.dir, knowledge, options.vendored);
  if (!options.baseline.empty()) {
    if (auto problem = apply_baseline_file(options.baseline, scan)) {
      io.err << "rocdoc: scan --baseline: " << *problem << "\n";
      return k_exit_usage;
    }
  }
  ScanReport report{.scan = scan,
                    .checks = code_check_rows(),
                    .fail_on = fail_on_of(options.fail_on),
                    .exit_code = 0,
                    .tool_version = ROCDOC_VERSION,
                    .rules_revision = knowledge.revision,
                    .root_uri = options.format == "sarif" ? root_uri(options.dir) : ""};
  for (const CodeFinding& finding : scan.findings) {
    if (code_finding_counts(finding.severity, report.fail_on)) {
      report.exit_code = 1;
    }
  }
  if (options.format == "json") {
    render_scan_json(report, io.out);
  } else if (options.format == "sarif") {
    render_scan_sarif(report, io.out);
  } else {
    HumanOptions human;
    human.color =
        choose_color(options.no_color ? ColorFlag::no_color : ColorFlag::none, io.terminal);
    human.width = choose_width(io.terminal, io.terminal_columns);
    human.glyphs = choose_glyphs();
    human.verbosity = options.verbose ? Verbosity::verbose : Verbosity::normal;
    render_scan_human(report, io.out, human);
  }
  return report.exit_code;
}

}  // namespace

CodeScanFacts scan_directory(const std::string& dir, const Knowledge& knowledge, bool vendored) {
  const CodeRules rules(knowledge);
  CodeScanOptions options;
  options.vendored = vendored ? VendoredDirectories::scan : VendoredDirectories::skip;
  CodeScanRun run = scan_source_tree(dir, rules, options);
  if (!run.error.empty()) {
    throw std::runtime_error("scan: " + run.error);
  }
  return std::move(run.facts);
}

std::vector<CodeCheckRow> code_check_rows() {
  std::vector<CodeCheckRow> rows;
  for (const CheckInfo& check : check_table()) {
    if (check.judges == Judges::code) {
      rows.push_back({std::string(check.id), std::string(check.title), check.severity});
    }
  }
  return rows;
}

std::optional<std::string> apply_baseline_file(const std::string& path, CodeScanFacts& scan) {
  std::string text;
  if (const auto failure = util::read_whole_file(path, k_max_baseline_bytes, text)) {
    using Kind = util::ReadFailure::Kind;
    switch (failure->kind) {
      case Kind::not_regular:
        return util::printable(path) + ": not a regular file";
      case Kind::too_large:
        return util::printable(path) + ": over 64 MiB, no baseline is that large";
      case Kind::cannot_open:
      case Kind::read_error:
        break;
    }
    return util::printable(path) + ": " + std::strerror(failure->error);
  }
  const Baseline baseline = parse_baseline(text);
  if (!baseline.error.empty()) {
    return util::printable(path) + ": " + baseline.error;
  }
  apply_baseline(scan, baseline);
  return std::nullopt;
}

RegisteredCommand add_scan_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<ScanOptions>();
  ScanOptions& options = *state;
  command.add_option("DIR", options.dir, "The source tree to scan")->type_name("");
  command.add_option("--format", options.format, "Output format: human (default), json, sarif")
      ->type_name("FORMAT")
      ->take_last();
  command
      .add_option("--fail-on", options.fail_on,
                  "Lowest severity that makes the exit code 1: error (default), warning, never")
      ->type_name("LEVEL")
      ->take_last();
  command
      .add_option("--baseline", options.baseline,
                  "Findings of this earlier `rocdoc scan --format json` output are not new: they "
                  "are left out and never fail")
      ->type_name("FILE")
      ->take_last();
  command.add_flag("--vendored", options.vendored,
                   "Also scan vendored directories (third_party, vendor, external, …)");
  command.add_flag("-v,--verbose", options.verbose, "List the paths that were not scanned");
  command.add_flag("--no-color", options.no_color, "Never colour the output (NO_COLOR works too)");
  command.add_option("--rules", options.rules, "Use the rules in DIR")
      ->type_name("DIR")
      ->take_last();
  command.footer(std::string(k_scan_exit_codes));
  return {[state]() { return scan_argument_problem(*state); },
          [state](const CommandStreams& io) { return run_scan(*state, io); }};
}

}  // namespace rocdoc
