// Runs every probe, then every selected check, into a Report.
#include <fmt/format.h>
#include <chrono>
#include <exception>

#include "rocdoc/probes.h"
#include "rocdoc/report.h"

namespace rocdoc {

namespace {

std::vector<ProbeRecord> run_probes(const ProbeContext& context, Facts& facts) {
  std::vector<ProbeRecord> records;
  for (const auto& probe : probe_table()) {
    ProbeRecord record;
    record.name = std::string(probe.name);
    const auto start = std::chrono::steady_clock::now();
    try {
      probe.run(context, facts);
    } catch (const std::exception& error) {
      record.ok = false;
      record.error = error.what();
    } catch (...) {
      record.ok = false;
      record.error = "unknown exception";
    }
    record.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    records.push_back(std::move(record));
  }
  return records;
}

std::optional<std::string> missing_probe(const CheckInfo& check, const Report& report) {
  for (const auto needed : check.needs) {
    const ProbeInfo* probe = find_probe(needed);
    if (probe != nullptr && probe->has_facts(report.facts)) {
      continue;
    }
    for (const auto& record : report.probes) {
      if (record.name == needed) {
        return fmt::format("probe {} failed: {}", needed, record.error);
      }
    }
    return fmt::format("probe {} did not run", needed);
  }
  return std::nullopt;
}

bool on_wsl(const Facts& facts) { return facts.system && facts.system->wsl != WslKind::none; }

CheckResult run_check(const CheckInfo& check, const CheckContext& context, const Report& report) {
  if (auto missing = missing_probe(check, report)) {
    return skip(*missing);
  }
  if (check.scope == Scope::bare_metal && on_wsl(report.facts)) {
    return skip("WSL: the GPU is not reached through amdgpu, /dev/kfd or the PCI bus (see os.wsl)");
  }
  try {
    return check.run(context);
  } catch (const std::exception& error) {
    return skip(fmt::format("rocdoc internal error in this check: {}", error.what()));
  }
}

/// Facts that change how the whole report must be read.
std::vector<std::string> report_notes(const Facts& facts) {
  std::vector<std::string> notes;
  if (facts.access && facts.access->identity.uid == 0) {
    if (const auto& user = facts.access->sudo_user) {
      notes.push_back(fmt::format(
          "rocdoc runs as root through sudo: permissions are judged for {} (uid {}) from "
          "/etc/group, not for this root process; sudo also dropped VIRTUAL_ENV and CONDA_PREFIX, "
          "so an active environment of {} may be missed (run rocdoc without sudo, or name it with "
          "--python)",
          user->user, user->uid, user->user));
    } else {
      notes.push_back(
          "rocdoc runs as root: the permission checks speak for root, not for the user who will "
          "run PyTorch; run rocdoc as that user");
    }
  }
  if (facts.python && facts.python->path_python3 && !facts.python->path_python3->inspected) {
    const PathPython& python = *facts.python->path_python3;
    notes.push_back(fmt::format(
        "python3 on PATH is {}{}, whose environment rocdoc did not find from files: what it "
        "imports was not checked (name it with --python {})",
        python.path, python.target ? " (-> " + *python.target + ")" : "", python.path));
  }
  return notes;
}

}  // namespace

Summary Report::summary() const {
  Summary summary;
  for (const auto& record : checks) {
    switch (record.result.status) {
      case Status::pass:
        ++summary.passed;
        break;
      case Status::skip:
        ++summary.skipped;
        break;
      case Status::fail:
        ++summary.errors;
        break;
      case Status::warn:
        ++(record.result.severity == Severity::info ? summary.notices : summary.warnings);
        break;
    }
  }
  return summary;
}

Report run_report(const Host& host, const Knowledge& knowledge, const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters) {
  Report report;
  report.tool_version = ROCDOC_VERSION;
  report.rules_origin = knowledge.origin;
  report.host_kind = host.kind();
  report.host_origin = host.origin();
  const ProbeContext probe_context{host, knowledge, interpreters};
  report.probes = run_probes(probe_context, report.facts);
  report.notes = report_notes(report.facts);
  GpuInventory inventory = build_gpu_inventory(report.facts, knowledge);
  const CheckContext context{report.facts, knowledge, std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  for (const auto& check : check_table()) {
    const std::string id(check.id);
    if ((!selection.only.empty() && selection.only.count(id) == 0) ||
        selection.skip.count(id) != 0) {
      continue;
    }
    report.checks.push_back({&check, run_check(check, context, report)});
  }
  return report;
}

int exit_code_for(const Report& report, FailOn fail_on) {
  if (fail_on == FailOn::never) {
    return 0;
  }
  for (const auto& record : report.checks) {
    if (record.result.status == Status::fail) {
      return 1;
    }
    if (fail_on == FailOn::warning && record.result.status == Status::warn &&
        record.result.severity == Severity::warning) {
      return 1;
    }
  }
  return 0;
}

}  // namespace rocdoc
