#include <catch2/catch.hpp>

#include "rocdoc/gfx_target.h"
#include "rocdoc/knowledge.h"

using namespace rocdoc;

namespace {

const char* k_targets = R"(targets:
  - name: gfx1031
    kfd: 100301
    family: RDNA2
    kind: radeon
    source: "kfd_device.c"
)";

RulesError load_error(const std::string& targets, const std::string& pci) {
  try {
    load_knowledge({{"gfx_targets.yaml", targets},
                    {"pci_ids.yaml", pci},
                    {"rocm_releases.yaml", "releases: []\n"},
                    {"torch.yaml", "releases: []\n"},
                    {"env_vars.yaml", "variables: []\n"},
                    {"wsl.yaml", "releases: []\n"}},
                   "test");
  } catch (const RulesError& error) {
    return error;
  }
  FAIL("the rules loaded although they are invalid");
  return RulesError("", 0, 0, "");
}

}  // namespace

TEST_CASE("the embedded knowledge base loads", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  CHECK(knowledge.origin == "embedded");
  CHECK(knowledge.targets.size() >= 30);
  CHECK(knowledge.pci_ids.size() >= 100);
  const auto* mi300x = knowledge.amd_pci_id(0x74a1);
  REQUIRE(mi300x != nullptr);
  CHECK(mi300x->gfx == "gfx942");
  REQUIRE(knowledge.target("gfx942") != nullptr);
  CHECK(knowledge.target("gfx942")->is_mi300_class());
  CHECK(knowledge.target("gfx1103")->kind == GpuKind::apu);
}

TEST_CASE("every gfx target's KFD number round-trips through its name", "[knowledge][gfx]") {
  for (const auto& target : load_embedded_knowledge().targets) {
    INFO(target.name);
    CHECK(gfx_name_from_kfd(target.kfd) == target.name);
    CHECK(kfd_from_gfx_name(target.name) == target.kfd);
  }
}

TEST_CASE("every PCI id maps to a known gfx target and names its source", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  for (const auto& entry : knowledge.pci_ids) {
    INFO(entry.device);
    CHECK(knowledge.target(entry.gfx) != nullptr);
    CHECK_FALSE(entry.source.empty());
  }
}

TEST_CASE("bad rules are refused with file:line:column", "[knowledge][lint]") {
  SECTION("a PCI id naming an unknown gfx target") {
    const RulesError error = load_error(
        k_targets, "devices:\n  - id: \"73df\"\n    name: x\n    gfx: gfx9999\n    source: s\n");
    CHECK(error.file() == "pci_ids.yaml");
    CHECK(error.line() == 4);
    CHECK(std::string(error.what()).find("unknown gfx target gfx9999") != std::string::npos);
  }
  SECTION("a kfd number that does not decode to the name") {
    std::string targets = k_targets;
    targets.replace(targets.find("100301"), 6, "100300");
    const RulesError error = load_error(targets, "devices: []\n");
    CHECK(error.file() == "gfx_targets.yaml");
    CHECK(error.line() == 3);
  }
  SECTION("a kind that is not radeon, instinct or apu") {
    std::string targets = k_targets;
    targets.replace(targets.find("radeon"), 6, "gaming");
    const RulesError error = load_error(targets, "devices: []\n");
    CHECK(error.line() == 5);
    CHECK(error.column() == 11);
  }
  SECTION("an entry without a source") {
    std::string targets = k_targets;
    targets.erase(targets.find("    source"));
    const RulesError error = load_error(targets, "devices: []\n");
    CHECK(std::string(error.what()).find("missing \"source\"") != std::string::npos);
  }
  SECTION("a YAML syntax error") {
    const RulesError error = load_error(k_targets, "devices: [\n  - id: \"73df\"\n");
    CHECK(error.file() == "pci_ids.yaml");
    CHECK(error.line() >= 2);
  }
  SECTION("a PCI id that is not four hex digits") {
    const RulesError error = load_error(
        k_targets, "devices:\n  - id: \"73dfx\"\n    name: x\n    gfx: gfx1031\n    source: s\n");
    CHECK(error.line() == 2);
  }
  SECTION("a target defined twice") {
    const RulesError error =
        load_error(std::string(k_targets) + std::string(k_targets).substr(9), "devices: []\n");
    CHECK(error.line() == 7);
  }
}

TEST_CASE("ROCm releases are ordered and every driver version names one", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  REQUIRE(knowledge.rocm_release_index("5.7") == 0);
  CHECK(knowledge.rocm_release_index("6.4") < knowledge.rocm_release_index("7.0"));
  CHECK_FALSE(knowledge.rocm_release_index("9.9").has_value());
  for (const auto& driver : knowledge.driver_versions) {
    INFO(driver.module);
    CHECK(knowledge.rocm_release_index(driver.rocm).has_value());
    CHECK_FALSE(driver.source.empty());
  }
  REQUIRE(knowledge.driver_version("6.8.5") != nullptr);
  CHECK(knowledge.driver_version("6.8.5")->rocm == "6.2");
}
