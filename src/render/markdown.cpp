// The Markdown report (docs/rocdoc.1.md, --format markdown): a report to paste into a GitHub
// issue or a ticket. A heading with the verdict, the inventory (the GPUs as a table), a
// summary, each root cause once with its evidence, its fixes as fenced `sh` blocks and the
// findings that follow from it, the report's notes, every check in a collapsed table, and the
// facts as JSON in a collapsed <details> block.
//
// Every value from the inspected machine or the rules goes through src/render/markdown_text.h:
// escaped inline text, code spans and fences longer than any run of backticks inside, so a
// value can neither add a heading, a table, a list or raw HTML, nor close a block early.
// Raw HTML (<details>, <summary>) holds rocdoc's own words only.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "rocdoc/render.h"
#include "src/facts/json.h"
#include "src/render/causes.h"
#include "src/render/gpu_memory_text.h"
#include "src/render/markdown_fixes.h"
#include "src/render/markdown_text.h"
#include "src/render/status_line.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

namespace md = markdown;

/// An error or a warning; a notice (severity info) is a finding but not a problem.
bool is_problem(const CheckResult& result) {
  return result.status == Status::fail ||
         (result.status == Status::warn && result.severity != Severity::info);
}

std::string_view severity_word(const CheckResult& result) {
  if (result.status == Status::fail) {
    return "error";
  }
  return result.severity == Severity::info ? "notice" : "warning";
}

