#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "rocdoc/gfx_target.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "src/commands/cli.h"
#include "tests/unit/test_support.h"

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

TEST_CASE("a PCI revision names the one product, as rocminfo does (issue 22, N24)", "[knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  const PciIdEntry* navi22 = knowledge.amd_pci_id(0x73df);
  REQUIRE(navi22 != nullptr);
  CHECK(navi22->name_for(0xc1) == "Radeon RX 6700 XT");  // libdrm amdgpu.ids: 73DF, C1
  CHECK(navi22->name_for(0xc0) == "Radeon RX 6750 XT");
  // A revision the table does not list, or none: every product once, as pci.ids lists them.
  CHECK(navi22->name_for(0x42) == "Radeon RX 6700 / 6700 XT / 6750 XT / 6800M / 6850M XT");
  CHECK(navi22->name_for(std::nullopt) == navi22->name_for(0x42));
  CHECK(navi22->source.find("amdgpu.ids") != std::string::npos);
  const PciIdEntry* phoenix = knowledge.amd_pci_id(0x15bf);
  REQUIRE(phoenix != nullptr);
  CHECK(phoenix->name_for(0xc7) == "Phoenix1 iGPU (Radeon 780M Graphics)");
  const PciIdEntry* navi31 = knowledge.amd_pci_id(0x744c);
  REQUIRE(navi31 != nullptr);
  CHECK(navi31->name_for(0xc8) == "Radeon RX 7900 XTX");
  const PciIdEntry* strix_halo = knowledge.amd_pci_id(0x1586);
  REQUIRE(strix_halo != nullptr);
  CHECK(strix_halo->name_for(0xc1) == "Radeon 8060S Graphics (Strix Halo)");
  const PciIdEntry* picasso = knowledge.amd_pci_id(0x15d8);
  REQUIRE(picasso != nullptr);
  CHECK(picasso->name_for(0xc8) == "Picasso / Raven 2 iGPU (Radeon Vega 11 Graphics)");
  // Unknown revisions: the chips kept whole, the products in parentheses each once; a model
  // number is never dropped.
  CHECK(phoenix->name_for(0x42) == "Phoenix1 iGPU (Radeon 780M / 760M / 740M)");
  CHECK(strix_halo->name_for(0x42) == "Radeon 8060S / 8050S / 8040S (Strix Halo)");
  CHECK(picasso->name_for(0x42) == "Picasso / Raven 2 iGPU (Radeon Vega Series / Mobile Series)");
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
  SECTION("a products key that is not a PCI revision") {
    const RulesError error =
        load_error(k_targets,
                   "products_source: s\ndevices:\n  - id: \"73df\"\n    name: x\n    gfx: gfx1031\n"
                   "    source: s\n    products: {\"c1\": \"a\", \"c1x\": \"b\"}\n");
    CHECK(error.line() == 7);
    CHECK(std::string(error.what()).find("two hex digits") != std::string::npos);
  }
  SECTION("products without products_source") {
    const RulesError error =
        load_error(k_targets,
                   "devices:\n  - id: \"73df\"\n    name: x\n    gfx: gfx1031\n"
                   "    source: s\n    products: {\"c1\": \"a\"}\n");
    CHECK(std::string(error.what()).find("missing \"products_source\"") != std::string::npos);
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
        "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031]\n    python: [\"3.12\"]\n"
        "    source: s\n";
    const RulesError error =
        load_error(k_targets, "devices: []\n",
                   "releases:\n  - torch: \"2.10.0\"\n" + row + "  - torch: \"2.9.1\"\n" + row);
    CHECK(error.line() == 9);
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
                   "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031]\n"
                   "    python: [\"3.12\"]\n    source: s\n");
    CHECK(error.line() == 2);
    CHECK(std::string(error.what()).find("torchaudio") != std::string::npos);
  }
  SECTION("a torch row without its CPython versions, or with one not written 3.N") {
    const std::string head =
        "releases:\n  - torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    torchaudio: \"2.6.0\"\n"
        "    rocm_indexes: [\"rocm6.2.4\"]\n    gfx: [gfx1031]\n    source: s\n";
    const RulesError missing = load_error(k_targets, "devices: []\n", head);
    CHECK(std::string(missing.what()).find("missing \"python\"") != std::string::npos);
    const RulesError bad =
        load_error(k_targets, "devices: []\n", head + "    python: [\"3.12\", \"py3\"]\n");
    CHECK(bad.line() == 8);
    CHECK(
        std::string(bad.what()).find("a CPython version is written 3.N, once each, not \"py3\"") !=
        std::string::npos);
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

// Hostile --rules DIR (issue 8, item 7): bounded cost, nothing cut or ignored silently, one
// printable file:line:column line.
namespace {

/// The size limit of a rules file (k_max_rules_file_bytes), written out so that the test reads
/// as the documentation does (docs/rules-format.md).
constexpr std::size_t k_one_mib = std::size_t{1} << 20;

/// A --rules directory: a temporary directory whose files replace the embedded ones.
class RulesDir {
 public:
  std::string path() const { return m_temp.root(); }
  void file(const std::string& name, const std::string& content) const {
    m_temp.file("/" + name, content);
  }

 private:
  test::TempSnapshot m_temp;  // its root/ is the rules directory
};

RulesError dir_error(const RulesDir& dir) {
  try {
    load_knowledge_dir(dir.path());
  } catch (const RulesError& error) {
    return error;
  }
  FAIL("the rules directory loaded although it is invalid");
  return RulesError("", 0, 0, "");
}

/// The error for the embedded rules with some files replaced by `files`.
RulesError files_error(const std::vector<RuleText>& replaced) {
  std::vector<RuleText> files = replaced;
  for (const auto& embedded : embedded_rule_files()) {
    if (find_rule_file(files, embedded.name) == nullptr) {
      files.push_back({std::string(embedded.name), std::string(embedded.content)});
    }
  }
  try {
    load_knowledge(files, "test");
  } catch (const RulesError& error) {
    return error;
  }
  FAIL("the rules loaded although they are invalid");
  return RulesError("", 0, 0, "");
}

bool contains(const RulesError& error, const std::string& text) {
  return std::string(error.what()).find(text) != std::string::npos;
}

std::string embedded_text(std::string_view name) {
  for (const auto& embedded : embedded_rule_files()) {
    if (embedded.name == name) {
      return std::string(embedded.content);
    }
  }
  FAIL("no embedded " << name);
  return "";
}

}  // namespace

TEST_CASE("a rules file over 1 MiB is refused by name and never cut", "[knowledge][rules]") {
  const std::string valid = embedded_text("env_vars.yaml");
  const std::string invalid_entry = "  - name: HIP_FOO\n    kind: bogus\n    source: s\n";
  RulesDir dir;
  SECTION("a file one byte over the limit") {
    dir.file("torch.yaml", "releases: []\n" + std::string(k_one_mib - 13, '#') + "\n");
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path() + "/torch.yaml");
    CHECK(contains(error, "the file is 1048577 bytes; a rules file may be at most 1048576 bytes"));
  }
  SECTION("an invalid entry after a big comment is not dropped: the file is refused") {
    dir.file("env_vars.yaml", valid + "#" + std::string(k_one_mib, ' ') + "\n" + invalid_entry);
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path() + "/env_vars.yaml");
    CHECK(contains(error, "a rules file may be at most 1048576 bytes"));
  }
  SECTION("a file of exactly the limit is read to its last line") {
    const std::size_t padding = k_one_mib - valid.size() - invalid_entry.size() - 2;
    dir.file("env_vars.yaml", valid + "#" + std::string(padding, ' ') + "\n" + invalid_entry);
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path() + "/env_vars.yaml");
    CHECK(contains(error, "\"kind\" must be one of real, misspelling, not \"bogus\""));
  }
  SECTION("the loader itself refuses an oversize text (rocdoc_rulesc uses it too)") {
    const RulesError error =
        files_error({{"wsl.yaml", "releases: []\n#" + std::string(k_one_mib, ' ')}});
    CHECK(error.file() == "wsl.yaml");
    CHECK(contains(error, "at most 1048576 bytes"));
  }
}

