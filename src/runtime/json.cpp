#include "src/runtime/json.h"

#include <array>

#include "src/hosts/snapshot_root.h"
#include "src/util/strings.h"

namespace rocdoc::runtime {

namespace {

using nlohmann::json;

/// What a recorded run may hold at most: as much as a live run reads.
constexpr std::size_t k_max_result_bytes = 256 * 1024;
constexpr std::size_t k_max_summary_lines = 5;
constexpr std::size_t k_max_text = 4096;

constexpr std::array<std::pair<ChildEnding, std::string_view>, 4> k_endings = {{
    {ChildEnding::exited, "exited"},
    {ChildEnding::signaled, "signaled"},
    {ChildEnding::timed_out, "timed_out"},
    {ChildEnding::not_started, "not_started"},
}};

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
  throw SnapshotError(file + ": runtime." + where + " " + what);
}

json summary_json(const OutputSummary& summary) {
  return {{"bytes", summary.bytes}, {"lines", summary.lines}, {"first_lines", summary.first_lines}};
}

json run_json(const RuntimeRun& run) {
  json lines = json::array();
  for (const auto line : util::split(run.result, '\n')) {
    lines.push_back(std::string(line));
  }
  if (!lines.empty() && lines.back() == "") {
    lines.erase(lines.end() - 1);  // the newline that ends the last line
  }
  return {{"ending", ending_name(run.ending)},
          {"exit_status", run.exit_status ? json(*run.exit_status) : json(nullptr)},
          {"signal", run.signal ? json(*run.signal) : json(nullptr)},
          {"seconds", run.seconds},
          {"result", lines},
          {"result_truncated", run.result_truncated},
          {"stdout", summary_json(run.out)},
          {"stderr", summary_json(run.err)},
          {"error", run.error}};
}

const json* member(const json& object, const char* key, const std::string& file,
                   const std::string& where, bool (json::*is)() const noexcept) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return nullptr;
  }
  if (!((*it).*is)()) {
    bad(file, where + key, "has the wrong type (" + std::string(it->type_name()) + ")");
  }
  return &*it;
}

std::string text_member(const json& object, const char* key, const std::string& file,
                        const std::string& where) {
  const json* value = member(object, key, file, where, &json::is_string);
  return value == nullptr ? std::string()
                          : value->get_ref<const std::string&>().substr(0, k_max_text);
}

std::uint64_t count_member(const json& object, const char* key, const std::string& file,
                           const std::string& where) {
  const json* value = member(object, key, file, where, &json::is_number_unsigned);
  return value == nullptr ? 0 : value->get<std::uint64_t>();
}

OutputSummary parse_summary(const json& object, const std::string& file, const std::string& where) {
  OutputSummary summary;
  if (!object.is_object()) {
    bad(file, where, "must be an object {\"bytes\", \"lines\", \"first_lines\"}");
  }
  summary.bytes = count_member(object, "bytes", file, where + ".");
  summary.lines = count_member(object, "lines", file, where + ".");
  if (const json* lines = member(object, "first_lines", file, where + ".", &json::is_array)) {
    for (const auto& line : *lines) {
      if (!line.is_string()) {
        bad(file, where + ".first_lines", "must hold strings");
      }
      if (summary.first_lines.size() < k_max_summary_lines) {
        summary.first_lines.push_back(util::excerpt(line.get_ref<const std::string&>(), 200));
      }
    }
  }
  return summary;
}

