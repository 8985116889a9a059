// `rocdoc topology [--root DIR | --snapshot FILE] [--json]`: the GPU×GPU matrix of links
// (nvidia-smi topo -m's layout) with each GPU's placement, from the probes the multi-GPU
// checks need and nothing else.
#include <memory>
#include <sstream>

#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/commands/arguments.h"
#include "src/commands/command.h"
#include "src/commands/terminal_style.h"
#include "src/hosts/live.h"
#include "src/snapshot/open.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

constexpr std::string_view k_topology_exit_codes =
    "Exit codes:\n"
    "  0  the topology was printed (what topology.p2p and gpu.small-bar found is part of it)\n"
    "  2  bad arguments, an unreadable snapshot, or invalid rules\n";

struct TopologyOptions {
  std::string root;
  std::string snapshot;
  std::string rules;
  bool json = false;
};

std::optional<std::string> topology_argument_problem(const TopologyOptions& options) {
  if (!options.root.empty() && !options.snapshot.empty()) {
    return "topology --snapshot: it names what to read, as --root does; give one";
  }
  if (auto problem = directory_problem("topology --root", options.root)) {
    return problem;
  }
  return directory_problem("topology --rules", options.rules);
}

int run_topology(const TopologyOptions& options, std::ostream& out) {
  const auto rules = load_rules(options.rules, KnowledgeParts::machine);
  const Knowledge& knowledge = *rules;
  std::unique_ptr<Host> host;
  if (!options.snapshot.empty()) {
    host = std::move(open_snapshot_archive(options.snapshot).host);
  } else if (!options.root.empty()) {
    host = std::move(open_snapshot_directory(options.root).host);
  } else {
    host = std::make_unique<LiveHost>();
  }
  CheckSelection selection;
  selection.only = {"topology.p2p", "gpu.small-bar", "iommu.mode"};
  selection.needed_probes_only = true;
  const Report report = run_report(*host, knowledge, selection);
  if (options.json) {
    render_topology_json(report, out);
  } else {
    render_topology(report, out, choose_glyphs());
  }
  return 0;
}

}  // namespace

RegisteredCommand add_topology_options(CLI::App& command, const CLI::App& /*app*/) {
  auto state = std::make_shared<TopologyOptions>();
  command.add_option("--root", state->root, "Read a snapshot directory instead of this machine")
      ->type_name("DIR")
      ->take_last();
  command
      .add_option("--snapshot", state->snapshot,
                  "Read a snapshot archive (.tar.gz, as rocdoc snapshot writes it) instead of "
                  "this machine")
      ->type_name("FILE")
      ->take_last();
  command.add_option("--rules", state->rules, "Use the rules in DIR instead of the embedded ones")
      ->type_name("DIR")
      ->take_last();
  command.add_flag(
      "--json", state->json,
      "Print the topology as JSON (schema rocdoc-topology/1, docs/topology.schema.json)");
  command.footer(std::string(k_topology_exit_codes));
  return {[state] { return topology_argument_problem(*state); },
          [state](const CommandStreams& io) { return run_topology(*state, io.out); }};
}

}  // namespace rocdoc
