// The knowledge base as compact JSON: the form the embedded rules take in the binary.
#include <nlohmann/json.hpp>

#include "rocdoc/knowledge.h"

namespace rocdoc {

namespace {

using nlohmann::json;

std::string_view kind_name(GpuKind kind) {
  switch (kind) {
    case GpuKind::radeon:
      return "radeon";
    case GpuKind::instinct:
      return "instinct";
    case GpuKind::apu:
      return "apu";
  }
  return "radeon";
}

GpuKind kind_from(const std::string& name) {
  if (name == "instinct") {
    return GpuKind::instinct;
  }
  return name == "apu" ? GpuKind::apu : GpuKind::radeon;
}

}  // namespace

std::string knowledge_to_json(const Knowledge& knowledge) {
  json targets = json::array();
  for (const auto& t : knowledge.targets) {
    targets.push_back({{"name", t.name},
                       {"kfd", t.kfd},
                       {"family", t.family},
                       {"kind", kind_name(t.kind)},
                       {"products", t.products},
                       {"source", t.source}});
  }
  json pci = json::array();
  for (const auto& p : knowledge.pci_ids) {
    pci.push_back({{"device", p.device}, {"name", p.name}, {"gfx", p.gfx}, {"source", p.source}});
  }
  json drivers = json::array();
  for (const auto& d : knowledge.driver_versions) {
    drivers.push_back({{"module", d.module}, {"rocm", d.rocm}, {"source", d.source}});
  }
  return json{{"targets", targets},
              {"pci_ids", pci},
              {"rocm_releases", knowledge.rocm_releases},
              {"driver_versions", drivers}}
      .dump();
}

Knowledge knowledge_from_json(std::string_view text, std::string origin) {
  const json document = json::parse(text);
  Knowledge knowledge;
  knowledge.origin = std::move(origin);
  for (const auto& t : document.at("targets")) {
    knowledge.targets.push_back(
        {t.at("name").get<std::string>(), t.at("kfd").get<std::uint32_t>(),
         t.at("family").get<std::string>(), kind_from(t.at("kind").get<std::string>()),
         t.at("products").get<std::vector<std::string>>(), t.at("source").get<std::string>()});
  }
  for (const auto& p : document.at("pci_ids")) {
    knowledge.pci_ids.push_back({p.at("device").get<std::uint16_t>(),
                                 p.at("name").get<std::string>(), p.at("gfx").get<std::string>(),
                                 p.at("source").get<std::string>()});
  }
  knowledge.rocm_releases = document.at("rocm_releases").get<std::vector<std::string>>();
  for (const auto& d : document.at("driver_versions")) {
    knowledge.driver_versions.push_back({d.at("module").get<std::string>(),
                                         d.at("rocm").get<std::string>(),
                                         d.at("source").get<std::string>()});
  }
  return knowledge;
}

}  // namespace rocdoc