std::string plural(std::size_t count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// ---- heading ---------------------------------------------------------------------------

bool any_ran(const Report& report) {
  return std::any_of(report.checks.begin(), report.checks.end(),
                     [](const CheckRecord& r) { return r.result.status != Status::skip; });
}

std::string counts_words(const Summary& summary) {
  std::vector<std::string> counts;
  if (summary.errors > 0) {
    counts.push_back(plural(static_cast<std::size_t>(summary.errors), "error"));
  }
  if (summary.warnings > 0) {
    counts.push_back(plural(static_cast<std::size_t>(summary.warnings), "warning"));
  }
  if (summary.notices > 0) {
    counts.push_back(plural(static_cast<std::size_t>(summary.notices), "notice"));
  }
  return counts.empty() ? std::string("no findings") : util::join(counts, ", ");
}

/// "container (docker)", "WSL2", "container (docker) on WSL2"; "" for neither.
std::string host_kind_words(const SystemFacts& system) {
  std::string words;
  if (system.container) {
    words = "container (" + md::text(*system.container) + ")";
  }
  if (system.wsl != WslKind::none) {
    const char* wsl = system.wsl == WslKind::wsl1 ? "WSL1" : "WSL2";
    words = words.empty() ? std::string(wsl) : words + " on " + wsl;
  }
  return words;
}

void render_heading(const Report& report, std::size_t problems, std::ostream& out) {
  std::string verdict;
  if (!any_ran(report)) {
    verdict = "nothing could be checked";
  } else if (problems > 0) {
    verdict = plural(problems, "problem");
  } else {
    verdict = "no issues found";
  }
  out << fmt::format("# rocdoc: {} ({})\n\n", to_string(report.outcome.verdict), verdict);
  std::string where;
  switch (report.host_kind) {
    case HostKind::live:
      where = "this machine";
      break;
    case HostKind::snapshot:
      where = "snapshot " + md::code(report.host_origin);
      break;
    case HostKind::sysroot:
      where = "root filesystem " + md::code(report.host_origin);
      break;
  }
  out << fmt::format(
      "rocdoc {} · rules {} (revision {}) · {} · {} · exit code {} (`--fail-on {}`)\n\n",
      md::text(report.tool_version), md::text(report.rules_origin), md::text(report.rules_revision),
      where, md::text(report.created), report.outcome.exit_code, to_string(report.outcome.fail_on));
}

// ---- inventory -------------------------------------------------------------------------

void render_system(const Report& report, std::ostream& out) {
  if (!report.facts.system) {
    out << "- **System:** unknown (the system probe failed)\n";
    return;
  }
  const SystemFacts& system = *report.facts.system;
  const auto name = system.os_release.find("PRETTY_NAME");
  std::vector<std::string> parts;
  parts.push_back(name != system.os_release.end() ? md::text(name->second) : "unknown OS");
  parts.push_back(system.uname.release.empty() ? std::string("kernel unknown")
                                               : "kernel " + md::code(system.uname.release));
  if (const std::string kind = host_kind_words(system); !kind.empty()) {
    parts.push_back(kind);
  } else if (report.host_kind == HostKind::sysroot) {
    parts.push_back("an image's files: where it will run is not known");
  } else {
    parts.push_back("bare metal or VM");
  }
  out << "- **System:** " << util::join(parts, " · ") << "\n";
}

void render_rocm(const Report& report, std::ostream& out) {
  if (!report.facts.rocm) {
    out << "- **ROCm:** unknown (the rocm probe failed)\n";
    return;
  }
  const RocmFacts& rocm = *report.facts.rocm;
  std::vector<std::string> packages;
  if (report.facts.packages) {
    for (const auto& found : report.facts.packages->rocm_meta_packages()) {
      packages.push_back(md::code(found.package->name + " " + found.package->version) + " (" +
                         std::string(to_string(found.database->manager)) + ")");
    }
  }
  const std::string package_text =
      packages.empty()
          ? std::string()
          : (packages.size() > 1 ? " · packages " : " · package ") + util::join(packages, ", ");
  if (rocm.installs.empty()) {
    out << "- **ROCm:** none under /opt" << package_text << "\n";
    return;
  }
  std::vector<std::string> installs;
  for (const auto& install : rocm.installs) {
    std::string text = install.version ? md::text(*install.version) : "version unknown";
    text += " in " + md::code(install.path);
    if (rocm.opt_rocm_target && util::parent_path(install.path) == "/opt" &&
        (*rocm.opt_rocm_target == install.path ||
         "/opt/" + *rocm.opt_rocm_target == install.path)) {
      text += " (/opt/rocm)";
    }
    installs.push_back(std::move(text));
  }
  out << "- **ROCm:** " << util::join(installs, ", ") << package_text << "\n";
}

void render_python(const Report& report, std::ostream& out) {
  if (!report.facts.python) {
    out << "- **Python:** unknown (the python probe failed)\n";
    return;
  }
  const auto& environments = report.facts.python->environments;
  if (environments.empty()) {
    out << "- **Python:** no Python environment found\n";
    return;
  }
  for (const auto& env : environments) {
    std::string line = "- **Python:** " + md::code(env.prefix.empty() ? env.site_dir : env.prefix);
    if (!env.found_by.empty()) {
      line += " (" + md::text(util::join(env.found_by, ", ")) + ")";
    }
    if (env.torch) {
      line += " · torch " + md::code(env.torch->version) + ", " +
              std::string(build_words(env.torch->build));
      if (!env.torch->origin_detail.empty()) {
        line += ", " + md::text(env.torch->origin_detail);
      }
    } else {
      line += " · no torch";
    }
    if (const auto& sdk = env.rocm_sdk) {
      line += " · pip ROCm " + md::code(sdk->version);
      if (sdk->libraries_family) {
        line += " (libraries " + md::code(*sdk->libraries_family) + ")";
      } else if (!sdk->devices.empty()) {
        line += " (devices " + md::text(util::join(sdk->devices, " ")) + ")";
      }
    }
    out << line << "\n";
  }
}

/// One row per GPU: a table cell holds escaped text only (a code span could be split by `|`).
void render_gpu_table(const Report& report, std::ostream& out) {
  if (!report.declared_gpus.empty()) {
    out << "GPUs declared with `--gpu` (GPU-less mode: hardware, driver and permissions are "
           "not judged):\n\n";
    out << "| # | declared as | GPU | gfx target |\n|---|---|---|---|\n";
    std::size_t index = 0;
    for (const auto& gpu : report.declared_gpus) {
      out << fmt::format("| {} | {} | {} | {} |\n", index++, md::text(gpu.given),
                         md::text(gpu.name), md::text(gpu.gfx_target));
    }
    out << "\n";
    return;
  }
  if (report.gpus.empty()) {
    const bool wsl = report.facts.system && report.facts.system->wsl != WslKind::none;
    out << (wsl ? "No GPU on a PCI bus here (under WSL the GPU is reached through /dev/dxg).\n\n"
            : report.facts.pci || report.facts.kfd
                ? "No AMD GPU found.\n\n"
                : "GPUs unknown (the pci and kfd probes failed).\n\n");
    return;
  }
  const std::optional<std::string> dkms =
      report.facts.driver ? report.facts.driver->dkms_version : std::nullopt;
  out << "| # | GPU | gfx target | PCI address | driver | memory |\n|---|---|---|---|---|---|\n";
  std::size_t index = 0;
  for (const auto& gpu : report.gpus) {
    std::string driver = gpu.driver.empty() ? std::string("no driver") : md::text(gpu.driver);
    if (gpu.driver == "amdgpu" && dkms) {
      driver += " (DKMS " + md::text(*dkms) + ")";
    }
    const std::string memory = gpu_memory_text(gpu);
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", index++,
                       gpu.name.empty() ? std::string("AMD GPU") : md::text(gpu.name),
                       gpu.gfx_target.empty() ? std::string("unknown") : md::text(gpu.gfx_target),
                       gpu.bdf.empty() ? std::string("—") : md::text(gpu.bdf), driver,
                       memory.empty() ? std::string("unknown") : memory);
  }
  out << "\n";
}