RuntimeRun parse_run(const json& object, const std::string& file, const std::string& where) {
  if (!object.is_object()) {
    bad(file, where, "must be an object");
  }
  RuntimeRun run;
  const std::string ending = text_member(object, "ending", file, where + ".");
  const auto known = ending_from_name(ending);
  if (!known) {
    bad(file, where + ".ending",
        "must be exited, signaled, timed_out or not_started, not \"" + util::excerpt(ending) +
            "\"");
  }
  run.ending = *known;
  if (const json* status =
          member(object, "exit_status", file, where + ".", &json::is_number_integer)) {
    const auto value = status->get<std::int64_t>();
    if (value < 0 || value > 255) {
      bad(file, where + ".exit_status", "must be 0 to 255");
    }
    run.exit_status = static_cast<int>(value);
  }
  if (const json* signal = member(object, "signal", file, where + ".", &json::is_string)) {
    run.signal = util::excerpt(signal->get_ref<const std::string&>(), 16);
  }
  if (const json* seconds = member(object, "seconds", file, where + ".", &json::is_number)) {
    run.seconds = std::max(0.0, seconds->get<double>());
  }
  if (const json* lines = member(object, "result", file, where + ".", &json::is_array)) {
    for (const auto& line : *lines) {
      if (!line.is_string()) {
        bad(file, where + ".result", "must hold strings (the child's result lines)");
      }
      run.result += line.get_ref<const std::string&>();
      run.result += '\n';
      if (run.result.size() > k_max_result_bytes) {
        bad(file, where + ".result", "holds more than 256 KiB; a live run reads no more");
      }
    }
  }
  if (const json* truncated =
          member(object, "result_truncated", file, where + ".", &json::is_boolean)) {
    run.result_truncated = truncated->get<bool>();
  }
  if (const auto it = object.find("stdout"); it != object.end() && !it->is_null()) {
    run.out = parse_summary(*it, file, where + ".stdout");
  }
  if (const auto it = object.find("stderr"); it != object.end() && !it->is_null()) {
    run.err = parse_summary(*it, file, where + ".stderr");
  }
  run.error = text_member(object, "error", file, where + ".");
  return run;
}

using ordered = nlohmann::ordered_json;

ordered summary_facts(const OutputSummary& summary) {
  return {{"bytes", summary.bytes}, {"lines", summary.lines}, {"first_lines", summary.first_lines}};
}

ordered call_json(const RuntimeCall& call) {
  return {{"function", call.function},
          {"status", call.status},
          {"name", call.name},
          {"description", call.description}};
}

ordered load_json(const RuntimeLoad& load) {
  ordered failed = ordered::array();
  for (const auto& candidate : load.failed) {
    failed.push_back({{"candidate", candidate.candidate}, {"error", candidate.error}});
  }
  ordered calls = ordered::array();
  for (const auto& call : load.calls) {
    calls.push_back(call_json(call));
  }
  return {{"ending", ending_name(load.ending)},
          {"exit_status", maybe(load.exit_status)},
          {"signal", maybe(load.signal)},
          {"seconds", load.seconds},
          {"failed", failed},
          {"candidate", maybe(load.candidate)},
          {"loaded", maybe(load.loaded)},
          {"missing", load.missing},
          {"calls", calls},
          {"running", maybe(load.running)},
          {"complete", load.complete},
          {"unreadable", maybe(load.unreadable)},
          {"stdout", summary_facts(load.out)},
          {"stderr", summary_facts(load.err)},
          {"error", load.error.empty() ? ordered(nullptr) : ordered(load.error)}};
}

ordered rate_json(const std::optional<HipCopyRate>& rate) {
  if (!rate) {
    return nullptr;
  }
  return {{"bytes", rate->bytes},
          {"nanoseconds", rate->nanoseconds},
          {"bytes_per_second", maybe(rate->bytes_per_second())}};
}

ordered compute_json(const std::optional<HipCompute>& compute) {
  if (!compute) {
    return nullptr;
  }
  ordered calls = ordered::array();
  for (const auto& call : compute->calls) {
    calls.push_back(call_json(call));
  }
  ordered wrong = nullptr;
  if (compute->first_wrong) {
    wrong = {{"offset", compute->first_wrong->offset},
             {"expected", compute->first_wrong->expected},
             {"found", compute->first_wrong->found}};
  }
  return {{"bytes", compute->bytes},
          {"calls", calls},
          {"running", maybe(compute->running)},
          {"complete", compute->complete},
          {"pinned", maybe(compute->pinned)},
          {"checked_bytes", maybe(compute->checked_bytes)},
          {"wrong_words", maybe(compute->wrong_words)},
          {"first_wrong", wrong},
          {"host_to_device", rate_json(compute->host_to_device)},
          {"device_to_host", rate_json(compute->device_to_host)}};
}

ordered hip_json(const HipRuntimeFacts& hip) {
  ordered devices = ordered::array();
  for (const auto& device : hip.devices) {
    devices.push_back({{"index", device.index},
                       {"name", device.name},
                       {"gcn_arch_name", device.gcn_arch_name},
                       {"total_memory", maybe(device.total_memory)},
                       {"pci_domain", maybe(device.pci_domain)},
                       {"pci_bus", maybe(device.pci_bus)},
                       {"pci_device", maybe(device.pci_device)},
                       {"compute", compute_json(device.compute)}});
  }
  return {{"load", load_json(hip.load)},
          {"runtime_version", maybe(hip.runtime_version)},
          {"driver_version", maybe(hip.driver_version)},
          {"device_count", maybe(hip.device_count)},
          {"devices", devices},
          {"round_trip", maybe(hip.round_trip)}};
}

