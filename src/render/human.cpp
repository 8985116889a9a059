// The human report (docs/rocdoc.1.md, "Reading the report"): a header and an inventory, then
// the checks grouped by area, then notes and a summary line.
//
// - An area whose checks all passed (or were skipped) is one line unless verbose.
// - A check line leads with the message; the check id follows it, dimmed, in brackets.
// - A root cause is printed with its evidence and fixes once; the findings that follow from
//   it (CheckResult::caused_by) are listed under it without fixes, and not again in their
//   area. A fix command already printed is never printed again; the fix points at it.
// - Lines are wrapped at options.width with hanging indentation, except fix commands, which
//   are printed whole on their own line so that a copy of the line still runs.
//
// Every text that comes from the inspected machine or the rules passes through
// util::printable(), so control characters and line breaks in it are shown escaped, never
// sent to the terminal; with ASCII glyphs, all text is made ASCII (text::to_ascii).
// Whole on purpose: one renderer; its header, inventory, groups and summary share one layout.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "rocdoc/render.h"
#include "src/render/causes.h"
#include "src/render/gpu_memory_text.h"
#include "src/render/page.h"
#include "src/render/status_line.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// Where each part of a check's text starts.
constexpr std::size_t k_evidence_indent = 6;
constexpr std::size_t k_command_extra = 2;  ///< a command sits this much right of its fix text