void render_inventory(const Report& report, std::ostream& out) {
  out << "## Inventory\n\n";
  render_gpu_table(report, out);
  render_system(report, out);
  render_rocm(report, out);
  render_python(report, out);
  out << "\n";
}

// ---- summary ---------------------------------------------------------------------------

std::vector<const CheckRecord*> roots_of(const Report& report, const Causes& causes) {
  std::vector<const CheckRecord*> roots;
  for (const auto& record : report.checks) {
    if (is_finding(record.result) && causes.root_of(record) == nullptr) {
      roots.push_back(&record);
    }
  }
  return roots;
}

/// A finding's label: its id. Not the check's title, which names what passes ("ROCm
/// installed") and would say the opposite of a finding (N28); the finding's own words follow
/// the heading, and no value read from the machine is ever part of one.
std::string check_label(const CheckRecord& record) { return md::code(record.info->id); }

void render_summary(const Report& report, const std::vector<const CheckRecord*>& roots,
                    std::ostream& out) {
  out << "## Summary\n\n";
  const Summary summary = report.summary();
  if (!any_ran(report)) {
    out << (report.checks.empty() ? "Nothing could be checked: no check was selected (`--only`, "
                                    "`--skip`).\n\n"
                                  : "Nothing could be checked: every check was skipped (the "
                                    "table of all checks below says why).\n\n");
    return;
  }
  out << fmt::format("{}; {} passed, {} skipped.\n\n", counts_words(summary), summary.passed,
                     summary.skipped);
  if (summary.errors == 0 && summary.warnings == 0) {
    out << still_a_problem(report) << "\n\n";  // rocdoc's own words: code spans, plain URLs
  }
  if (roots.empty()) {
    return;
  }
  // Only problems are root causes; notices are listed apart (N28).
  std::vector<std::string> notices;
  bool any_problem = false;
  for (const CheckRecord* root : roots) {
    if (!is_problem(root->result)) {
      notices.push_back(md::code(root->info->id));
      continue;
    }
    if (!any_problem) {
      out << "Root causes, each described below with what follows from it:\n\n";
      any_problem = true;
    }
    out << fmt::format("- {} ({})\n", check_label(*root), severity_word(root->result));
  }
  if (any_problem) {
    out << "\n";
  }
  if (!notices.empty()) {
    out << "Notices, below the problems: " << util::join(notices, ", ") << ".\n\n";
  }
}

// ---- problems --------------------------------------------------------------------------

void render_fixes(const CheckRecord& record, md::PrintedCommands& printed, std::ostream& out) {
  md::render_fixes(record.result.fix, record.result.fix_order, record.info->id, printed, out);
}

void render_problem(const CheckRecord& record, std::size_t number, const Causes& causes,
                    md::PrintedCommands& printed, std::ostream& out) {
  out << fmt::format("### {}. {} ({})\n\n", number, check_label(record),
                     severity_word(record.result));
  out << md::text(record.result.message) << "\n\n";
  if (!record.result.evidence.empty()) {
    out << "Evidence:\n\n" << md::fence(record.result.evidence, "text") << "\n";
  }
  render_fixes(record, printed, out);
  const auto& consequences = causes.consequences(record);
  if (!consequences.empty()) {
    out << "**Also because of this:**\n\n";
    for (const CheckRecord* consequence : consequences) {
      out << fmt::format("- {} ({}): {}\n", md::code(consequence->info->id),
                         severity_word(consequence->result), md::text(consequence->result.message));
    }
    out << "\n";
  }
  if (const std::string verify = causes.verify_command(record); !verify.empty()) {
    out << "**Verify:** " << md::code(verify) << "\n\n";
  }
}