ordered smi_json(const SmiRuntimeFacts& smi) {
  ordered devices = ordered::array();
  for (const auto& device : smi.devices) {
    devices.push_back({{"index", device.index},
                       {"market_name", maybe(device.market_name)},
                       {"ecc_correctable", maybe(device.ecc_correctable)},
                       {"ecc_uncorrectable", maybe(device.ecc_uncorrectable)},
                       {"temperature_edge", maybe(device.temperature_edge)},
                       {"firmware_mec", maybe(device.firmware_mec)},
                       {"firmware_smc", maybe(device.firmware_smc)},
                       {"vram_total", maybe(device.vram_total)},
                       {"vram_used", maybe(device.vram_used)},
                       {"pci_id", maybe(device.pci_id)}});
  }
  ordered links = ordered::array();
  for (const auto& link : smi.links) {
    links.push_back(
        {{"from", link.from}, {"to", link.to}, {"type", link.type}, {"hops", maybe(link.hops)}});
  }
  return {{"load", load_json(smi.load)},
          {"device_count", maybe(smi.device_count)},
          {"driver_version", maybe(smi.driver_version)},
          {"devices", devices},
          {"links", links}};
}

ordered hsa_json(const HsaRuntimeFacts& hsa) {
  ordered agents = ordered::array();
  for (const auto& agent : hsa.agents) {
    agents.push_back({{"name", agent.name}, {"type", agent.type}});
  }
  return {{"load", load_json(hsa.load)}, {"agents", agents}};
}

}  // namespace

ordered runtime_facts_json(const RuntimeFacts& facts) {
  return {{"timeout_seconds", facts.timeout_seconds},
          {"hip", facts.hip ? hip_json(*facts.hip) : ordered(nullptr)},
          {"smi", facts.smi ? smi_json(*facts.smi) : ordered(nullptr)},
          {"hsa", facts.hsa ? hsa_json(*facts.hsa) : ordered(nullptr)},
          {"amdsmi", facts.amdsmi ? smi_json(*facts.amdsmi) : ordered(nullptr)}};
}

std::optional<ChildEnding> ending_from_name(std::string_view name) {
  for (const auto& [value, text] : k_endings) {
    if (text == name) {
      return value;
    }
  }
  return std::nullopt;
}

std::string_view ending_name(ChildEnding ending) {
  for (const auto& [value, name] : k_endings) {
    if (value == ending) {
      return name;
    }
  }
  return "not_started";
}

json runtime_report_json(const RuntimeReport& report) {
  json value = {{"timeout_ms",
                 static_cast<std::uint64_t>(std::max<std::int64_t>(0, report.timeout.count()))}};
  value["hip"] = report.hip ? run_json(*report.hip) : json(nullptr);
  value["smi"] = report.smi ? run_json(*report.smi) : json(nullptr);
  value["hsa"] = report.hsa ? run_json(*report.hsa) : json(nullptr);
  if (report.amdsmi) {  // absent, not null, when none ran: older readers know only three keys
    value["amdsmi"] = run_json(*report.amdsmi);
  }
  return value;
}

RuntimeReport parse_runtime_report(const json& value, const std::string& file) {
  if (!value.is_object()) {
    bad(file, "", "must be an object {\"timeout_ms\", \"hip\", \"smi\", \"hsa\"}");
  }
  RuntimeReport report;
  if (const json* timeout = member(value, "timeout_ms", file, "", &json::is_number_unsigned)) {
    const auto ms = timeout->get<std::uint64_t>();
    if (ms == 0 || ms > 3'600'000) {
      bad(file, "timeout_ms", "must be 1 to 3600000");
    }
    report.timeout = std::chrono::milliseconds(ms);
  }
  const auto run = [&](const char* key) -> std::optional<RuntimeRun> {
    const auto it = value.find(key);
    if (it == value.end() || it->is_null()) {
      return std::nullopt;
    }
    return parse_run(*it, file, key);
  };
  report.hip = run("hip");
  report.smi = run("smi");
  report.hsa = run("hsa");
  report.amdsmi = run("amdsmi");
  return report;
}

}  // namespace rocdoc::runtime