TEST_CASE("a rules directory holds only the rules files and only regular files",
          "[knowledge][rules]") {
  RulesDir dir;
  SECTION("an unknown *.yaml is refused by name, with the known names") {
    dir.file("foo.yaml", "variables: []\n");
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path() + "/foo.yaml");
    CHECK(contains(error,
                   "not a rules file; the rules files are code_patterns.yaml, cuda_packages.yaml, "
                   "env_vars.yaml, "
                   "gfx_targets.yaml, "
                   "pci_ids.yaml, revision.yaml, rocm_releases.yaml, torch.yaml, triage.yaml, "
                   "tuning.yaml, wsl.yaml"));
  }
  SECTION("other files are ignored") {
    dir.file("README.md", "notes\n");
    dir.file("torch.yaml~", "not: [yaml\n");
    for (const auto& embedded : embedded_rule_files()) {
      if (embedded.name == "torch.yaml") {
        dir.file("torch.yaml", std::string(embedded.content));
      }
    }
    CHECK(load_knowledge_dir(dir.path()).torch_releases.size() ==
          load_embedded_knowledge().torch_releases.size());
  }
  SECTION("a directory without a rules file is refused: a mistyped path is not valid rules") {
    dir.file("README.md", "notes\n");
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path());
    CHECK(contains(
        error,
        "no rules files here; a rules directory holds code_patterns.yaml, cuda_packages.yaml, "
        "env_vars.yaml, "
        "gfx_targets.yaml, "
        "pci_ids.yaml, revision.yaml, rocm_releases.yaml, torch.yaml, triage.yaml, "
        "tuning.yaml, wsl.yaml"));
  }
  SECTION("a FIFO is refused without waiting for a writer") {
    REQUIRE(::mkfifo((dir.path() + "/wsl.yaml").c_str(), 0600) == 0);
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path() + "/wsl.yaml");
    CHECK(contains(error, "not a regular file (a FIFO)"));
  }
  SECTION("a directory named like a rules file") {
    dir.file("torch.yaml/x", "");
    CHECK(contains(dir_error(dir), "torch.yaml:0:0: not a regular file (a directory)"));
  }
  SECTION("a directory of more than 1000 entries") {
    dir.file("README.md", "");
    for (int i = 0; i < 1000; ++i) {  // links: far quicker to make than files
      std::filesystem::create_hard_link(dir.path() + "/README.md",
                                        dir.path() + "/note" + std::to_string(i) + ".md");
    }
    const RulesError error = dir_error(dir);
    CHECK(error.file() == dir.path());
    CHECK(contains(error, "the rules directory holds more than 1000 entries"));
  }
}

