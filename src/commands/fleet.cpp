#include "src/commands/fleet.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <sstream>

#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/terminal_style.h"
#include "src/fleet/summary.h"
#include "src/hosts/snapshot.h"
#include "src/render/fleet.h"
#include "src/snapshot/open.h"
#include "src/util/byte_source.h"
#include "src/util/strings.h"
#include "src/util/threads.h"

namespace rocdoc {
namespace {

bool is_snapshot(std::string_view path) { return path.ends_with(".tar.gz"); }

/// node017.json -> node017, node017.tar.gz -> node017; other names are kept whole.
std::string node_name(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (base.ends_with(".json")) {
    base.remove_suffix(5);
  } else if (base.ends_with(".tar.gz")) {
    base.remove_suffix(7);
  }
  return std::string(base);
}

/// The report files of a directory: its *.json and *.tar.gz regular files (not hidden, not
/// recursive), sorted by name.
std::optional<std::string> list_directory(const std::string& dir, std::vector<std::string>& files) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) {
    return std::string(std::strerror(errno));
  }
  std::vector<std::string> found;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string name = entry->d_name;
    if (name.empty() || name[0] == '.' || (!name.ends_with(".json") && !is_snapshot(name))) {
      continue;
    }
    const std::string path = dir + (dir.ends_with("/") ? "" : "/") + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      found.push_back(path);
    }
  }
  ::closedir(handle);
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
  return std::nullopt;
}

/// A failed read of a report, in words.
std::string read_problem(const util::ReadFailure& failure) {
  switch (failure.kind) {
    case util::ReadFailure::Kind::not_regular:
      return "not a regular file (" + util::file_type_words(failure.type) + ")";
    case util::ReadFailure::Kind::too_large:
      return "over " + std::to_string(k_fleet_max_report_bytes >> 20) + " MiB";
    case util::ReadFailure::Kind::cannot_open:
    case util::ReadFailure::Kind::read_error:
      break;
  }
  return std::strerror(failure.error);
}

void read_json_node(FleetNode& node, std::string& buffer) {
  if (const auto failure = util::read_whole_file(node.file, k_fleet_max_report_bytes, buffer)) {
    node.problem = read_problem(*failure);
    return;
  }
  FleetParse parse = parse_fleet_report(buffer);
  node.report = std::move(parse.report);
  node.problem = std::move(parse.problem);
}

/// The JSON reports, read and parsed by a few threads (each file is independent).
void read_json_nodes(std::vector<FleetNode*>& nodes) {
  const std::size_t cores = std::min<std::size_t>(8, util::usable_cpus());
  const std::size_t threads = std::min<std::size_t>(cores, (nodes.size() + 15) / 16);
  std::atomic<std::size_t> next{0};
  util::run_on_threads(threads, [&] {
    std::string buffer;
    for (std::size_t i = next++; i < nodes.size(); i = next++) {
      read_json_node(*nodes[i], buffer);
    }
  });
}

/// A snapshot archive judged with today's rules, as `check --snapshot` does, then read back.
void read_snapshot_node(FleetNode& node, const Knowledge& knowledge) {
  try {
    OpenedSnapshot opened = open_snapshot_archive(node.file);
    std::vector<PythonInterpreter> interpreters;
    if (const auto* snapshot = dynamic_cast<const SnapshotHost*>(opened.host.get())) {
      interpreters = snapshot->manifest().interpreters;
    }
    Report report = run_report(*opened.host, knowledge, {}, interpreters);
    report.outcome = judge(report, FailOn::error);
    describe_capture(*opened.host, opened.capture_report, report);
    std::ostringstream text;
    render_json(report, text);
    FleetParse parse = parse_fleet_report(text.str());
    node.report = std::move(parse.report);
    node.problem = std::move(parse.problem);
  } catch (const std::exception& error) {
    node.problem = error.what();
  }
}