std::string plural(std::size_t count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

/// A finding that counts as a problem: an error or a warning, not a notice.
bool is_problem(const CheckResult& result) {
  return result.status == Status::fail ||
         (result.status == Status::warn && result.severity != Severity::info);
}

Mark mark_of(const CheckResult& result) {
  switch (result.status) {
    case Status::pass:
      return Mark::pass;
    case Status::fail:
      return Mark::fail;
    case Status::skip:
      return Mark::skip;
    case Status::warn:
      break;
  }
  return result.severity == Severity::info ? Mark::notice : Mark::warn;
}

// ---- header and inventory --------------------------------------------------------------

/// "container (docker)", "WSL2", "container (docker) on WSL2"; "" for neither.
std::string host_kind_words(const SystemFacts& system) {
  std::string words;
  if (system.container) {
    words = "container (" + util::printable(*system.container) + ")";
  }
  if (system.wsl != WslKind::none) {
    const char* wsl = system.wsl == WslKind::wsl1 ? "WSL1" : "WSL2";
    words = words.empty() ? std::string(wsl) : words + " on " + wsl;
  }
  return words;
}

void render_header(const Report& report, Page& page) {
  std::string where;
  switch (report.host_kind) {
    case HostKind::live:
      where = "this machine";
      if (report.facts.system) {
        if (auto kind = host_kind_words(*report.facts.system); !kind.empty()) {
          where = std::move(kind);
        }
      }
      break;
    case HostKind::snapshot:
      where = "snapshot " + util::printable(report.host_origin);
      break;
    case HostKind::sysroot:
      where = "root filesystem " + util::printable(report.host_origin);
      break;
  }
  // What the host is comes first, for a snapshot too: "container (docker) · snapshot DIR".
  if (report.host_kind != HostKind::live && report.facts.system) {
    if (const auto kind = host_kind_words(*report.facts.system); !kind.empty()) {
      where = kind + std::string(page.separator()) + where;
    }
  }
  const std::string title = fmt::format("rocdoc {}", util::printable(report.tool_version));
  page.paragraph(page.paint(title, k_bold), text::display_width(title),
                 page.own(std::string(page.separator()) + where), 2);
  if (page.verbose()) {
    page.indented(0, page.clean(fmt::format("rules: {} (revision {})", report.rules_origin,
                                            report.rules_revision)));
  }
}

constexpr std::size_t k_label_columns = 8;  ///< "Python  "
constexpr std::size_t k_inventory_indent = 2;

void inventory_line(Page& page, std::string_view label, std::string_view text) {
  const std::string lead = std::string(k_inventory_indent, ' ') +
                           page.paint(fmt::format("{:<{}}", label, k_label_columns), k_bold);
  page.paragraph(lead, k_inventory_indent + k_label_columns, text,
                 k_inventory_indent + k_label_columns);
}

std::string joined(const std::vector<std::string>& parts, const Page& page) {
  return util::join(parts, page.separator());
}

void render_system(const Report& report, Page& page) {
  if (!report.facts.system) {
    inventory_line(page, "System", "unknown (the system probe failed)");
    return;
  }
  const SystemFacts& system = *report.facts.system;
  const auto name = system.os_release.find("PRETTY_NAME");
  std::vector<std::string> parts;
  parts.push_back(name != system.os_release.end() ? page.clean(name->second) : "unknown OS");
  parts.push_back(system.uname.release.empty() ? std::string("kernel unknown")
                                               : "kernel " + page.clean(system.uname.release));
  const std::string kind = host_kind_words(system);
  if (!kind.empty()) {
    parts.push_back(page.own(kind));
  } else if (report.host_kind == HostKind::sysroot) {
    parts.push_back("an image's files: where it will run is not known");
  } else {
    parts.push_back("bare metal or VM");
  }
  inventory_line(page, "System", joined(parts, page));
}

void render_gpus(const Report& report, Page& page) {
  if (!report.declared_gpus.empty()) {
    for (const auto& gpu : report.declared_gpus) {
      std::vector<std::string> parts{page.clean(gpu.name.empty() ? gpu.given : gpu.name)};
      if (!gpu.gfx_target.empty()) {
        parts.push_back(page.clean(gpu.gfx_target));
      }
      parts.push_back("declared with --gpu (GPU-less mode)");
      inventory_line(page, "GPU", joined(parts, page));
    }
    return;
  }
  if (report.gpus.empty()) {
    const bool wsl = report.facts.system && report.facts.system->wsl != WslKind::none;
    inventory_line(page, "GPU",
                   wsl ? "none on a PCI bus here (under WSL the GPU is reached through /dev/dxg)"
                   : report.facts.pci || report.facts.kfd
                       ? "no AMD GPU found"
                       : "unknown (the pci and kfd probes failed)");
    return;
  }
  // Identical GPUs (eight MI300X) share one line, with their PCI addresses.
  struct Group {
    const InventoryGpu* first;
    std::vector<std::string> addresses;
  };
  std::vector<Group> groups;
  for (const auto& gpu : report.gpus) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& group) {
      return group.first->name == gpu.name && group.first->gfx_target == gpu.gfx_target &&
             group.first->driver == gpu.driver &&
             gpu_memory_text(*group.first) == gpu_memory_text(gpu);
    });
    if (it == groups.end()) {
      groups.push_back({&gpu, {}});
      it = std::prev(groups.end());
    }
    if (!gpu.bdf.empty()) {
      it->addresses.push_back(page.clean(gpu.bdf));
    }
  }
  const std::optional<std::string> dkms =
      report.facts.driver ? report.facts.driver->dkms_version : std::nullopt;
  for (const Group& group : groups) {
    const InventoryGpu& gpu = *group.first;
    const std::size_t count = std::max<std::size_t>(group.addresses.size(), 1);
    std::vector<std::string> parts;
    parts.push_back((count > 1 ? fmt::format("{} x ", count) : std::string()) +
                    (gpu.name.empty() ? std::string("AMD GPU") : page.clean(gpu.name)));
    parts.push_back(gpu.gfx_target.empty() ? std::string("gfx target unknown")
                                           : page.clean(gpu.gfx_target));
    if (!group.addresses.empty()) {
      parts.push_back(util::join(group.addresses, ", "));
    }
    std::string driver = gpu.driver.empty() ? std::string("no driver") : page.clean(gpu.driver);
    if (gpu.driver == "amdgpu" && dkms) {
      driver += " (DKMS " + page.clean(*dkms) + ")";
    }
    parts.push_back(driver);
    if (std::string memory = gpu_memory_text(gpu); !memory.empty()) {
      parts.push_back(std::move(memory));
    }
    inventory_line(page, "GPU", joined(parts, page));
  }
}

