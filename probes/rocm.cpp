#include "probes/rocm.h"

#include "src/util/strings.h"

namespace rocdoc {

namespace {

std::optional<std::string> read_version(const Host& host, const std::string& root) {
  const auto text = host.read_file(root + "/.info/version", 256);
  if (!text || util::trim(*text).empty()) {
    return std::nullopt;
  }
  return std::string(util::trim(*text));
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
  facts.opt_rocm_target = host.read_link("/opt/rocm");
  facts.opt_rocm_version = read_version(host, "/opt/rocm");
  return facts;
}

}  // namespace rocdoc
