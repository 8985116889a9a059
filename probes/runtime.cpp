#include "probes/runtime.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "src/runtime/protocol.h"

namespace rocdoc {

namespace {

struct LibraryNames {
  std::string_view prefix;                ///< of the files in a directory: "libamdhip64.so"
  std::vector<std::string_view> sonames;  ///< newest first
};

const LibraryNames k_hip = {"libamdhip64.so",
                            {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"}};
const LibraryNames k_smi = {
    "librocm_smi64.so",
    {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so.1"}};
const LibraryNames k_hsa = {"libhsa-runtime64.so", {"libhsa-runtime64.so.1"}};
/// amd-smi's library: .27 is ROCm 10, .26 ROCm 7, .25 and .24 ROCm 6.
const LibraryNames k_amdsmi = {
    "libamd_smi.so",
    {"libamd_smi.so.27", "libamd_smi.so.26", "libamd_smi.so.25", "libamd_smi.so.24"}};

/// Files of `dir` named prefix or prefix.N..., sorted newest soname first ("so.6" before "so").
std::vector<std::string> library_files(const Host& host, const std::string& dir,
                                       const LibraryNames& names) {
  std::vector<std::string> files;
  const auto entries = host.list_dir(dir);
  if (!entries) {
    return files;
  }
  for (const auto& name : *entries) {
    if (name.rfind(names.prefix, 0) == 0 &&
        (name.size() == names.prefix.size() || name[names.prefix.size()] == '.')) {
      files.push_back(dir + "/" + name);
    }
  }
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  // The shortest versioned soname (libamdhip64.so.6) first, the development link (.so) last.
  std::stable_partition(files.begin(), files.end(), [&](const std::string& file) {
    return file.size() > dir.size() + 1 + names.prefix.size();
  });
  return files;
}

std::vector<std::string> candidates(const ProbeContext& context,
                                    const std::vector<std::string>& dirs,
                                    const LibraryNames& names) {
  std::vector<std::string> list;
  for (const auto& dir : dirs) {
    for (auto& file : library_files(context.host, dir, names)) {
      if (std::find(list.begin(), list.end(), file) == list.end()) {
        list.push_back(std::move(file));
      }
    }
  }
  for (const auto soname : names.sonames) {
    list.emplace_back(soname);
  }
  return list;
}

/// torch/lib of every torch found (the ones that bundle HIP first), $ROCM_PATH/lib,
/// /opt/rocm/lib.
std::vector<std::string> library_dirs(const ProbeContext& context, const PythonFacts* python) {
  std::vector<std::string> dirs;
  if (const auto* facts = python) {
    for (const auto& environment : facts->environments) {
      if (environment.torch && environment.torch->bundles_hip) {
        dirs.push_back(environment.site_dir + "/torch/lib");
      }
    }
  }
  if (const auto rocm_path = context.host.env("ROCM_PATH");
      rocm_path && !rocm_path->empty() && rocm_path->front() == '/') {
    std::string dir = *rocm_path;
    while (dir.size() > 1 && dir.back() == '/') {
      dir.pop_back();
    }
    dirs.push_back(dir + "/lib");
  }
  dirs.emplace_back("/opt/rocm/lib");
  return dirs;
}

RuntimeLoad& load_of(HipRuntimeFacts& facts) { return facts.load; }
RuntimeLoad& load_of(SmiRuntimeFacts& facts) { return facts.load; }
RuntimeLoad& load_of(HsaRuntimeFacts& facts) { return facts.load; }

template <typename Facts, typename Parse>
std::optional<Facts> library_facts(const std::optional<RuntimeRun>& run, Parse parse) {
  if (!run) {
    return std::nullopt;
  }
  Facts facts = parse(run->result);
  RuntimeLoad& load = load_of(facts);
  load.ending = run->ending;
  load.exit_status = run->exit_status;
  load.signal = run->signal;
  load.seconds = run->seconds;
  load.out = run->out;
  load.err = run->err;
  load.error = run->error;
  if (run->result_truncated && !load.unreadable) {
    load.unreadable = "the result was longer than rocdoc reads";
  }
  return facts;
}

}  // namespace

RuntimeRequest runtime_request(const ProbeContext& context, const PythonFacts* python) {
  RuntimeRequest request;
  request.mode = context.runtime.mode;
  request.timeout = context.runtime.timeout;
  if (request.mode != RuntimeMode::load) {
    return request;  // nothing to look up: only a snapshot's record can answer
  }
  const auto dirs = library_dirs(context, python);
  request.hip = candidates(context, dirs, k_hip);
  request.smi = candidates(context, dirs, k_smi);
  request.hsa = candidates(context, dirs, k_hsa);
  request.amdsmi = candidates(context, dirs, k_amdsmi);
  return request;
}

RuntimeFacts runtime_facts(const RuntimeReport& report) {
  RuntimeFacts facts;
  facts.timeout_seconds = static_cast<double>(report.timeout.count()) / 1000.0;
  facts.hip = library_facts<HipRuntimeFacts>(report.hip, runtime::parse_hip_result);
  facts.smi = library_facts<SmiRuntimeFacts>(report.smi, runtime::parse_smi_result);
  facts.hsa = library_facts<HsaRuntimeFacts>(report.hsa, runtime::parse_hsa_result);
  facts.amdsmi = library_facts<SmiRuntimeFacts>(report.amdsmi, runtime::parse_smi_result);
  return facts;
}

std::optional<RuntimeFacts> probe_runtime(const ProbeContext& context, const PythonFacts* python) {
  const auto report = context.host.runtime_report(runtime_request(context, python));
  if (!report) {
    return std::nullopt;
  }
  return runtime_facts(*report);
}

}  // namespace rocdoc