/// "package rocm-core 6.2.0.60200-66~22.04 (dpkg)": what the package databases say names the
/// ROCm release; empty when they list none (or were not read).
std::string rocm_packages_text(const Report& report, const Page& page) {
  if (!report.facts.packages) {
    return "";
  }
  std::vector<std::string> parts;
  for (const auto& found : report.facts.packages->rocm_meta_packages()) {
    parts.push_back(fmt::format("{} {} ({})", page.clean(found.package->name),
                                page.clean(found.package->version),
                                to_string(found.database->manager)));
  }
  return parts.empty() ? std::string()
                       : (parts.size() > 1 ? "packages " : "package ") + util::join(parts, ", ");
}

void render_rocm(const Report& report, Page& page) {
  if (!report.facts.rocm) {
    inventory_line(page, "ROCm", "unknown (the rocm probe failed)");
    return;
  }
  const RocmFacts& rocm = *report.facts.rocm;
  const std::string packages = rocm_packages_text(report, page);
  if (rocm.installs.empty()) {
    inventory_line(page, "ROCm",
                   packages.empty() ? std::string("none under /opt")
                                    : joined({"none under /opt", packages}, page));
    return;
  }
  std::vector<std::string> installs;
  for (const auto& install : rocm.installs) {
    std::string text = install.version ? page.clean(*install.version) : "version unknown";
    text += " " + page.clean(install.path);
    if (rocm.opt_rocm_target && util::parent_path(install.path) == "/opt" &&
        (*rocm.opt_rocm_target == install.path ||
         "/opt/" + *rocm.opt_rocm_target == install.path)) {
      text += " (/opt/rocm)";
    }
    installs.push_back(std::move(text));
  }
  std::vector<std::string> parts{util::join(installs, ", ")};
  if (!packages.empty()) {
    parts.push_back(packages);
  }
  inventory_line(page, "ROCm", joined(parts, page));
}

/// `python3` marks the environment the first python3 on PATH runs; when some other one runs,
/// the rest are "shadowed" (typing python3 does not reach them).
std::string describe_environment(const PythonEnvironment& env, const Page& page,
                                 bool python3_known) {
  std::vector<std::string> parts;
  if (env.python_version) {
    parts.push_back(page.clean(*env.python_version));
  }
  std::string where = page.clean(env.prefix.empty() ? env.site_dir : env.prefix);
  if (!env.found_by.empty()) {
    where += " (" + page.clean(util::join(env.found_by, ", ")) + ")";
  }
  if (env.runs_as_python3) {
    where += page.ascii() ? " <- python3" : " ← python3";
  } else if (python3_known) {
    where += ", shadowed";
  }
  parts.push_back(std::move(where));
  if (env.torch) {
    std::string torch = "torch " + page.clean(env.torch->version) + ", " +
                        std::string(build_words(env.torch->build));
    if (!env.torch->origin_detail.empty()) {
      torch += ", " + page.clean(env.torch->origin_detail);
    }
    parts.push_back(std::move(torch));
  } else {
    parts.push_back("no torch");
  }
  if (const auto& sdk = env.rocm_sdk) {
    // AMD's ROCm as pip packages: its release and which GPUs its libraries carry code for.
    const std::string code =
        sdk->libraries_family ? "libraries " + page.clean(*sdk->libraries_family)
        : !sdk->devices.empty()
            ? "devices " + page.clean(util::join(sdk->devices, " "))
            : std::string(sdk->libraries ? "no device package" : "no libraries package");
    parts.push_back("pip ROCm " + page.clean(sdk->version) + " (" + code + ")");
  }
  return joined(parts, page);
}

