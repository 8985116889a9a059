#include "probes/rocm.h"

#include <algorithm>

#include "probes/gpu_code.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// <root>/.info/version, else .info/version-dev (what PyTorch's build reads).
std::optional<std::string> read_version(const Host& host, const std::string& root) {
  for (const char* name : {"/.info/version", "/.info/version-dev"}) {
    const auto text = host.read_file(root + name, 256);
    if (text && !util::trim(*text).empty()) {
      return std::string(util::trim(*text));
    }
  }
  return std::nullopt;
}

bool holds_hip(const Host& host, const std::string& dir) {
  const auto names = host.list_dir(dir);
  if (!names) {
    return false;
  }
  for (const auto& name : *names) {
    if (name.rfind("libamdhip64.so", 0) == 0) {
      return true;
    }
  }
  return false;
}

/// A ROCm install root: AMD's packages (/opt/rocm-X: .info/version, lib/libamdhip64.so*,
/// bin/hipcc), TheRock's (core/.info/version), or a distribution's in /usr (libamdhip64 in
/// lib64 or lib/<arch>-linux-gnu, /usr/bin/hipcc).
bool holds_rocm(const Host& host, const std::string& root) {
  const std::string machine = host.uname().machine.empty() ? "x86_64" : host.uname().machine;
  for (const char* file : {"/.info/version", "/.info/version-dev", "/core/.info/version",
                           "/bin/hipcc", "/include/hip/hip_runtime.h"}) {
    if (host.stat(root + file)) {
      return true;
    }
  }
  for (const std::string& lib :
       {std::string("/lib"), std::string("/lib64"), "/lib/" + machine + "-linux-gnu"}) {
    if (holds_hip(host, root + lib)) {
      return true;
    }
  }
  return false;
}

/// TheRock's layout (ROCm 7.14 and later): /opt/rocm is a real directory; each release lives in
/// /opt/rocm/core-X.Y and /opt/rocm/core (an alternatives link) names the active one. There is
/// no /opt/rocm/.info: the version is /opt/rocm/core/.info/version ("10.0.0").
void add_therock_installs(const Host& host, RocmFacts& facts) {
  const auto names = host.list_dir("/opt/rocm");
  if (!names || facts.opt_rocm_target) {
    return;  // no /opt/rocm directory, or the classic /opt/rocm link
  }
  for (const auto& name : *names) {
    const auto numbers =
        name.rfind("core-", 0) == 0 ? util::version_numbers(name.substr(5)) : std::nullopt;
    // core-10 is an alternatives link to core-10.0: one install, listed once.
    if (numbers && numbers->size() == 2 && !host.read_link("/opt/rocm/" + name)) {
      facts.installs.push_back({"/opt/rocm/" + name, read_version(host, "/opt/rocm/" + name)});
    }
  }
  if (const auto version = read_version(host, "/opt/rocm/core")) {
    facts.opt_rocm_version = version;
    facts.opt_rocm_target = host.read_link("/opt/rocm/core");
  }
  if (facts.opt_rocm_version || std::any_of(names->begin(), names->end(), [](const std::string& n) {
        return n.rfind("core-", 0) == 0;
      })) {
    facts.layout = RocmLayout::therock;
  }
}

}  // namespace

RocmFacts probe_rocm(const ProbeContext& context) {
  const Host& host = context.host;
  RocmFacts facts;
  if (const auto names = host.list_dir("/opt")) {
    for (const auto& name : *names) {
      if (name.rfind("rocm-", 0) == 0) {
        const std::string path = "/opt/" + name;
        facts.installs.push_back({path, read_version(host, path)});
      }
    }
  }
  facts.amdgpu_install = host.stat("/usr/bin/amdgpu-install").has_value();
  facts.opt_rocm_target = host.read_link("/opt/rocm");
  facts.opt_rocm_version = read_version(host, "/opt/rocm");
  if (!facts.installs.empty() || facts.opt_rocm_version) {
    facts.layout = RocmLayout::classic;
  }
  add_therock_installs(host, facts);
  facts.rocm_path = host.env("ROCM_PATH");
  if (facts.rocm_path) {
    facts.rocm_path_version = read_version(host, *facts.rocm_path);
  }
  facts.hip_path = host.env("HIP_PATH");
  if (facts.rocm_path && !facts.rocm_path->empty()) {
    facts.rocm_path_holds_rocm = holds_rocm(host, *facts.rocm_path);
  }
  if (facts.hip_path && !facts.hip_path->empty()) {
    facts.hip_path_holds_hip = holds_rocm(host, *facts.hip_path);
  }
  if (const auto ld_path = host.env("LD_LIBRARY_PATH")) {
    for (const auto part : util::split(*ld_path, ':')) {
      const std::string dir(part);
      if (!dir.empty() && dir.front() == '/' && holds_hip(host, dir)) {
        facts.ld_library_hip.push_back({dir, read_version(host, util::parent_path(dir))});
      }
    }
  }
  facts.wsl_dxcore = host.stat("/usr/lib/wsl/lib/libdxcore.so").has_value();
  const std::string active = facts.rocm_path.value_or("/opt/rocm");
  facts.rocdxg = host.stat(active + "/lib/librocdxg.so").has_value();
  facts.rocblas_library = tensile_library(host, active + "/lib/rocblas/library");
  if (const auto names = host.list_dir(active + "/lib")) {
    for (const auto& name : *names) {
      if (name.rfind("libhsa-runtime64.so", 0) == 0) {
        const std::string path = active + "/lib/" + name;
        const auto stat = host.stat(path);
        facts.hsa_runtime.push_back(
            {path, stat ? std::optional<std::uint64_t>(stat->size) : std::nullopt});
      }
    }
  }
  return facts;
}

}  // namespace rocdoc