TEST_CASE("duplicate keys are refused with file:line:column at every depth", "[knowledge][rules]") {
  SECTION("top level: a list before the real one") {
    const RulesError error =
        files_error({{"gfx_targets.yaml", "targets: []\n" + embedded_text("gfx_targets.yaml")}});
    CHECK(error.file() == "gfx_targets.yaml");
    CHECK(error.column() == 1);
    CHECK(contains(error, "duplicate key \"targets\" (first at line 1)"));
  }
  SECTION("in an entry") {
    const RulesError error = files_error(
        {{"torch.yaml", "releases:\n  - torch: \"2.6.0\"\n    torch: \"2.7.0\"\n    source: s\n"}});
    CHECK(error.file() == "torch.yaml");
    CHECK(error.line() == 3);
    CHECK(error.column() == 5);
    CHECK(contains(error, "duplicate key \"torch\" (first at line 2)"));
  }
  SECTION("deeper, in a flow mapping, and in a file rocdoc reads nothing from") {
    const RulesError nested = files_error(
        {{"wsl.yaml", "releases:\n  - rocm: \"6.4.2\"\n    x:\n      - {a: 1, b: 2, a: 3}\n"}});
    CHECK(nested.line() == 4);
    CHECK(nested.column() == 22);
    CHECK(contains(nested, "duplicate key \"a\" (first at line 4)"));
    const RulesError unread = files_error({{"notes.yaml", "a:\n  b: 1\n  \"b\": 2\n"}});
    CHECK(unread.file() == "notes.yaml");
    CHECK(unread.line() == 3);
  }
}