void render_python(const Report& report, Page& page) {
  if (!report.facts.python) {
    inventory_line(page, "Python", "unknown (the python probe failed)");
    return;
  }
  const auto& environments = report.facts.python->environments;
  const bool python3_known =
      std::any_of(environments.begin(), environments.end(),
                  [](const PythonEnvironment& env) { return env.runs_as_python3; });
  // The environment python3 runs comes first and is always shown, torch or not (N9): it is
  // what `python3 -c 'import torch'` imports. Others without torch are counted, -v lists them.
  std::vector<const PythonEnvironment*> ordered;
  for (const auto& env : environments) {
    if (env.runs_as_python3) {
      ordered.insert(ordered.begin(), &env);
    } else {
      ordered.push_back(&env);
    }
  }
  std::size_t without_torch = 0;
  std::size_t shown = 0;
  for (const PythonEnvironment* env : ordered) {
    if (env->torch || env->runs_as_python3 || page.verbose()) {
      inventory_line(page, "Python", describe_environment(*env, page, python3_known));
      ++shown;
    } else {
      ++without_torch;
    }
  }
  if (environments.empty()) {
    inventory_line(page, "Python", "no Python environment found");
  } else if (shown == 0 && without_torch == 1) {
    inventory_line(page, "Python", describe_environment(environments.front(), page, python3_known));
  } else if (shown == 0) {
    inventory_line(
        page, "Python",
        fmt::format("{}, none with torch (-v lists them)", plural(without_torch, "environment")));
  } else if (without_torch > 0) {
    inventory_line(
        page, "Python",
        fmt::format("{} without torch (-v lists them)", plural(without_torch, "more environment")));
  }
}

void render_inventory(const Report& report, Page& page) {
  render_system(report, page);
  render_gpus(report, page);
  render_rocm(report, page);
  render_python(report, page);
  for (const auto& note : report.notes) {
    page.paragraph(page.paint("note:", k_bold) + " ", 6, page.clean(note), 6);
  }
}

// ---- checks ------------------------------------------------------------------------------

/// The fixes printed so far, by command: a command is printed once in a report.
using PrintedCommands = std::map<std::string, std::string_view>;  // command → check id

/// "Add yourself to render (then log out and back in):" — the suffix goes before a final
/// colon.
std::string with_suffix(std::string description, const Fix& fix) {
  const char* suffix = fix.needs_reboot    ? "then reboot"
                       : fix.needs_relogin ? "then log out and back in"
                                           : nullptr;
  const std::string lower = util::to_lower(description);
  if (suffix == nullptr || lower.find("log out") != std::string::npos ||
      lower.find("reboot") != std::string::npos) {
    return description;  // it says so already
  }
  const bool colon = !description.empty() && description.back() == ':';
  if (colon) {
    description.pop_back();
  }
  return description + (description.empty() ? "" : " ") + "(" + suffix + ")" + (colon ? ":" : "");
}

/// Where a fix's parts go: its description after `lead` (`columns` wide), further lines of
/// it at `hang`, its command at `command`.
struct FixPlace {
  std::string lead;
  std::size_t columns;
  std::size_t hang;
  std::size_t command;
};

/// One fix: its description (wrapped), and its command whole on the next line; a command
/// already printed in this report is named instead of printed again.
void render_fix(const Fix& fix, const FixPlace& place, std::string_view id,
                PrintedCommands& printed, Page& page) {
  std::string description = with_suffix(page.clean(fix.description), fix);
  const std::string command = page.clean(fix.command);
  const auto seen = command.empty() ? printed.end() : printed.find(command);
  if (seen != printed.end()) {
    description +=
        fmt::format(" (the command {} above)",
                    seen->second == id ? "shown" : "shown for " + std::string(seen->second));
  }
  page.paragraph(place.lead, place.columns, description, place.hang);
  if (!command.empty() && seen == printed.end()) {
    page.whole(place.command, command);
    printed.emplace(command, id);
  }
}

