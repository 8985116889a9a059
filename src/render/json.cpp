// The JSON report, schema "rocdoc-report/1" (docs/report.schema.json).
#include <nlohmann/json.hpp>

#include "rocdoc/render.h"
#include "src/facts/json.h"
#include "src/render/causes.h"
#include "src/render/compute_json.h"
#include "src/render/fix_json.h"
#include "src/render/topology_json.h"

namespace rocdoc {

void render_json(const Report& report, std::ostream& out) {
  using json = nlohmann::ordered_json;
  const Summary summary = report.summary();
  const Causes causes(report);
  json checks = json::array();
  for (const auto& record : report.checks) {
    const CheckResult& result = record.result;
    json fix = json::array();
    for (const auto& f : result.fix) {
      fix.push_back(fix_json(f));
    }
    const bool finding = result.status == Status::fail || result.status == Status::warn;
    checks.push_back({{"id", record.info->id},
                      {"area", record.info->area},
                      {"title", record.info->title},
                      {"status", to_string(result.status)},
                      {"severity", to_string(finding ? result.severity : record.info->severity)},
                      {"message", result.message},
                      {"evidence", result.evidence},
                      {"fix", fix},
                      {"fix_order", to_string(result.fix_order)},
                      {"caused_by", result.caused_by}});
    // A root cause's check that shows its fixes worked (as the human report's "verify:").
    const std::string verify =
        finding && result.caused_by.empty() ? causes.verify_command(record) : "";
    checks.back()["verify"] = verify.empty() ? json(nullptr) : json(verify);
  }
  json probes = json::array();
  for (const auto& probe : report.probes) {
    probes.push_back({{"name", probe.name},
                      {"ok", probe.ok},
                      {"duration_ms", probe.duration_ms},
                      {"error", probe.ok ? json(nullptr) : json(probe.error)}});
  }
  json host = {{"kind", report.host_kind == HostKind::live      ? "live"
                        : report.host_kind == HostKind::sysroot ? "sysroot"
                                                                : "snapshot"},
               {"origin", report.host_origin}};
  if (report.facts.system) {
    const auto& os = report.facts.system->os_release;
    const auto name = os.find("PRETTY_NAME");
    host["os"] = name != os.end() ? json(name->second) : json(nullptr);
    host["kernel"] = report.facts.system->uname.release;
  }
  if (report.capture) {
    const CaptureProvenance& capture = *report.capture;
    json changes = json::array();
    for (const auto& change : capture.changes) {
      changes.push_back({{"id", change.id},
                         {"then", change.then},
                         {"now", change.now},
                         {"message_changed", change.message_changed}});
    }
    host["snapshot"] = {
        {"created", capture.created.empty() ? json(nullptr) : json(capture.created)},
        {"rocdoc_version",
         capture.rocdoc_version.empty() ? json(nullptr) : json(capture.rocdoc_version)},
        {"rules_revision",
         capture.rules_revision.empty() ? json(nullptr) : json(capture.rules_revision)},
        {"redacted", capture.redacted},
        {"capture_report", capture.has_capture_report},
        {"changes", changes}};
  }
  if (!report.declared_gpus.empty()) {
    json declared = json::array();
    for (const auto& gpu : report.declared_gpus) {
      declared.push_back(
          {{"given", gpu.given}, {"gfx_target", gpu.gfx_target}, {"name", gpu.name}});
    }
    host["assumed_gpus"] = declared;
  }
  const auto bytes = [](const std::optional<std::uint64_t>& value) {
    return value ? json(*value) : json(nullptr);
  };
  json gpus = json::array();
  for (const auto& gpu : report.gpus) {
    gpus.push_back({{"name", gpu.name},
                    {"gfx_target", gpu.gfx_target.empty() ? json(nullptr) : json(gpu.gfx_target)},
                    {"bdf", gpu.bdf.empty() ? json(nullptr) : json(gpu.bdf)},
                    {"driver", gpu.driver.empty() ? json(nullptr) : json(gpu.driver)},
                    {"integrated", gpu.integrated},
                    {"memory",
                     {{"vram_total", bytes(gpu.memory.vram_total)},
                      {"vis_vram_total", bytes(gpu.memory.vis_vram_total)},
                      {"gtt_total", bytes(gpu.memory.gtt_total)}}},
                    {"wavefront", gpu.wavefront ? json(*gpu.wavefront) : json(nullptr)},
                    {"compute", gpu.compute ? compute_to_json(*gpu.compute) : json(nullptr)}});
  }
  const Outcome& outcome = report.outcome;
  const json document = {
      {"schema", "rocdoc-report/1"},
      {"tool", {{"name", "rocdoc"}, {"version", report.tool_version}}},
      {"rules", {{"origin", report.rules_origin}, {"revision", report.rules_revision}}},
      {"created", report.created},
      {"verdict", to_string(outcome.verdict)},
      {"exit_code", outcome.exit_code},
      {"fail_on", to_string(outcome.fail_on)},
      {"require", outcome.required},
      {"host", host},
      {"inventory", {{"gpus", gpus}}},
      {"topology", report.topology ? topology_to_json(*report.topology) : json(nullptr)},
      {"notes", report.notes},
      {"summary",
       {{"errors", summary.errors},
        {"warnings", summary.warnings},
        {"notices", summary.notices},
        {"passed", summary.passed},
        {"skipped", summary.skipped},
        {"root_causes", summary.root_causes}}},
      {"checks", checks},
      {"facts", facts_to_json(report.facts)},
      {"probes", probes},
  };
  // Facts come from the machine: bytes that are not UTF-8 are replaced, never fatal.
  out << document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace rocdoc