TEST_CASE("rules errors quote hostile text printably", "[knowledge][rules]") {
  SECTION("a scalar with terminal control bytes") {
    const RulesError error =
        files_error({{"revision.yaml", "revision: \"2026-\x1b]8;;http://x\x07\x1b[2J\"\n"}});
    const std::string what = error.what();
    CHECK(what.find('\x1b') == std::string::npos);
    CHECK(what.find('\x07') == std::string::npos);
    CHECK(contains(error, "not \"2026-\\x1b]8;;http://x\\x07\\x1b[2J\""));
  }
  SECTION("yaml-cpp's own message quoting the raw byte") {
    const RulesError error = files_error({{"revision.yaml", "revision: \"\\\x1b\"\n"}});
    CHECK(std::string(error.what()).find('\x1b') == std::string::npos);
    CHECK(contains(error, "revision.yaml:1:14: unknown escape character: \\x1b"));
  }
  SECTION("a long value is cut, and says so") {
    const RulesError error =
        files_error({{"revision.yaml", "revision: \"" + std::string(5000, 'x') + "\"\n"}});
    CHECK(std::string(error.what()).size() < 200);
    CHECK(contains(error, "(5000 bytes)"));
  }
  SECTION("a file name with control bytes") {
    RulesDir dir;
    dir.file("\x1b[2J.yaml", "");
    CHECK(contains(dir_error(dir), "/\\x1b[2J.yaml:0:0: not a rules file"));
  }
}

TEST_CASE("rules structure: deep nesting and a second document are refused", "[knowledge][rules]") {
  SECTION("nesting yaml-cpp itself stops") {
    const RulesError error = files_error({{"wsl.yaml", "releases: " + std::string(100000, '[')}});
    CHECK(error.file() == "wsl.yaml");
    CHECK(contains(error, "nesting deeper than 64 levels"));
  }
  SECTION("nesting yaml-cpp accepts") {
    const RulesError error = files_error(
        {{"wsl.yaml", "releases: " + std::string(100, '[') + std::string(100, ']') + "\n"}});
    CHECK(error.line() == 1);
    CHECK(contains(error, "nesting deeper than 64 levels"));
  }
  SECTION("a second document is not ignored") {
    const RulesError error = files_error(
        {{"revision.yaml", "revision: \"2026-11-26\"\n---\nrevision: \"not a date\"\n"}});
    CHECK(error.line() == 3);
    CHECK(contains(error, "a second YAML document; a rules file holds one"));
  }
  SECTION("a stray comma at block level ends (yaml-cpp's LoadAll never returned: a fuzz finding)") {
    const RulesError error = files_error({{"revision.yaml", ",,,revision: \"2026-12-07\"\n"}});
    CHECK(error.line() == 1);
    CHECK(contains(error,
                   "YAML that cannot be read past this point (a ',' or another flow "
                   "indicator outside [ ] or { })"));
  }
}

TEST_CASE("aliases are checked once: a billion laughs stays cheap", "[knowledge][rules]") {
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) {
      laughs += prev + (j < 9 ? ", " : "]\n");
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const RulesError error = files_error({{"notes.yaml", laughs + "a0: again\n"}});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(error.line() == 13);
  CHECK(contains(error, "duplicate key \"a0\" (first at line 1)"));
}