void render_fixes(const CheckRecord& record, PrintedCommands& printed, Page& page) {
  const auto& fixes = record.result.fix;
  const std::string_view id = record.info->id;
  const std::size_t at = k_evidence_indent;
  if (fixes.size() == 1) {
    const FixPlace place{std::string(at, ' ') + page.paint("fix:", k_bold) + " ", at + 5, at + 5,
                         at + k_command_extra};
    render_fix(fixes.front(), place, id, printed, page);
    return;
  }
  if (fixes.empty()) {
    return;
  }
  const bool alternatives = record.result.fix_order == FixOrder::alternatives;
  page.whole(at, page.paint(alternatives ? "fix, one of:" : "fix, in this order:", k_bold));
  const std::size_t inner = at + 2;
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    if (alternatives) {
      if (i > 0) {
        page.whole(at, page.paint("or:", k_bold));
      }
      const FixPlace place{std::string(inner, ' '), inner, inner, inner + k_command_extra};
      render_fix(fixes[i], place, id, printed, page);
    } else {
      const std::string number = fmt::format("{}. ", i + 1);
      const std::size_t hang = inner + number.size();
      render_fix(fixes[i], {std::string(inner, ' ') + number, hang, hang, hang + k_command_extra},
                 id, printed, page);
    }
  }
}

/// An evidence line: its further lines two columns in, so that each line of evidence still
/// starts at the left.
void render_evidence_line(std::size_t indent, std::string_view line, Page& page) {
  page.paragraph(std::string(indent, ' '), indent, page.clean(line), indent + 2, k_dim);
}

void render_evidence(const CheckResult& result, Page& page) {
  for (const auto& line : result.evidence) {
    render_evidence_line(k_evidence_indent, line, page);
  }
}

/// "  ✓ TEXT  [gpu.none]": the check's mark, the text, the id after it, dimmed.
void render_marked_line(const CheckRecord& record, std::size_t indent, const std::string& text,
                        std::string_view style, Page& page) {
  const std::string lead = std::string(indent, ' ') + page.glyph(mark_of(record.result)) + " ";
  const std::size_t columns = indent + page.glyph_columns() + 1;
  page.paragraph(lead, columns, text, columns, style, "[" + std::string(record.info->id) + "]");
}

/// "  ✓ 1 AMD GPU found  [gpu.none]": the message first, the id after it, dimmed.
void render_check_line(const CheckRecord& record, std::size_t indent, Page& page) {
  render_marked_line(record, indent, page.clean(record.result.message), {}, page);
}

bool is_notice(const CheckResult& result) {
  return result.status == Status::warn && result.severity == Severity::info;
}

/// "verify: rocdoc check --only …" on one line: a command is never wrapped.
void render_verify(const CheckRecord& record, const Causes& causes, Page& page) {
  const std::string command = page.clean(causes.verify_command(record));
  if (command.empty()) {
    return;
  }
  // On the label's line when it fits; else on its own line, which is never wrapped.
  const std::size_t columns = k_evidence_indent + 8 + text::display_width(command);
  if (page.width() == 0 || columns <= page.width()) {
    page.whole(k_evidence_indent, page.paint("verify:", k_bold) + " " + command);
    return;
  }
  page.whole(k_evidence_indent, page.paint("verify:", k_bold));
  page.whole(k_evidence_indent + k_command_extra, command);
}

void render_root(const CheckRecord& record, const Causes& causes, PrintedCommands& printed,
                 Page& page) {
  render_check_line(record, 2, page);
  if (is_notice(record.result) && !page.verbose() && causes.consequences(record).empty()) {
    return;  // a notice is one line; -v shows its evidence and fix (N12)
  }
  render_evidence(record.result, page);
  render_fixes(record, printed, page);
  const auto& consequences = causes.consequences(record);
  if (!consequences.empty()) {
    page.whole(k_evidence_indent, page.paint("also because of this:", k_bold));
    const std::size_t indent = k_evidence_indent + 2;
    for (const CheckRecord* consequence : consequences) {
      render_check_line(*consequence, indent, page);
      if (page.verbose()) {
        for (const auto& line : consequence->result.evidence) {
          render_evidence_line(indent + page.glyph_columns() + 3, line, page);
        }
      }
    }
  }
  render_verify(record, causes, page);
}

/// A finding that follows from a root cause in another area: one line here that says where,
/// its words being printed once, under the root (N17).
void render_consequence_elsewhere(const CheckRecord& record, const CheckRecord& root, Page& page) {
  render_marked_line(record, 2,
                     fmt::format("follows from {} ({}): see it and its fix there", root.info->id,
                                 page.clean(root.info->area)),
                     k_dim, page);
}

