#include "src/runtime/smoke_facts.h"

#include <algorithm>

#include "src/hosts/snapshot_root.h"
#include "src/runtime/json.h"
#include "src/util/bounded_json.h"
#include "src/util/strings.h"

namespace rocdoc::runtime {

namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

constexpr std::size_t k_max_output = 1 << 20;  ///< as much as a live run reads
constexpr std::size_t k_max_text = 2000;
constexpr std::size_t k_max_devices = 64;
constexpr std::size_t k_max_list = 64;

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
  throw SnapshotError(file + ": smoke." + where + " " + what);
}

std::optional<std::string> text(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) {
    return std::nullopt;
  }
  return util::printable(util::excerpt(it->get_ref<const std::string&>(), k_max_text));
}

std::optional<double> number(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? std::optional(it->get<double>()) : std::nullopt;
}

std::optional<SmokeError> error_in(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_object()) {
    return std::nullopt;
  }
  return SmokeError{text(*it, "type").value_or("?"), text(*it, "message").value_or("")};
}

std::vector<std::string> strings(const json& object, const char* key) {
  std::vector<std::string> list;
  const auto it = object.find(key);
  if (it != object.end() && it->is_array()) {
    for (const auto& item : *it) {
      if (item.is_string() && list.size() < k_max_list) {
        list.push_back(util::printable(util::excerpt(item.get_ref<const std::string&>(), 200)));
      }
    }
  }
  return list;
}

SmokeDevice device_of(const json& entry, int position) {
  SmokeDevice device;
  const auto index = number(entry, "index");
  device.index = index && *index >= 0 && *index < 1024 ? static_cast<int>(*index) : position;
  device.name = text(entry, "name").value_or("");
  device.arch = text(entry, "arch").value_or("");
  if (const auto memory = number(entry, "total_memory"); memory && *memory >= 0) {
    device.total_memory = static_cast<std::uint64_t>(*memory);
  }
  const auto tests = entry.find("tests");
  if (tests == entry.end() || !tests->is_object()) {
    return device;
  }
  for (const char* name : {"fp32", "fp16", "bf16", "conv2d", "alloc"}) {
    const auto test = tests->find(name);
    if (test == tests->end() || !test->is_object()) {
      continue;
    }
    SmokeTest result;
    result.name = name;
    result.status = text(*test, "status").value_or("?");
    if (result.status != "ok" && result.status != "wrong" && result.status != "failed" &&
        result.status != "skipped") {
      result.status = "?";
    }
    result.error = number(*test, "error");
    result.tolerance = number(*test, "tolerance");
    result.seconds = number(*test, "seconds");
    result.exception = error_in(*test, "exception");
    device.tests.push_back(std::move(result));
  }
  return device;
}

void read_document(const json& document, SmokeResult& result) {
  result.document = true;
  result.python = text(document, "python");
  if (const auto network = document.find("network");
      network != document.end() && network->is_object()) {
    const auto isolated = network->find("isolated");
    if (isolated != network->end() && isolated->is_boolean()) {
      result.network_isolated = isolated->get<bool>();
    }
  }
  result.import_error = error_in(document, "import_error");
  if (const auto torch = document.find("torch"); torch != document.end() && torch->is_object()) {
    result.torch_version = text(*torch, "version");
    result.torch_file = text(*torch, "file");
    result.hip = text(*torch, "hip");
    result.cuda = text(*torch, "cuda");
  }
  if (const auto available = document.find("available");
      available != document.end() && available->is_boolean()) {
    result.available = available->get<bool>();
  }
  if (const auto count = number(document, "device_count"); count && *count >= 0) {
    result.device_count = static_cast<int>(std::min(*count, 1e6));
  }
  result.arch_list = strings(document, "arch_list");
  result.warnings = strings(document, "warnings");
  result.available_error = error_in(document, "available_error");
  if (const auto devices = document.find("devices");
      devices != document.end() && devices->is_array()) {
    int position = 0;
    for (const auto& entry : *devices) {
      if (entry.is_object() && result.devices.size() < k_max_devices) {
        result.devices.push_back(device_of(entry, position));
      }
      ++position;
    }
  }
}

ordered error_json(const std::optional<SmokeError>& error) {
  if (!error) {
    return nullptr;
  }
  return {{"type", error->type}, {"message", error->message}};
}

}  // namespace