TEST_CASE("the real rules directory loads, and rules lint says valid", "[knowledge][rules]") {
  const std::string rules = std::string(ROCDOC_SOURCE_DIR) + "/rules";
  const Knowledge from_dir = load_knowledge_dir(rules);
  const Knowledge embedded = load_embedded_knowledge();
  CHECK(from_dir.targets.size() == embedded.targets.size());
  CHECK(from_dir.pci_ids.size() == embedded.pci_ids.size());
  CHECK(from_dir.torch_releases.size() == embedded.torch_releases.size());
  CHECK(from_dir.revision == embedded.revision);
  for (const auto& file : embedded_rule_files()) {
    INFO(file.name);
    CHECK(file.content.size() * 8 < k_one_mib);  // the limit stays far above the real files
  }
  const char* argv[] = {"rocdoc", "rules", "lint", rules.c_str()};
  std::ostringstream out, err;
  CHECK(run_cli(4, argv, out, err, OutputIsTerminal::no) == 0);
  CHECK(out.str().find("valid\n") != std::string::npos);
  CHECK(err.str().empty());
}

TEST_CASE("cuda_packages.yaml: a broken row is refused at its line", "[knowledge][rules]") {
  const std::string head =
      "libraries:\n  cuda: [libcudart.so]\n  rocm: [libamdhip64.so]\n  source: s\npackages:\n";
  const auto error_for = [&](const std::string& row) {
    return files_error({{"cuda_packages.yaml", head + row}});
  };
  SECTION("a name pip would not compare") {
    const auto error = error_for(
        "  - name: Flash_Attn\n    what: x\n    name_is_cuda: true\n    breaks: fails\n"
        "    breaks_how: x\n    source: s\n");
    CHECK(error.line() == 6);
    CHECK(contains(error, "is a normalised distribution name"));
  }
  SECTION("nothing that tells the CUDA build") {
    const auto error = error_for(
        "  - name: vllm\n    what: x\n    breaks: cuda_torch\n    breaks_how: x\n    source: s\n");
    CHECK(error.line() == 6);
    CHECK(contains(error, "else nothing tells its CUDA build"));
  }
  SECTION("an install line that does not run pip through the environment's interpreter") {
    const auto error = error_for(
        "  - name: vllm\n    what: x\n    untagged_is_cuda: true\n    breaks: cuda_torch\n"
        "    breaks_how: x\n    rocm_build: y\n    install: \"pip install vllm\"\n    source: s\n");
    CHECK(error.line() == 12);
    CHECK(contains(error, "\"install\" is a line that runs \"{python} -m pip \""));
  }
  SECTION("an evidence path with * in a directory") {
    const auto error = error_for(
        "  - name: vllm\n    what: x\n    evidence:\n      - file: \"vllm*/_C.so\"\n"
        "        says: linked\n    breaks: fails\n    breaks_how: x\n    source: s\n");
    CHECK(error.line() == 9);
    CHECK(contains(error, "with * only in its last part"));
  }
  SECTION("torch_indexes without {torch_index}") {
    const auto error = error_for(
        "  - name: xformers\n    what: x\n    name_is_cuda: true\n    breaks: fails\n"
        "    breaks_how: x\n    rocm_build: y\n    install: \"{python} -m pip install xformers\"\n"
        "    torch_indexes: [rocm6.4]\n    source: s\n");
    CHECK(error.line() == 13);
    CHECK(contains(error, "needs {torch_index}"));
  }
}