struct Area {
  std::string_view name;
  std::vector<const CheckRecord*> records;
};

std::vector<Area> areas_of(const Report& report) {
  std::vector<Area> areas;
  for (const auto& record : report.checks) {
    if (areas.empty() || areas.back().name != record.info->area) {
      areas.push_back({record.info->area, {}});
    }
    areas.back().records.push_back(&record);
  }
  return areas;
}

class AreaPrinter {
 public:
  AreaPrinter(const Causes& causes, Page& page) : m_causes(causes), m_page(page) {}

  void render(const Area& area) {
    std::size_t passed = 0;
    std::size_t skipped = 0;
    for (const CheckRecord* record : area.records) {
      passed += record->result.status == Status::pass ? 1 : 0;
      skipped += record->result.status == Status::skip ? 1 : 0;
    }
    const bool all_well = passed + skipped == area.records.size();
    if (all_well && !m_page.verbose()) {
      if (passed > 0) {
        collapsed(area, passed, skipped);
      }
      return;
    }
    m_page.blank();
    m_page.whole(0, m_page.paint(m_page.clean(area.name), k_bold));
    for (const CheckRecord* record : area.records) {
      render_record(*record, area);
    }
    m_last = Last::expanded;
  }

  void finish() { m_page.blank(); }

 private:
  enum class Last { nothing, collapsed, expanded };

  void collapsed(const Area& area, std::size_t passed, std::size_t skipped) {
    if (m_last != Last::collapsed) {
      m_page.blank();
    }
    std::string text =
        fmt::format("{}: {} passed", m_page.clean(area.name),
                    passed == 1 ? std::string("1 check") : fmt::format("{} checks", passed));
    if (skipped > 0) {
      text += fmt::format(", {} skipped", skipped);
    }
    const std::string lead = m_page.glyph(Mark::pass) + " ";
    const std::size_t columns = m_page.glyph_columns() + 1;
    m_page.paragraph(lead, columns, text, columns);
    m_last = Last::collapsed;
  }

  void render_record(const CheckRecord& record, const Area& area) {
    const CheckResult& result = record.result;
    if (result.status == Status::skip && !m_page.verbose()) {
      return;
    }
    if (!is_finding(result)) {
      render_check_line(record, 2, m_page);
      if (m_page.verbose()) {
        render_evidence(result, m_page);
      }
      return;
    }
    if (const CheckRecord* root = m_causes.root_of(record)) {
      if (root->info->area != area.name) {
        render_consequence_elsewhere(record, *root, m_page);
      }
      return;  // listed under its root cause
    }
    render_root(record, m_causes, m_printed, m_page);
  }

  const Causes& m_causes;
  Page& m_page;
  PrintedCommands m_printed;
  Last m_last = Last::nothing;
};

// ---- notes and summary -----------------------------------------------------------------

void render_notes(const Report& report, Page& page) {
  const std::string dead = page.glyph(Mark::dead) + " ";
  const std::string notice = page.glyph(Mark::notice) + " ";
  const std::size_t columns = page.glyph_columns() + 1;
  for (const auto& probe : report.probes) {
    if (!probe.ok) {
      page.paragraph(dead, columns,
                     fmt::format("probe {} failed: {} (checks that need it are skipped)",
                                 page.clean(probe.name), page.clean(probe.error)),
                     columns);
    }
  }
  if (report.facts.pci && report.facts.pci->names_problem) {
    page.paragraph(notice, columns,
                   fmt::format("PCI names: {}; AMD names come from rocdoc's own table",
                               page.clean(*report.facts.pci->names_problem)),
                   columns);
  }
}

