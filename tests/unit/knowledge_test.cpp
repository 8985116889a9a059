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

RulesError load_error(const std::string& targets, const std::string& pci,
                      const std::string& torch = "releases: []\n",
                      const std::string& env = "variables: []\n",
                      const std::string& wsl = "releases: []\n") {
  try {
    load_knowledge({{"gfx_targets.yaml", targets},
                    {"pci_ids.yaml", pci},
                    {"rocm_releases.yaml", "releases: []\n"},
                    {"torch.yaml", torch},
                    {"env_vars.yaml", env},
                    {"wsl.yaml", wsl},
                    {"revision.yaml", "revision: \"2026-11-26\"\n"}},
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
  SECTION("a torch row naming an unknown gfx target") {
    const RulesError error = load_error(
        k_targets, "devices: []\n",
        "releases:\n  - torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    torchaudio: \"2.6.0\"\n"
        "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031, gfx9999]\n    source: s\n");
    CHECK(error.file() == "torch.yaml");
    CHECK(error.line() == 6);
    CHECK(std::string(error.what()).find("unknown gfx target gfx9999") != std::string::npos);
  }
  SECTION("torch releases out of order") {
    const std::string row =
        "    torchvision: \"0.21.0\"\n    torchaudio: \"2.6.0\"\n"
        "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031]\n    source: s\n";
    const RulesError error =
        load_error(k_targets, "devices: []\n",
                   "releases:\n  - torch: \"2.10.0\"\n" + row + "  - torch: \"2.9.1\"\n" + row);
    CHECK(error.line() == 8);
    CHECK(std::string(error.what()).find("oldest first") != std::string::npos);
  }
  SECTION("a value of the wrong YAML kind names the file") {
    const RulesError error =
        load_error(k_targets, "devices: []\n", "releases: []\n", "variables: []\n",
                   "releases:\n  - rocm: \"6.4.2\"\n    supported: {a: 1}\n    source: s\n");
    CHECK(error.file() == "wsl.yaml");
    CHECK(error.line() == 3);
  }
  SECTION("a torch row without torchaudio") {
    const RulesError error =
        load_error(k_targets, "devices: []\n",
                   "releases:\n  - torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n"
                   "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031]\n    source: s\n");
    CHECK(error.line() == 2);
    CHECK(std::string(error.what()).find("torchaudio") != std::string::npos);
  }
  SECTION("an override verdict that does not exist") {
    const RulesError error = load_error(
        std::string(k_targets) +
            "    override:\n      value: \"10.3.0\"\n      verdict: fine\n      source: s\n",
        "devices: []\n");
    CHECK(error.line() == 9);
    CHECK(std::string(error.what()).find("\"verdict\" must be one of") != std::string::npos);
  }
  SECTION("a misspelling whose real name is not listed") {
    const RulesError error = load_error(k_targets, "devices: []\n", "releases: []\n",
                                        "variables:\n  - name: FOO\n    kind: misspelling\n"
                                        "    real: BAR\n    source: s\n");
    CHECK(error.file() == "env_vars.yaml");
    CHECK(error.line() == 4);
    CHECK(std::string(error.what()).find("BAR") != std::string::npos);
  }
  SECTION("a WSL release naming an unknown GPU") {
    const RulesError error =
        load_error(k_targets, "devices: []\n", "releases: []\n", "variables: []\n",
                   "releases:\n  - rocm: \"6.4.2\"\n    gpus: [gfx1234]\n    source: s\n");
    CHECK(error.file() == "wsl.yaml");
    CHECK(error.line() == 3);
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

TEST_CASE("every torch row's targets exist and every release pairs companions", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  REQUIRE(knowledge.torch_releases.size() >= 20);
  for (const auto& release : knowledge.torch_releases) {
    INFO(release.torch);
    CHECK_FALSE(release.torchvision.empty());
    CHECK_FALSE(release.audio().empty());
    CHECK_FALSE(release.rocm_indexes.empty());
    for (const auto& target : release.gfx) {
      CHECK(knowledge.target(target) != nullptr);
    }
  }
  REQUIRE(knowledge.torch_release("2.6.0+rocm6.2.4") != nullptr);
  CHECK(knowledge.torch_release("2.6.0")->rocm_indexes.back() == "rocm6.2.4");
  CHECK(knowledge.torch_release("2.12.0")->torchaudio.empty());  // never published
  CHECK(knowledge.torch_release("2.12.0")->audio() == "2.11.0");
}

TEST_CASE("override verdicts of the knowledge base", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  CHECK(knowledge.target("gfx1031")->override_value->verdict == OverrideVerdict::works);
  CHECK(knowledge.target("gfx1031")->override_value->value == "10.3.0");
  CHECK(knowledge.target("gfx1103")->override_value->verdict == OverrideVerdict::dangerous);
  CHECK(knowledge.target("gfx90c")->override_value->verdict == OverrideVerdict::dangerous);
  CHECK(knowledge.target("gfx1033")->override_value->verdict == OverrideVerdict::dangerous);
  CHECK(knowledge.target("gfx1102")->override_value->unneeded_since_torch == "2.7");
  CHECK(knowledge.env_variable("PYTORCH_TUNABLE_BACKEND")->real == "PYTORCH_TUNABLEOP_ENABLED");
}