TEST_CASE("cuda_packages.yaml: the embedded rows are the loaded file's", "[knowledge][rules]") {
  const Knowledge loaded =
      load_knowledge({{"cuda_packages.yaml", embedded_text("cuda_packages.yaml")},
                      {"code_patterns.yaml", embedded_text("code_patterns.yaml")},
                      {"gfx_targets.yaml", embedded_text("gfx_targets.yaml")},
                      {"pci_ids.yaml", embedded_text("pci_ids.yaml")},
                      {"rocm_releases.yaml", embedded_text("rocm_releases.yaml")},
                      {"torch.yaml", embedded_text("torch.yaml")},
                      {"env_vars.yaml", embedded_text("env_vars.yaml")},
                      {"wsl.yaml", embedded_text("wsl.yaml")},
                      {"tuning.yaml", embedded_text("tuning.yaml")},
                      {"revision.yaml", embedded_text("revision.yaml")}},
                     "test");
  const Knowledge& compiled = load_embedded_knowledge();
  REQUIRE(loaded.cuda_packages.size() == compiled.cuda_packages.size());
  for (std::size_t i = 0; i < loaded.cuda_packages.size(); ++i) {
    const auto& a = loaded.cuda_packages[i];
    const auto& b = compiled.cuda_packages[i];
    CAPTURE(a.name);
    CHECK(a.name == b.name);
    CHECK(a.also == b.also);
    CHECK(a.evidence.size() == b.evidence.size());
    CHECK(a.breaks == b.breaks);
    CHECK(a.install == b.install);
    CHECK(a.pythons == b.pythons);
    CHECK(a.torch_indexes == b.torch_indexes);
    CHECK(a.comes_with_cuda_torch == b.comes_with_cuda_torch);
  }
  CHECK(loaded.build_libraries.cuda == compiled.build_libraries.cuda);
  CHECK(loaded.build_libraries.rocm == compiled.build_libraries.rocm);
}

TEST_CASE("torch.yaml radeon_wheels: files of one release, refused at their line when they are not",
          "[knowledge][rules]") {
  const std::string torch = embedded_text("torch.yaml");
  // The embedded file up to its own list, then the row under test.
  const auto error_for = [&](const std::string& row) {
    return files_error({{"torch.yaml", torch.substr(0, torch.find("\nradeon_wheels:")) +
                                           "\nradeon_wheels:\n" + row}});
  };
  const std::string good =
      "  - rocm: \"6.4.1\"\n    url: \"https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/\"\n"
      "    python: [\"3.12\"]\n    torch: \"2.6.0+rocm6.4.1.git1ded221d\"\n"
      "    torchvision: \"0.21.0+rocm6.4.1.git4040d51f\"\n"
      "    torchaudio: \"2.6.0+rocm6.4.1.gitd8831425\"\n    source: s\n";
  SECTION("a directory of another release") {
    std::string row = good;
    row.replace(row.find("rocm-rel-6.4.1"), 14, "rocm-rel-6.4.2");
    const auto error = error_for(row);
    CHECK(contains(error, "\"url\" must be AMD's directory of that release"));
  }
  SECTION("a version of another release") {
    std::string row = good;
    row.replace(row.find("0.21.0+rocm6.4.1"), 16, "0.21.0+rocm6.4.2");
    CHECK(contains(error_for(row), "carry +rocm6.4.1 in their versions, not"));
  }
  SECTION("no CPython named") {
    std::string row = good;
    row.replace(row.find("[\"3.12\"]"), 8, "[]");
    CHECK(contains(error_for(row), "\"python\" lists at least one CPython version"));
  }
  const Knowledge embedded = load_embedded_knowledge();
  const RadeonWheelSet* set = embedded.radeon_wheels_with_torch("2.6.0+rocm6.4.1.git1ded221d");
  REQUIRE(set != nullptr);
  CHECK(set->url + radeon_wheel_file("torchvision", set->torchvision, "3.12") ==
        "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"
        "torchvision-0.21.0%2Brocm6.4.1.git4040d51f-cp312-cp312-linux_x86_64.whl");
}

