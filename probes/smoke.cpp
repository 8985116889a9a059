#include "probes/smoke.h"

#include <algorithm>

#include "src/runtime/smoke_facts.h"

namespace rocdoc {

namespace {

bool is_program(const Host& host, const std::string& path) {
  const auto stat = host.stat(path);
  return stat && stat->type == FileType::regular && (stat->mode & 0111) != 0;
}

/// The interpreter that runs `environment`, or empty when none is found.
std::string interpreter_for(const ProbeContext& context, const PythonEnvironment& environment) {
  constexpr std::string_view k_named = "--python ";
  for (const auto& found : environment.found_by) {
    if (found.rfind(k_named, 0) == 0) {
      return found.substr(k_named.size());
    }
  }
  const std::string version = environment.python_version.value_or("3");
  std::vector<std::string> candidates;
  for (const std::string& bin : {environment.prefix + "/bin", std::string("/usr/bin")}) {
    if (bin == "/usr/bin" && environment.prefix != "/usr" && environment.prefix != "/usr/local") {
      continue;  // another prefix's packages are not the system interpreter's
    }
    candidates.push_back(bin + "/python" + version);
    candidates.push_back(bin + "/python3");
    candidates.push_back(bin + "/python");
  }
  const auto found = std::find_if(candidates.begin(), candidates.end(), [&](const std::string& p) {
    return is_program(context.host, p);
  });
  return found == candidates.end() ? std::string() : *found;
}

}  // namespace

SmokeRequest smoke_request(const ProbeContext& context, const PythonFacts* python) {
  SmokeRequest request;
  request.mode = context.runtime.smoke;
  request.timeout = context.runtime.smoke_timeout;
  if (request.mode != SmokeMode::run || python == nullptr) {
    return request;
  }
  for (const auto& environment : python->environments) {
    if (!environment.torch) {
      continue;
    }
    const std::string interpreter = interpreter_for(context, environment);
    // One run per interpreter: it imports the first torch on its sys.path, whichever
    // environment led to it.
    const bool seen =
        std::any_of(request.targets.begin(), request.targets.end(),
                    [&](const SmokeTarget& t) { return t.interpreter == interpreter; });
    if (!interpreter.empty() && !seen) {
      request.targets.push_back({interpreter, environment.site_dir});
    }
  }
  return request;
}

SmokeFacts smoke_facts(const SmokeReport& report) {
  SmokeFacts facts;
  facts.timeout_seconds = static_cast<double>(report.timeout.count()) / 1000.0;
  for (const auto& run : report.runs) {
    facts.results.push_back(runtime::smoke_result(run));
  }
  return facts;
}

std::optional<SmokeFacts> probe_smoke(const ProbeContext& context, const PythonFacts* python) {
  const auto report = context.host.smoke_report(smoke_request(context, python));
  if (!report) {
    return std::nullopt;
  }
  return smoke_facts(*report);
}

}  // namespace rocdoc
