// Runs every probe, then every selected check, into a Report.
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <set>
#include <span>
#include <stdexcept>

#include "src/checks/checks.h"
#include "src/checks/gpu_topology.h"
#include "src/pipeline/root_causes.h"
#include "src/util/strings.h"
#include "src/util/threads.h"

#include "rocdoc/check.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/probes.h"

namespace rocdoc {

namespace {

/// One GPU as the report names it: the inventory's joined facts, and the rules' abilities.
InventoryGpu inventory_gpu(const AmdGpu& gpu) {
  InventoryGpu entry;
  entry.name = gpu.name;
  entry.gfx_target = gpu.gfx_target();
  entry.bdf = gpu.bdf;
  if (gpu.pci != nullptr) {
    entry.driver = gpu.pci->driver.value_or("");
    entry.memory = gpu.pci->memory;
  }
  entry.integrated = gpu.integrated();
  if (gpu.target != nullptr && gpu.target->compute) {
    entry.compute = gpu.target->compute;
    entry.wavefront = static_cast<std::uint32_t>(gpu.target->compute->wavefronts.front());
  }
  if (gpu.kfd != nullptr && gpu.kfd->wave_front_size) {
    entry.wavefront = gpu.kfd->wave_front_size;  // what the running GPU says wins
  }
  return entry;
}

ProbeRecord run_probe(const ProbeInfo& probe, const ProbeContext& context, Facts& facts) {
  ProbeRecord record;
  record.name = std::string(probe.name);
  const auto start = std::chrono::steady_clock::now();
  try {
    probe.run(context, facts);
  } catch (const HostLimitError&) {
    throw;  // not a probe's failure: the input is refused as a whole (exit 2)
  } catch (const std::exception& error) {
    record.ok = false;
    record.error = error.what();
  } catch (...) {
    record.ok = false;
    record.error = "unknown exception";
  }
  record.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return record;
}

/// The probes that read no other probe's facts, side by side: each fills its own member of
/// Facts, and the host reads from any thread. Most of a probe's time is the kernel's (sysfs and
/// proc files, directories, the log buffer), so the check takes about as long as its slowest
/// probe rather than all of them together. A few threads: the probes are few and short.
constexpr std::size_t k_max_probe_threads = 4;

/// The probes started first, longest first (traced on the H100 host: python 1.2 ms, kernel_log
/// 0.7, pci 0.5 with its many sysfs files); the others follow from the end of the table. A
/// check takes as long as the last probe to end, so the long ones must not wait for a thread.
constexpr std::array<std::string_view, 3> k_first_probes = {"python", "kernel_log", "pci"};

/// The order the threads take the table's probes in: k_first_probes, then the rest from the end.
std::vector<std::size_t> start_order(std::span<const ProbeInfo> table) {
  std::vector<std::size_t> order;
  for (const std::string_view first : k_first_probes) {
    const auto found = std::find_if(table.begin(), table.end(),
                                    [&](const ProbeInfo& probe) { return probe.name == first; });
    if (found == table.end()) {
      throw std::logic_error("k_first_probes names no probe of the table: " + std::string(first));
    }
    order.push_back(static_cast<std::size_t>(found - table.begin()));
  }
  for (std::size_t i = table.size(); i-- > 0;) {
    if (std::find(order.begin(), order.end(), i) == order.end()) {
      order.push_back(i);
    }
  }
  return order;
}

void run_independent_probes(std::span<const ProbeInfo> table, const ProbeContext& context,
                            Facts& facts, std::vector<ProbeRecord>& records) {
  std::vector<std::exception_ptr> refused(table.size());
  const std::vector<std::size_t> order = start_order(table);
  std::atomic<std::size_t> taken{0};
  util::run_on_threads(std::min(k_max_probe_threads, util::usable_cpus()), [&] {
    for (std::size_t n = taken++; n < order.size(); n = taken++) {
      const std::size_t i = order[n];
      if (!table[i].reads_facts_of.empty()) {
        continue;
      }
      try {
        records[i] = run_probe(table[i], context, facts);
      } catch (...) {
        refused[i] = std::current_exception();
      }
    }
  });
  for (const auto& error : refused) {
    if (error) {
      std::rethrow_exception(error);  // the first in table order, as a serial run would
    }
  }
}

std::vector<ProbeRecord> run_probes(const ProbeContext& context, Facts& facts) {
  const auto table = probe_table();
  std::vector<ProbeRecord> records(table.size());
  const bool side_by_side = context.host.threads() == HostThreads::many && util::usable_cpus() > 1;
  if (side_by_side) {
    run_independent_probes(table, context, facts, records);
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!side_by_side || !table[i].reads_facts_of.empty()) {
      records[i] = run_probe(table[i], context, facts);
    }
  }
  return records;
}

/// The probes the selected checks need, and those they read facts of.
std::vector<ProbeInfo> needed_probes(const CheckSelection& selection) {
  std::set<std::string_view> wanted;
  for (const auto& check : check_table()) {
    if (selection.only.count(std::string(check.id)) != 0) {
      wanted.insert(check.needs.begin(), check.needs.end());
    }
  }
  std::vector<ProbeInfo> probes;
  for (const auto& probe : probe_table()) {
    if (wanted.count(probe.name) != 0) {
      probes.push_back(probe);
    }
  }
  return probes;
}

/// Only `probes`, one after the other (a few small ones: no threads).
std::vector<ProbeRecord> run_some_probes(std::span<const ProbeInfo> probes,
                                         const ProbeContext& context, Facts& facts) {
  std::vector<ProbeRecord> records;
  for (const auto& probe : probes) {
    records.push_back(run_probe(probe, context, facts));
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

/// The time now, UTC, as ISO 8601 to the second, from the clock alone: libc's gmtime_r() and
/// strftime() load the time zone (/etc/localtime), a read of this machine no report needs.
std::string utc_now() {
  using namespace std::chrono;
  return util::iso8601_utc(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

bool on_wsl(const Facts& facts) { return facts.system && facts.system->wsl != WslKind::none; }

constexpr std::string_view k_gpu_less_skip =
    "GPU-less mode (--gpu): hardware, driver and permissions are not judged";

CheckResult run_check(const CheckInfo& check, const CheckContext& context, const Report& report) {
  if (!report.declared_gpus.empty() && check.judges == Judges::machine) {
    return skip(std::string(k_gpu_less_skip));
  }
  if (auto missing = missing_probe(check, report)) {
    return skip(*missing);
  }
  if (check.scope == Scope::bare_metal && on_wsl(report.facts)) {
    return skip("WSL: the GPU is not reached through amdgpu, /dev/kfd or the PCI bus (see os.wsl)");
  }
  try {
    CheckResult result = check.run(context);
    for (Fix& fix : result.fix) {
      if (fix.command.empty()) {
        fix.kind = FixKind::manual;  // an action with no command, whatever the check said
      }
    }
    return result;
  } catch (const std::exception& error) {
    return skip(fmt::format("rocdoc internal error in this check: {}", error.what()));
  }
}

/// Whether the report judges this process's permissions (not in GPU-less mode).
enum class Permissions { judged, not_judged };

/// Facts that change how the whole report must be read.
/// How the reader can have an uninspected python3 looked at: --python runs an interpreter of
/// this machine, so it is offered only for the live machine.
std::string how_to_inspect(HostKind host, const std::string& python) {
  switch (host) {
    case HostKind::live:
      return "name it with --python " + python;
    case HostKind::snapshot:
      return "on that machine, rocdoc check --python " + python + " inspects it";
    case HostKind::sysroot:
      return "rocdoc reads an image's files only and never runs its interpreter";
  }
  return "";
}

std::vector<std::string> report_notes(const Facts& facts, HostKind host, Permissions permissions) {
  std::vector<std::string> notes;
  const bool container = facts.system && facts.system->container.has_value();
  if (permissions == Permissions::judged && facts.access && facts.access->identity.uid == 0 &&
      (!container || facts.access->sudo_user)) {
    if (const auto& user = facts.access->sudo_user) {
      notes.push_back(fmt::format(
          "rocdoc runs as root through sudo: permissions are judged for {} (uid {}) from "
          "/etc/group, not for this root process; sudo also dropped VIRTUAL_ENV and CONDA_PREFIX, "
          "so an active environment of {} may be missed (run rocdoc without sudo, or name it with "
          "--python)",
          user->user, user->uid, user->user));
    } else {
      // Inside a container root usually is the user who runs PyTorch: nothing to say then.
      notes.push_back(
          "rocdoc runs as root: the permission checks speak for root, not for the user who will "
          "run PyTorch; run rocdoc as that user");
    }
  }
  if (facts.python && facts.python->path_python3 && !facts.python->path_python3->inspected) {
    const PathPython& python = *facts.python->path_python3;
    notes.push_back(fmt::format(
        "python3 on PATH is {}{}, whose environment rocdoc did not find from files: what it "
        "imports was not checked ({})",
        python.path, python.target ? " (-> " + *python.target + ")" : "",
        how_to_inspect(host, python.path)));
  }
  // Only where a GPU could be judged: without one the kernel log has nothing to say.
  if (permissions == Permissions::judged && facts.kernel_log &&
      facts.kernel_log->state == KernelLogFacts::State::unreadable && facts.pci &&
      std::any_of(facts.pci->devices.begin(), facts.pci->devices.end(),
                  [](const PciDevice& d) { return d.gpu.has_value() && d.vendor == 0x1002; })) {
    notes.push_back(fmt::format(
        "the kernel log (/dev/kmsg) was not readable ({}): what amdgpu and KFD said at boot (PCIe "
        "atomics refused, firmware that did not load, Secure Boot refusing the module, GPU "
        "resets) is not part of this report; run rocdoc as root, or let users read it with: sudo "
        "sysctl kernel.dmesg_restrict=0",
        facts.kernel_log->error));
  }
  // A package database found but not read is named, never silently missing (probes/packages.h).
  if (facts.packages) {
    for (const auto& database : facts.packages->databases) {
      if (database.state != PackageDatabase::State::read) {
        notes.push_back(
            fmt::format("the {} database {} was not read ({}): the versions of its "
                        "packages are not part of this report",
                        to_string(database.manager), database.path, database.problem));
      } else if (!database.note.empty()) {
        notes.push_back(fmt::format("the {} database {}: {}", to_string(database.manager),
                                    database.path, database.note));
      }
    }
  }
  return notes;
}

/// GPU-less mode: which GPUs are assumed, what replaced the ones found, what a sysroot lacks.
std::vector<std::string> gpu_less_notes(const Host& host, const std::vector<DeclaredGpu>& declared,
                                        const std::vector<AmdGpu>& found) {
  std::vector<std::string> given;
  std::vector<std::string> assumed;
  for (const auto& gpu : declared) {
    given.push_back(gpu.given);
    assumed.push_back(fmt::format("{} ({})", gpu.name, gpu.gfx_target));
  }
  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "GPU-less mode (--gpu {}): the software is judged as if these GPUs were present: {}; "
      "hardware, driver and permissions are not judged",
      util::join(given, ","), util::join(assumed, ", ")));
  if (!found.empty()) {
    std::vector<std::string> names;
    for (const auto& gpu : found) {
      names.push_back(checks::describe(gpu));
    }
    notes.push_back(fmt::format(
        "the AMD GPU{} found here ({}) {} not judged: the GPUs given with --gpu replace {}",
        found.size() == 1 ? "" : "s", util::join(names, "; "), found.size() == 1 ? "is" : "are",
        found.size() == 1 ? "it" : "them"));
  }
  if (host.kind() == HostKind::sysroot) {
    std::vector<std::string> variables;
    for (const auto& [name, value] : host.environment()) {
      variables.push_back(name + "=" + value);
    }
    notes.push_back(fmt::format(
        "{} is a plain root filesystem (--sysroot): its kernel, devices and user are unknown "
        "(root is assumed), and its environment is only {} (the image's ENV is not in its "
        "files: give it with --env NAME=VALUE)",
        host.origin(), util::join(variables, " ")));
  }
  return notes;
}

/// What the machine has that is newer than the knowledge base: said, never judged.
std::vector<std::string> newer_than_rules_notes(const Facts& facts, const Knowledge& knowledge) {
  std::vector<std::string> notes;
  const std::string rules = fmt::format("newer than these rules (revision {})", knowledge.revision);
  const auto newest = [](const auto& list, auto field) {
    return list.empty() ? std::optional<std::vector<int>>()
                        : util::version_numbers(field(list.back()));
  };
  if (facts.python) {
    for (const auto& environment : facts.python->environments) {
      if (!environment.torch) {
        continue;
      }
      const std::string& version = environment.torch->version;
      if (knowledge.torch_newer_than_rules(version)) {
        notes.push_back(fmt::format(
            "torch {} in {} is {}: rocdoc reads its build from its files ({}) but knows neither "
            "its companions nor its GPU targets, and judges neither",
            version, environment.site_dir, rules, environment.torch->origin_detail));
      }
    }
  }
  if (facts.rocm) {
    const auto version = facts.rocm->opt_rocm_version ? facts.rocm->opt_rocm_version
                                                      : (facts.rocm->installs.size() == 1
                                                             ? facts.rocm->installs.front().version
                                                             : std::nullopt);
    const auto rocm = newest(knowledge.rocm_releases, [](const RocmRelease& r) { return r.rocm; });
    const auto numbers =
        version ? util::version_numbers(version->substr(0, version->find('-'))) : std::nullopt;
    if (rocm && numbers && numbers->size() >= 2 &&
        std::vector<int>(numbers->begin(), numbers->begin() + 2) > *rocm) {
      notes.push_back(
          fmt::format("ROCm {} is {}: its supported systems, GPUs and drivers are not "
                      "judged",
                      *version, rules));
    }
  }
  if (facts.driver && facts.driver->dkms_version &&
      knowledge.driver_version(*facts.driver->dkms_version) == nullptr) {
    const auto module = util::version_numbers(*facts.driver->dkms_version);
    const auto known =
        newest(knowledge.driver_versions, [](const DriverVersion& d) { return d.module; });
    if (module && known &&
        std::vector<int>(module->begin(),
                         module->begin() + std::min<std::size_t>(3, module->size())) > *known) {
      notes.push_back(
          fmt::format("amdgpu driver {} is {}: which ROCm releases it supports is not "
                      "judged",
                      *facts.driver->dkms_version, rules));
    }
  }
  if (facts.kfd) {
    for (const auto& node : facts.kfd->nodes) {
      if (node.is_gpu() && !node.gfx_target.empty() &&
          knowledge.target(node.gfx_target) == nullptr &&
          node.target_source == TargetSource::gfx_target_version) {
        notes.push_back(fmt::format("KFD node {} reports {}, a GPU target {}: it is not judged",
                                    node.index, node.gfx_target, rules));
      }
    }
  }
  if (facts.pci) {
    for (const auto& device : facts.pci->devices) {
      if (device.is_amd_gpu() && knowledge.amd_pci_id(device.device) == nullptr) {
        notes.push_back(
            fmt::format("AMD GPU 1002:{:04x} at {} is not in these rules (revision {}): "
                        "its target comes from KFD alone",
                        device.device, device.bdf, knowledge.revision));
      }
    }
  }
  return notes;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Report::unrun_required() const {
  std::vector<std::pair<std::string, std::string>> unrun;
  for (const auto& id : outcome.required) {
    const auto it = std::find_if(checks.begin(), checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (it == checks.end()) {
      unrun.emplace_back(id, "");
    } else if (it->result.status == Status::skip) {
      unrun.emplace_back(id, it->result.message);
    }
  }
  return unrun;
}

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
    const bool problem =
        record.result.status == Status::fail ||
        (record.result.status == Status::warn && record.result.severity != Severity::info);
    if (problem && record.result.caused_by.empty()) {
      ++summary.root_causes;
    }
  }
  return summary;
}

Report run_report(const Host& host, const Knowledge& knowledge, const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters,
                  const std::vector<DeclaredGpu>& declared_gpus, const RuntimeOptions& runtime,
                  std::optional<CodeScanFacts> code_scan) {
  return run_report(host, KnowledgeSource(knowledge), selection, interpreters, declared_gpus,
                    runtime, std::move(code_scan));
}

Report run_report(const Host& host, const KnowledgeSource& source, const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters,
                  const std::vector<DeclaredGpu>& declared_gpus, const RuntimeOptions& runtime,
                  std::optional<CodeScanFacts> code_scan) {
  Report report;
  report.tool_version = ROCDOC_VERSION;
  report.created = utc_now();
  report.host_kind = host.kind();
  report.host_origin = host.origin();
  const ProbeContext probe_context{host, source, interpreters, runtime};
  report.probes = selection.needed_probes_only
                      ? run_some_probes(needed_probes(selection), probe_context, report.facts)
                      : run_probes(probe_context, report.facts);
  const Knowledge& knowledge = source.get();
  report.rules_origin = knowledge.origin;
  report.rules_revision = knowledge.revision;
  report.facts.code_scan = std::move(code_scan);
  report.declared_gpus = declared_gpus;
  report.notes =
      report_notes(report.facts, host.kind(),
                   declared_gpus.empty() ? Permissions::judged : Permissions::not_judged);
  GpuInventory inventory = build_gpu_inventory(report.facts, knowledge);
  if (declared_gpus.empty()) {
    report.topology = build_gpu_topology(report.facts, inventory.gpus);
  } else {
    auto notes = gpu_less_notes(host, declared_gpus, inventory.gpus);
    report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
    inventory = declared_gpu_inventory(declared_gpus, knowledge);
  }
  for (auto& note : newer_than_rules_notes(report.facts, knowledge)) {
    report.notes.push_back(std::move(note));
  }
  for (const AmdGpu& gpu : inventory.gpus) {
    report.gpus.push_back(inventory_gpu(gpu));
  }
  const CheckContext context{report.facts, knowledge, std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  for (const auto& check : check_table()) {
    const std::string id(check.id);
    if ((!selection.only.empty() && selection.only.count(id) == 0) ||
        selection.skip.count(id) != 0 ||
        (check.judges == Judges::code && !report.facts.code_scan)) {
      continue;  // not selected, or a code check without --scan
    }
    report.checks.push_back({&check, run_check(check, context, report)});
  }
  link_root_causes(report.checks, context);  // caused_by: one cause, one finding
  return report;
}

bool counts_toward_gate(const CheckResult& result, FailOn fail_on) {
  switch (fail_on) {
    case FailOn::never:
      return false;
    case FailOn::warning:
      return result.status == Status::fail ||
             (result.status == Status::warn && result.severity == Severity::warning);
    case FailOn::error:
      break;
  }
  return result.status == Status::fail;
}

bool code_finding_counts(Severity severity, FailOn fail_on) {
  switch (fail_on) {
    case FailOn::never:
      return false;
    case FailOn::warning:
      return severity != Severity::info;
    case FailOn::error:
      break;
  }
  return severity == Severity::error;
}

Outcome judge(const Report& report, FailOn fail_on, const std::vector<std::string>& required) {
  Outcome outcome;
  outcome.fail_on = fail_on;
  outcome.required = required;
  bool failed = false;
  bool any_ran = false;
  for (const auto& record : report.checks) {
    const CheckResult& result = record.result;
    any_ran = any_ran || result.status != Status::skip;
    failed = failed || counts_toward_gate(result, fail_on);
  }
  bool required_missing = false;
  for (const auto& id : required) {
    const auto it = std::find_if(report.checks.begin(), report.checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (it == report.checks.end() || it->result.status == Status::skip) {
      required_missing = true;
    }
  }
  if (failed || required_missing) {
    outcome.exit_code = 1;
    outcome.verdict = failed ? Verdict::fail : Verdict::unchecked;
  } else {
    outcome.verdict = any_ran ? Verdict::pass : Verdict::unchecked;
  }
  return outcome;
}

int exit_code_for(const Report& report, FailOn fail_on) { return judge(report, fail_on).exit_code; }

std::string_view to_string(FailOn fail_on) {
  switch (fail_on) {
    case FailOn::error:
      return "error";
    case FailOn::warning:
      return "warning";
    case FailOn::never:
      return "never";
  }
  return "error";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
      return "pass";
    case Verdict::fail:
      return "fail";
    case Verdict::unchecked:
      return "unchecked";
  }
  return "unchecked";
}

}  // namespace rocdoc