TEST_CASE("env_vars.yaml place: a place a fix can export, refused at its line when it is not",
          "[knowledge][rules]") {
  const std::string vars = embedded_text("env_vars.yaml");
  const std::string per_user = "per_user: \"$HOME/.config/miopen\"";
  REQUIRE(vars.find(per_user) != std::string::npos);
  const auto error_for = [&](const std::string& replacement) {
    std::string text = vars;
    text.replace(text.find(per_user), per_user.size(), replacement);
    return files_error({{"env_vars.yaml", text}});
  };
  CHECK(contains(error_for("per_user: \"$HOME/my dir\""),
                 "\"per_user\" is $HOME/… or an absolute path without quotes, spaces or shell "
                 "operators"));
  CHECK(contains(error_for("per_user: \"relative/dir\""), "\"per_user\" is $HOME/…"));
  CHECK(contains(error_for("per_user: \"$HOME/x; rm -rf ~\""), "\"per_user\" is $HOME/…"));
  const Knowledge embedded = load_embedded_knowledge();
  const EnvVariable* cache = embedded.env_variable("MIOPEN_CUSTOM_CACHE_DIR");
  REQUIRE(cache != nullptr);
  REQUIRE(cache->place);
  CHECK(cache->place->default_place == "~/.cache/miopen");
  CHECK(cache->place->on_network_home == "/tmp/miopen-cache-$USER");
}

TEST_CASE("A command builds only the parts of the embedded rules it reads, once",
          "[knowledge][rules]") {
  const Knowledge& machine = embedded_knowledge(KnowledgeParts::machine);
  const Knowledge& all = embedded_knowledge();
  CHECK(&embedded_knowledge(KnowledgeParts::machine) == &machine);  // built once, kept
  CHECK(machine.built == KnowledgeParts::machine);
  CHECK(all.built == KnowledgeParts::all);
  CHECK(machine.triage_signatures.empty());
  CHECK(machine.code_patterns.empty());
  CHECK(machine.code_platform_macros.rocm.empty());
  CHECK_FALSE(all.triage_signatures.empty());
  CHECK_FALSE(all.code_patterns.empty());
  // Every other rule is the whole embedded set's.
  CHECK(machine.targets.size() == all.targets.size());
  CHECK(machine.pci_ids.size() == all.pci_ids.size());
  CHECK(machine.env_variables.size() == all.env_variables.size());
  CHECK(machine.cuda_packages.size() == all.cuda_packages.size());
  CHECK(machine.build_libraries.rocm == all.build_libraries.rocm);
  CHECK(machine.revision == all.revision);
  CHECK(machine.origin == "embedded");
  const Knowledge& with_code = embedded_knowledge(KnowledgeParts::machine | KnowledgeParts::code);
  CHECK(with_code.code_patterns.size() == all.code_patterns.size());
  CHECK(with_code.triage_signatures.empty());

  // Code that reads a part that was not built fails loudly, never with an empty list.
  CHECK_THROWS_AS(machine.require(KnowledgeParts::triage), std::logic_error);
  CHECK_THROWS_AS(with_code.require(KnowledgeParts::triage), std::logic_error);
  CHECK_NOTHROW(with_code.require(KnowledgeParts::code | KnowledgeParts::machine));
  CHECK_NOTHROW(all.require(KnowledgeParts::triage));

  // The embedded rules are not copied; a --rules directory is loaded whole whatever is asked.
  CHECK(load_rules("", KnowledgeParts::machine).get() == &machine);
  const auto from_dir =
      load_rules(std::string(ROCDOC_SOURCE_DIR) + "/rules", KnowledgeParts::machine);
  CHECK(from_dir->built == KnowledgeParts::all);
  CHECK(from_dir->triage_signatures.size() == all.triage_signatures.size());
  // start_loading_rules: the embedded ones on another thread, a directory's here (a bad one is
  // refused before anything else runs).
  CHECK(&start_loading_rules("", KnowledgeParts::machine).get() == &machine);
  CHECK_THROWS_AS(start_loading_rules("/nonexistent-rules-dir", KnowledgeParts::machine),
                  RulesError);
}
