// The Report: plain data, what every renderer reads. Running probes and checks into one is
// rocdoc/pipeline.h; rendering it is rocdoc/render.h.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rocdoc/check_result.h"
#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/topology.h"

namespace rocdoc {

struct ProbeRecord {
  std::string name;
  bool ok = true;
  double duration_ms = 0;
  std::string error;
};

struct CheckRecord {
  const CheckInfo* info = nullptr;
  CheckResult result;
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int notices = 0;  ///< findings of severity info
  int passed = 0;
  int skipped = 0;
  int root_causes = 0;  ///< errors and warnings that follow from no other finding
};

/// One AMD GPU as the report names it: PCI, KFD and the rules joined (the inventory line).
struct InventoryGpu {
  std::string name;
  std::string gfx_target;   ///< empty when unknown
  std::string bdf;          ///< empty when only KFD knows it
  std::string driver;       ///< the kernel driver bound to it; empty when none
  GpuMemory memory;         ///< amdgpu's VRAM, visible VRAM and GTT; unknown parts are nullopt
  bool integrated = false;  ///< an APU's iGPU: its VRAM is the BIOS carve-out
  /// KFD's wave_front_size, else the rules' default for the target; nullopt when neither knows.
  std::optional<std::uint32_t> wavefront;
  std::optional<TargetCompute> compute;  ///< the rules' abilities of the target
};

/// A GPU declared with `--gpu` (GPU-less mode): the software is judged as if it were present.
struct DeclaredGpu {
  std::string given;       ///< as written: "gfx942", "gfx942:sramecc+:xnack-", "744c", "MI300X"
  std::string gfx_target;  ///< the target judged, without features: "gfx942"
  std::string name;        ///< product name from the rules: "Instinct MI300X"
};

/// The lowest severity that fails the gate (`--fail-on`).
enum class FailOn { error, warning, never };
/// One word for a pipeline: pass (exit 0), fail (a finding at the --fail-on level or a
/// required check that could not run: exit 1), unchecked (exit 0, but no check could run).
enum class Verdict { pass, fail, unchecked };

/// What the gate decided (set by judge()).
struct Outcome {
  FailOn fail_on = FailOn::error;
  std::vector<std::string> required;  ///< ids that must run (`--require`)
  int exit_code = 0;
  Verdict verdict = Verdict::pass;
};

/// A check whose finding differs between the report of capture time and now.
struct FindingChange {
  std::string id;
  std::string then;  ///< status at capture time: pass, warn, fail, skip; "absent": not run then
  std::string now;   ///< status now (or "absent")
  bool message_changed = false;  ///< same status, other words (or other fixes)
};

/// What a snapshot made by `rocdoc snapshot` says of its capture (check --root / --snapshot).
struct CaptureProvenance {
  std::string created;         ///< when the snapshot was made (empty: a hand-made one)
  std::string rocdoc_version;  ///< the rocdoc that made it
  std::string rules_revision;  ///< the rules it was judged with then
  bool redacted = false;
  bool has_capture_report = false;     ///< it holds report.json, the report of capture time
  std::vector<FindingChange> changes;  ///< where today's findings differ from that report
};

struct Report {
  std::string tool_version;
  std::string rules_origin;
  std::string rules_revision;  ///< date of the newest source the rules encode
  std::string created;         ///< when the report was made, UTC: 2026-12-01T17:57:08Z
  HostKind host_kind = HostKind::live;
  std::string host_origin;
  Facts facts;
  std::vector<InventoryGpu> gpus;  ///< the AMD GPUs, as the checks saw them
  /// How those GPUs reach each other; nullopt in the GPU-less mode (declared GPUs have no links).
  std::optional<GpuTopology> topology;
  /// GPU-less mode (`--gpu`): the declared GPUs, which `gpus` then lists instead of those
  /// found; machine checks (CheckInfo::judges) are skipped. Empty otherwise.
  std::vector<DeclaredGpu> declared_gpus;
  std::vector<ProbeRecord> probes;
  std::vector<CheckRecord> checks;
  /// What the reader must know before the findings (running as root, an uninspected python3).
  std::vector<std::string> notes;
  Outcome outcome;
  /// Set when the report describes a snapshot that records its capture.
  std::optional<CaptureProvenance> capture;

  Summary summary() const;
  /// The --require ids that did not run, each with why: the skip's message, or "" when the
  /// check was not selected (--only, --skip). In the order --require gave them.
  std::vector<std::pair<std::string, std::string>> unrun_required() const;
};

/// Whether this result alone makes the exit code 1 under `fail_on`: a failure, or with
/// --fail-on warning a warning of severity warning (judge() decides with it).
bool counts_toward_gate(const CheckResult& result, FailOn fail_on);
/// Whether a source-scan finding makes the exit code 1 under `fail_on`: an error, or with
/// --fail-on warning a warning (info never does), as counts_toward_gate decides for checks.
bool code_finding_counts(Severity severity, FailOn fail_on);
/// Decides the exit code and verdict under `fail_on` and the `required` check ids.
Outcome judge(const Report& report, FailOn fail_on, const std::vector<std::string>& required = {});
/// judge(report, fail_on).exit_code: 0 when nothing reaches the fail level, 1 otherwise.
int exit_code_for(const Report& report, FailOn fail_on);

std::string_view to_string(FailOn fail_on);
std::string_view to_string(Verdict verdict);

}  // namespace rocdoc