void render_problems(const std::vector<const CheckRecord*>& roots, const Causes& causes,
                     std::ostream& out) {
  md::PrintedCommands printed;
  std::size_t number = 0;
  for (const bool problems : {true, false}) {
    bool any = false;
    for (const CheckRecord* root : roots) {
      if (is_problem(root->result) != problems) {
        continue;
      }
      if (!any) {
        out << (problems ? "## Problems\n\n" : "## Notices\n\n");
        any = true;
      }
      render_problem(*root, ++number, causes, printed, out);
    }
  }
}

// ---- notes, checks, facts ----------------------------------------------------------------

void render_notes(const Report& report, std::ostream& out) {
  std::vector<std::string> notes;
  for (const auto& note : report.notes) {
    notes.push_back(md::text(note));
  }
  for (const auto& probe : report.probes) {
    if (!probe.ok) {
      notes.push_back(fmt::format("probe {} failed: {} (checks that need it are skipped)",
                                  md::code(probe.name), md::text(probe.error)));
    }
  }
  if (report.facts.pci && report.facts.pci->names_problem) {
    notes.push_back("PCI names: " + md::text(*report.facts.pci->names_problem) +
                    "; AMD names come from rocdoc's own table");
  }
  for (const auto& id : report.outcome.required) {
    const auto it = std::find_if(report.checks.begin(), report.checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (it == report.checks.end()) {
      notes.push_back("required check " + md::code(id) +
                      " did not run: it was not selected (`--only`, `--skip`)");
    } else if (it->result.status == Status::skip) {
      notes.push_back("required check " + md::code(id) +
                      " did not run: " + md::text(it->result.message));
    }
  }
  if (notes.empty()) {
    return;
  }
  out << "## Notes\n\n";
  for (const auto& note : notes) {
    out << "- " << note << "\n";
  }
  out << "\n";
}

std::string_view status_word(const CheckResult& result) {
  switch (result.status) {
    case Status::pass:
      return "pass";
    case Status::skip:
      return "skip";
    case Status::fail:
    case Status::warn:
      break;
  }
  return severity_word(result);
}

void render_all_checks(const Report& report, std::ostream& out) {
  if (report.checks.empty()) {
    return;
  }
  out << "## Checks\n\n<details>\n<summary>All " << plural(report.checks.size(), "check")
      << " with their results</summary>\n\n";
  out << "| check | result | message |\n|---|---|---|\n";
  for (const auto& record : report.checks) {
    out << fmt::format("| {} | {} | {} |\n", md::text(record.info->id), status_word(record.result),
                       md::text(record.result.message));
  }
  out << "\n</details>\n\n";
}

void render_facts(const Report& report, std::ostream& out) {
  // ASCII only (\u escapes): the block shows the same facts as `check --json`, and no byte of
  // it can act on a terminal or a Markdown renderer.
  const std::string json =
      facts_to_json(report.facts)
          .dump(2, ' ', true, nlohmann::ordered_json::error_handler_t::replace);
  out << "## Facts\n\n<details>\n<summary>What the probes found (JSON, the <code>facts</code> "
         "of <code>rocdoc check --json</code>)</summary>\n\n";
  std::vector<std::string> lines;
  for (const auto line : util::split(json, '\n')) {
    lines.emplace_back(line);
  }
  out << md::fence(lines, "json") << "\n</details>\n";
}

}  // namespace

void render_markdown(const Report& report, std::ostream& out) {
  const Causes causes(report);
  const auto roots = roots_of(report, causes);
  const auto problems = static_cast<std::size_t>(std::count_if(
      roots.begin(), roots.end(), [](const CheckRecord* r) { return is_problem(r->result); }));
  render_heading(report, problems, out);
  render_inventory(report, out);
  render_summary(report, roots, out);
  render_problems(roots, causes, out);
  render_notes(report, out);
  render_all_checks(report, out);
  render_facts(report, out);
}

}  // namespace rocdoc