/// The names of a --nodes file, bounded in size (a FIFO or /dev/zero never blocks or grows
/// it); why not, or nullopt.
std::optional<std::string> read_expected(const std::string& path, std::vector<std::string>& names) {
  const std::string where = "fleet --nodes: " + util::printable(path) + ": ";
  std::string text;
  if (const auto failure = util::read_whole_file(path, k_fleet_max_nodes_bytes, text)) {
    switch (failure->kind) {
      case util::ReadFailure::Kind::not_regular:
        return where + util::file_type_words(failure->type) + "; give a file of node names";
      case util::ReadFailure::Kind::too_large:
        return where + "over " + std::to_string(k_fleet_max_nodes_bytes >> 20) +
               " MiB; a file of node names is smaller";
      case util::ReadFailure::Kind::cannot_open:
      case util::ReadFailure::Kind::read_error:
        break;
    }
    return where + std::strerror(failure->error);
  }
  FleetNodeList list = parse_fleet_nodes(text);
  if (list.problem) {
    return where + *list.problem;
  }
  names = std::move(list.names);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> fleet_argument_problem(const FleetOptions& options) {
  if (!options.format.empty() && options.format != "human" && options.format != "json" &&
      options.format != "markdown") {
    return "fleet --format: '" + util::printable(options.format) +
           "' is not human, json or markdown";
  }
  if (options.json && !options.format.empty() && options.format != "json") {
    return "fleet --json: it is --format json; it cannot go with --format " +
           util::printable(options.format);
  }
  if (!options.max_age.empty() && !parse_fleet_duration(options.max_age)) {
    return "fleet --max-age: '" + util::printable(options.max_age) +
           "' is not a duration such as 90s, 30m, 2h, 1d or 1w";
  }
  if (!options.now.empty() && !parse_fleet_time(options.now)) {
    return "fleet --now: '" + util::printable(options.now) +
           "' is not a UTC time such as 2026-12-01T17:57:08Z";
  }
  if (options.inputs.empty()) {
    return std::string(
        "fleet: name the reports to merge (rocdoc check --json files, snapshot archives, or a "
        "directory of them)");
  }
  return std::nullopt;
}

int run_fleet(const FleetOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  for (const auto& input : options.inputs) {
    struct stat st {};
    if (::stat(input.c_str(), &st) != 0) {
      err << "rocdoc: fleet: " << util::printable(input) << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    if (S_ISDIR(st.st_mode)) {
      if (auto problem = list_directory(input, files)) {
        err << "rocdoc: fleet: " << util::printable(input) << ": " << *problem << "\n";
        return 2;
      }
    } else {
      files.push_back(input);
    }
  }
  if (files.empty()) {
    err << "rocdoc: fleet: no report in " << util::printable(util::join(options.inputs, ", "))
        << " (a directory is searched for *.json and *.tar.gz files)\n";
    return 2;
  }
  FleetExpectations expect;
  if (!options.nodes.empty()) {
    if (auto problem = read_expected(options.nodes, expect.expected)) {
      err << "rocdoc: " << *problem << "\n";
      return 2;
    }
    std::sort(expect.expected.begin(), expect.expected.end());
    expect.expected.erase(std::unique(expect.expected.begin(), expect.expected.end()),
                          expect.expected.end());
  }
  expect.max_age_s = options.max_age.empty() ? std::nullopt : parse_fleet_duration(options.max_age);
  expect.now = options.now.empty() ? static_cast<std::int64_t>(std::time(nullptr))
                                   : *parse_fleet_time(options.now);

  std::vector<FleetNode> nodes(files.size());
  std::map<std::string, std::string> first_file;  // node name -> the file that named it first
  std::vector<FleetNode*> json_nodes;
  std::vector<FleetNode*> snapshot_nodes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    FleetNode& node = nodes[i];
    node.file = files[i];
    node.name = node_name(files[i]);
    if (!is_fleet_node_name(node.name)) {
      // A ',' in a host list reads as two nodes, brackets as a range: never print such a name.
      node.problem =
          "the file's name does not give a host name (letters, digits, '.', '-' "
          "and '_' only); rename it to the node's host name";
      continue;
    }
    const auto [it, first] = first_file.emplace(node.name, node.file);
    if (!first) {
      node.problem = "a second report for this node (the first is " + it->second + "); ignored";
    } else {
      (is_snapshot(node.file) ? snapshot_nodes : json_nodes).push_back(&node);
    }
  }
  read_json_nodes(json_nodes);
  if (!snapshot_nodes.empty()) {
    const auto rules = load_rules(options.rules, KnowledgeParts::machine);
    const Knowledge& knowledge = *rules;
    for (FleetNode* node : snapshot_nodes) {
      read_snapshot_node(*node, knowledge);
    }
  }
  if (std::none_of(nodes.begin(), nodes.end(), [](const FleetNode& n) { return n.report; })) {
    err << "rocdoc: fleet: no readable report among " << files.size() << " file(s):\n";
    for (std::size_t i = 0; i < nodes.size() && i < 10; ++i) {
      err << "  " << util::printable(nodes[i].file) << ": " << util::printable(nodes[i].problem)
          << "\n";
    }
    return 2;
  }
  const FleetSummary summary = summarize_fleet(nodes, expect);
  FleetContext context;
  context.inputs = files.size();
  context.now = util::iso8601_utc(expect.now);
  context.expected = expect.expected.size();
  context.color = options.color;
  const std::string format = options.json ? "json" : options.format;
  if (format == "json") {
    render_fleet_json(summary, context, out);
  } else if (format == "markdown") {
    render_fleet_markdown(summary, context, out);
  } else {
    render_fleet_human(summary, context, out);
  }
  return summary.exit_code();
}

RegisteredCommand add_fleet_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<FleetOptions>();
  CLI::App* fleet = &command;
  FleetOptions& fleet_options = *state;
  fleet->add_option("REPORT", fleet_options.inputs, "A report, a snapshot archive, or a directory")
      ->type_name("");
  fleet->add_flag("--no-color", fleet_options.no_color,
                  "Never colour the output (NO_COLOR works too)");
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
  return {[state]() -> std::optional<std::string> {
            if (auto problem = fleet_argument_problem(*state)) {
              return problem;
            }
            return directory_problem("fleet --rules", state->rules);
          },
          [state](const CommandStreams& io) {
            state->color =
                choose_color(state->no_color ? ColorFlag::no_color : ColorFlag::none, io.terminal);
            return run_fleet(*state, io.out, io.err);
          }};
}

}  // namespace rocdoc
