// The table of commands (ninja's table of tools): a new command is one file of src/commands/
// and one row here. Help, did-you-mean and completions read it (src/commands/cli.cpp,
// src/commands/completions.cpp); the man page's COMMANDS section is tested against it.
#include <array>

#include "src/commands/command.h"

namespace rocdoc {

RegisteredCommand add_check_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_rules_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_snapshot_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_triage_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_scan_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_targets_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_fleet_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_topology_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_list_checks_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_explain_options(CLI::App& command, const CLI::App& app);
RegisteredCommand add_completions_options(CLI::App& command, const CLI::App& app);

namespace {

constexpr std::array<std::string_view, 2> k_rules_subcommands = {"lint", "show"};

const std::array<Command, 11> k_commands = {{
    {"check", "Inspect this machine (or a snapshot) and report", {}, add_check_options},
    {"rules", "Validate or show the knowledge base", k_rules_subcommands, add_rules_options},
    {"snapshot",
     "Capture what rocdoc reads of this machine into one file, with the report, for a support "
     "ticket",
     {},
     add_snapshot_options},
    {"triage",
     "Read a pasted log (rocminfo, collect_env, dmesg, a traceback, a docker error) and answer "
     "with check ids and fixes",
     {},
     add_triage_options},
    {"scan",
     "Find what only runs on NVIDIA in a source tree (warp size 32, PTX, NVML, CUDA-only builds "
     "and containers), with the fix for each line; human, JSON or SARIF",
     {},
     add_scan_options},
    {"targets",
     "Print the GPU targets compiled into HIP binaries (.so files, objects, offload bundles, code "
     "objects) or named by a rocBLAS Tensile directory",
     {},
     add_targets_options},
    {"fleet",
     "Merge many nodes' reports (check --json files, snapshot archives) into a fleet summary: root "
     "causes by node, outliers, missing and stale nodes",
     {},
     add_fleet_options},
    {"topology",
     "Print how the GPUs reach each other (a GPU×GPU matrix of XGMI and PCIe paths, as nvidia-smi "
     "topo -m does) with each GPU's NUMA node, CPUs, PCIe link, BAR and XGMI hive",
     {},
     add_topology_options},
    {"list-checks", "List every check id with its severity", {}, add_list_checks_options},
    {"explain",
     "Explain a check: what it looks at, why it matters, how to fix it, its sources",
     {},
     add_explain_options},
    {"completions",
     "Print the completion script of a shell: bash, zsh, fish",
     {},
     add_completions_options},
}};

}  // namespace

std::span<const Command> command_table() { return k_commands; }

const Command* find_command(std::string_view name) {
  for (const Command& command : k_commands) {
    if (command.name == name) {
      return &command;
    }
  }
  return nullptr;
}

}  // namespace rocdoc