SmokeResult parse_smoke_output(std::string_view output) {
  SmokeResult result;
  std::string_view last;
  for (const auto line : util::lines(output)) {
    if (line.rfind("# step ", 0) == 0) {
      result.last_step = util::printable(util::excerpt(line.substr(7), 200));
    } else if (!line.empty()) {
      last = line;
    }
  }
  if (last.empty() || last.front() != '{') {
    result.unreadable =
        last.empty() ? "it printed no result"
                     : "its last line is not the script's result: " + util::excerpt(last, 80);
    return result;
  }
  const util::BoundedJson parsed = util::parse_json_bounded(last, {8, 20'000});
  if (parsed.refused != util::JsonRefusal::none || !parsed.value.is_object()) {
    result.unreadable = "its result is not a JSON object";
    return result;
  }
  read_document(parsed.value, result);
  return result;
}

SmokeResult smoke_result(const SmokeRun& run) {
  SmokeResult result = parse_smoke_output(run.output);
  result.target = run.target;
  result.ending = run.ending;
  result.exit_status = run.exit_status;
  result.signal = run.signal;
  result.output_over_limit = run.output_over_limit;
  result.seconds = run.seconds;
  result.error = run.error;
  if (run.output_over_limit) {
    result.unreadable = "it printed more than 1 MiB";
  }
  return result;
}

json smoke_report_json(const SmokeReport& report) {
  json runs = json::array();
  for (const auto& run : report.runs) {
    runs.push_back({{"interpreter", run.target.interpreter},
                    {"site_dir", run.target.site_dir},
                    {"ending", ending_name(run.ending)},
                    {"exit_status", run.exit_status ? json(*run.exit_status) : json(nullptr)},
                    {"signal", run.signal ? json(*run.signal) : json(nullptr)},
                    {"output_over_limit", run.output_over_limit},
                    {"seconds", run.seconds},
                    {"output", run.output},
                    {"error", run.error}});
  }
  return {{"timeout_ms", report.timeout.count()}, {"runs", runs}};
}

SmokeReport parse_smoke_report(const json& value, const std::string& file) {
  if (!value.is_object()) {
    bad(file, "", "must be an object {\"timeout_ms\", \"runs\"}");
  }
  SmokeReport report;
  if (const auto it = value.find("timeout_ms"); it != value.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
        it->get<std::int64_t>() > 600'000) {
      bad(file, "timeout_ms", "must be a number of milliseconds up to 600000");
    }
    report.timeout = std::chrono::milliseconds(it->get<std::int64_t>());
  }
  const auto runs = value.find("runs");
  if (runs == value.end() || !runs->is_array()) {
    bad(file, "runs", "must be an array");
  }
  if (runs->size() > 64) {
    bad(file, "runs", "holds more than 64 runs");
  }
  std::size_t position = 0;
  for (const auto& entry : *runs) {
    const std::string where = "runs[" + std::to_string(position++) + "]";
    if (!entry.is_object()) {
      bad(file, where, "must be an object");
    }
    SmokeRun run;
    const auto string_of = [&](const char* key) {
      const auto it = entry.find(key);
      if (it == entry.end() || it->is_null()) {
        return std::string();
      }
      if (!it->is_string()) {
        bad(file, where + "." + key, "must be a string");
      }
      return it->get<std::string>();
    };
    run.target.interpreter = string_of("interpreter");
    run.target.site_dir = string_of("site_dir");
    const auto ending = ending_from_name(string_of("ending"));
    if (!ending) {
      bad(file, where + ".ending", "must be exited, signaled, timed_out or not_started");
    }
    run.ending = *ending;
    if (const auto it = entry.find("exit_status"); it != entry.end() && !it->is_null()) {
      if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
          it->get<std::int64_t>() > 255) {
        bad(file, where + ".exit_status", "must be 0 to 255");
      }
      run.exit_status = static_cast<int>(it->get<std::int64_t>());
    }
    if (const auto signal = string_of("signal"); !signal.empty()) {
      run.signal = util::excerpt(signal, 16);
    }
    if (const auto it = entry.find("output_over_limit"); it != entry.end() && it->is_boolean()) {
      run.output_over_limit = it->get<bool>();
    }
    if (const auto it = entry.find("seconds"); it != entry.end() && it->is_number()) {
      run.seconds = std::max(0.0, it->get<double>());
    }
    run.output = string_of("output");
    if (run.output.size() > k_max_output) {
      bad(file, where + ".output", "holds more than 1 MiB; a live run reads no more");
    }
    run.error = string_of("error");
    report.runs.push_back(std::move(run));
  }
  return report;
}

ordered smoke_facts_json(const SmokeFacts& facts) {
  ordered results = ordered::array();
  for (const auto& result : facts.results) {
    ordered devices = ordered::array();
    for (const auto& device : result.devices) {
      ordered tests = ordered::array();
      for (const auto& test : device.tests) {
        tests.push_back({{"name", test.name},
                         {"status", test.status},
                         {"error", maybe(test.error)},
                         {"tolerance", maybe(test.tolerance)},
                         {"seconds", maybe(test.seconds)},
                         {"exception", error_json(test.exception)}});
      }
      devices.push_back({{"index", device.index},
                         {"name", device.name},
                         {"arch", device.arch},
                         {"total_memory", maybe(device.total_memory)},
                         {"tests", tests}});
    }
    results.push_back({{"interpreter", result.target.interpreter},
                       {"site_dir", result.target.site_dir},
                       {"ending", ending_name(result.ending)},
                       {"exit_status", maybe(result.exit_status)},
                       {"signal", maybe(result.signal)},
                       {"seconds", result.seconds},
                       {"error", result.error.empty() ? ordered(nullptr) : ordered(result.error)},
                       {"last_step", maybe(result.last_step)},
                       {"unreadable", maybe(result.unreadable)},
                       {"python", maybe(result.python)},
                       {"network_isolated", maybe(result.network_isolated)},
                       {"import_error", error_json(result.import_error)},
                       {"torch_version", maybe(result.torch_version)},
                       {"torch_file", maybe(result.torch_file)},
                       {"hip", maybe(result.hip)},
                       {"cuda", maybe(result.cuda)},
                       {"available", maybe(result.available)},
                       {"device_count", maybe(result.device_count)},
                       {"arch_list", result.arch_list},
                       {"warnings", result.warnings},
                       {"available_error", error_json(result.available_error)},
                       {"devices", devices}});
  }
  return {{"timeout_seconds", facts.timeout_seconds}, {"results", results}};
}

}  // namespace rocdoc::runtime
