// The knowledge base as compact JSON: the form the embedded rules take in the binary.
#include <nlohmann/json.hpp>

#include "rocdoc/knowledge.h"

namespace nlohmann {

template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    j = value ? json(*value) : json(nullptr);
  }
  static void from_json(const json& j, std::optional<T>& value) {
    value = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
  }
};

}  // namespace nlohmann

namespace rocdoc {

NLOHMANN_JSON_SERIALIZE_ENUM(GpuKind, {{GpuKind::radeon, "radeon"},
                                       {GpuKind::instinct, "instinct"},
                                       {GpuKind::apu, "apu"}})
NLOHMANN_JSON_SERIALIZE_ENUM(OverrideVerdict, {{OverrideVerdict::works, "works"},
                                               {OverrideVerdict::unneeded, "unneeded"},
                                               {OverrideVerdict::dangerous, "dangerous"},
                                               {OverrideVerdict::none, "none"}})
NLOHMANN_JSON_SERIALIZE_ENUM(EnvVarKind,
                             {{EnvVarKind::real, "real"}, {EnvVarKind::misspelling, "misspelling"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GfxOverride, value, verdict, unneeded_since_torch, older_torch,
                                   note, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GfxTarget, name, kfd, family, kind, products, source, rocm,
                                   rocm_since, override_value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PciIdEntry, device, name, gfx, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TorchRelease, torch, torchvision, torchaudio, torchaudio_pair,
                                   triton_rocm, rocm_indexes, gfx, gfx_exceptions, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OsSupport, id, versions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RocmRelease, rocm, os, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DriverVersion, module, rocm, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EnvVariable, name, kind, real, description, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WslRelease, rocm, windows_driver, runtime_library, supported,
                                   source)

std::string knowledge_to_json(const Knowledge& knowledge) {
  const nlohmann::json document = {
      {"targets", knowledge.targets},
      {"pci_ids", knowledge.pci_ids},
      {"rocm_releases", knowledge.rocm_releases},
      {"driver_versions", knowledge.driver_versions},
      {"torch_releases", knowledge.torch_releases},
      {"env_variables", knowledge.env_variables},
      {"wsl_releases", knowledge.wsl_releases},
  };
  return document.dump();
}

Knowledge knowledge_from_json(std::string_view text, std::string origin) {
  const nlohmann::json document = nlohmann::json::parse(text);
  Knowledge knowledge;
  knowledge.origin = std::move(origin);
  document.at("targets").get_to(knowledge.targets);
  document.at("pci_ids").get_to(knowledge.pci_ids);
  document.at("rocm_releases").get_to(knowledge.rocm_releases);
  document.at("driver_versions").get_to(knowledge.driver_versions);
  document.at("torch_releases").get_to(knowledge.torch_releases);
  document.at("env_variables").get_to(knowledge.env_variables);
  document.at("wsl_releases").get_to(knowledge.wsl_releases);
  return knowledge;
}

}  // namespace rocdoc