/// "2 checks skipped (no AMD GPU)", "3 checks skipped (2: no AMD GPU; 1: WSL: …)".
std::string skip_reasons(const Report& report, const Page& page) {
  std::vector<std::pair<std::string, std::size_t>> reasons;  // in order of first appearance
  for (const auto& record : report.checks) {
    const std::string reason = page.clean(record.result.message);
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& entry) { return entry.first == reason; });
    if (it == reasons.end()) {
      reasons.emplace_back(reason, 1);
    } else {
      ++it->second;
    }
  }
  std::string text = plural(report.checks.size(), "check") + " skipped (";
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    text += i == 0 ? "" : "; ";
    text += reasons.size() == 1 ? reasons[i].first
                                : fmt::format("{}: {}", reasons[i].second, reasons[i].first);
  }
  return text + ")";
}

/// "2 required checks did not run (no AMD GPU; not selected)"; "" when every --require ran.
std::string unrun_required(const Report& report, const Page& page) {
  const auto unrun = report.unrun_required();
  std::vector<std::string> reasons;
  for (const auto& [id, message] : unrun) {
    std::string reason = message.empty() ? std::string("not selected") : page.clean(message);
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
      reasons.push_back(std::move(reason));
    }
  }
  return unrun.empty() ? std::string()
                       : fmt::format("{} did not run ({})", plural(unrun.size(), "required check"),
                                     util::join(reasons, "; "));
}

void render_summary(const Report& report, std::size_t problems, Page& page) {
  const bool any_ran =
      std::any_of(report.checks.begin(), report.checks.end(),
                  [](const CheckRecord& r) { return r.result.status != Status::skip; });
  if (!any_ran) {
    const std::string why = report.checks.empty()
                                ? std::string("no check was selected (--only, --skip)")
                                : skip_reasons(report, page);
    const std::string lead = page.paint("Nothing could be checked:", k_yellow) + " ";
    page.paragraph(lead, 26, why, 2);
    return;
  }
  const Summary summary = report.summary();
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
  std::string lead;
  std::string rest;
  const auto unrun = unrun_required(report, page);
  if (problems > 0) {
    lead = plural(problems, "problem") + ":";
    rest = util::join(counts, ", ");
  } else if (!unrun.empty()) {
    // --require: what did not run decides the exit code (1), so it leads the line (N10).
    lead = "Not checked:";
    rest = unrun;
    for (const auto& count : counts) {
      rest += ", " + count;
    }
  } else {
    lead = "No issues found";
    for (const auto& count : counts) {
      rest += ", " + count;
    }
  }
  const bool folded =
      !page.verbose() &&
      std::any_of(report.checks.begin(), report.checks.end(), [](const CheckRecord& r) {
        return is_notice(r.result) && !r.result.fix.empty();
      });
  rest += fmt::format(" ({} passed, {} skipped{})", summary.passed, summary.skipped,
                      folded                                   ? "; -v shows more"
                      : summary.skipped > 0 && !page.verbose() ? "; -v shows why"
                                                               : "");
  if (!rest.empty() && rest.front() != ',' && rest.front() != ' ') {
    rest.insert(0, " ");
  }
  // The lead in colour; the counts wrap after it.
  const std::string_view colour = summary.errors > 0 || !unrun.empty() ? k_red
                                  : summary.warnings > 0               ? k_yellow
                                                                       : k_green;
  page.paragraph(page.paint(lead, colour), lead.size(), rest, 2);
  if (problems == 0 && unrun.empty()) {
    // Nothing found, yet the user may still have a problem: the next step, and where to take it.
    page.paragraph("", 0, still_a_problem(report), 0);
  }
}

}  // namespace

void render_human(const Report& report, std::ostream& out, const HumanOptions& options) {
  Page page(out, options);
  render_header(report, page);
  render_inventory(report, page);
  const Causes causes(report);
  AreaPrinter printer(causes, page);
  for (const Area& area : areas_of(report)) {
    printer.render(area);
  }
  printer.finish();
  render_notes(report, page);
  std::size_t problems = 0;
  for (const auto& record : report.checks) {
    if (is_problem(record.result) && causes.root_of(record) == nullptr) {
      ++problems;
    }
  }
  render_summary(report, problems, page);
}

}  // namespace rocdoc
