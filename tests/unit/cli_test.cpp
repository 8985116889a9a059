#include <catch2/catch.hpp>
#include <sstream>

#include "rocdoc/knowledge.h"
#include "src/cli.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;

namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run cli(std::vector<std::string> args) {
  args.insert(args.begin(), "rocdoc");
  std::vector<const char*> argv;
  for (const auto& arg : args) {
    argv.push_back(arg.c_str());
  }
  std::ostringstream out, err;
  const int code =
      run_cli(static_cast<int>(argv.size()), argv.data(), out, err, OutputIsTerminal::no);
  return {code, out.str(), err.str()};
}

const std::string k_fixture = std::string(ROCDOC_FIXTURES_DIR) + "/rx7900xtx-healthy";

}  // namespace

TEST_CASE("an unknown check id is exit 2 with a did-you-mean", "[cli]") {
  const Run run = cli({"check", "--root", k_fixture, "--only", "perm.kdf"});
  CHECK(run.code == 2);
  CHECK(run.err == "rocdoc: --only: unknown check id 'perm.kdf'; did you mean perm.kfd?\n");
  CHECK(
      cli({"check", "--root", k_fixture, "--skip", "zzz.qqqqqqq"}).err.find("rocdoc list-checks") !=
      std::string::npos);
}

TEST_CASE("bad arguments are exit 2", "[cli]") {
  CHECK(cli({"check", "--fail-on", "sometimes"}).code == 2);
  CHECK(cli({"check", "--bogus"}).code == 2);
  CHECK(cli({}).code == 2);
  CHECK(cli({"check", "--root", "/nonexistent/snapshot"}).code == 2);
}

TEST_CASE("a bad snapshot manifest is exit 2 naming the file", "[cli]") {
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "something-else"})");
  const Run run = cli({"check", "--root", snap.dir()});
  CHECK(run.code == 2);
  CHECK(run.err.find(snap.dir() + "/rocdoc-snapshot.json: \"format\" is \"something-else\"") !=
        std::string::npos);
}

TEST_CASE("invalid --rules are exit 2 with file:line:column", "[cli]") {
  test::TempSnapshot rules;  // reuse the temp dir helper: rules go in its root/
  rules.file("/pci_ids.yaml",
             "devices:\n  - id: \"73df\"\n    name: x\n    gfx: gfx4242\n    source: s\n");
  const Run run = cli({"check", "--root", k_fixture, "--rules", rules.root()});
  CHECK(run.code == 2);
  CHECK(run.err.find(rules.root() + "/pci_ids.yaml:4:10: unknown gfx target gfx4242") !=
        std::string::npos);
}

TEST_CASE("list-checks, --version and --help exit 0", "[cli]") {
  const Run list = cli({"list-checks"});
  CHECK(list.code == 0);
  CHECK(list.out.find("perm.relogin") != std::string::npos);
  // The rules' revision is part of the version: a report is only as current as its rules.
  CHECK(cli({"--version"}).out == std::string("rocdoc ") + ROCDOC_VERSION + " (rules revision " +
                                      rocdoc::embedded_knowledge_data().revision + ")\n");
  CHECK(rocdoc::embedded_knowledge_data().revision == "2026-11-26");
  const Run help = cli({"check", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--fail-on") != std::string::npos);
  CHECK(help.out.find("Exit codes") != std::string::npos);
}

TEST_CASE("no colour when not a terminal or with --no-color", "[cli]") {
  CHECK(cli({"check", "--root", k_fixture}).out.find('\033') == std::string::npos);
  CHECK(cli({"check", "--root", k_fixture, "--no-color"}).out.find('\033') == std::string::npos);
  const Run healthy = cli({"check", "--root", k_fixture});
  CHECK(healthy.code == 0);
  CHECK(healthy.out.find("No issues found") != std::string::npos);
}

TEST_CASE("verbose output shows skipped checks with their reasons", "[cli]") {
  const Run quiet = cli({"check", "--root", std::string(ROCDOC_FIXTURES_DIR) + "/wsl2"});
  const Run verbose = cli({"check", "--root", std::string(ROCDOC_FIXTURES_DIR) + "/wsl2", "-v"});
  CHECK(quiet.out.find("perm.kfd") == std::string::npos);
  CHECK(verbose.out.find("- perm.kfd  WSL") != std::string::npos);
}

TEST_CASE("rules lint validates a directory; rules show prints what the base knows",
          "[cli][rules]") {
  const Run lint = cli({"rules", "lint"});
  CHECK(lint.code == 0);
  CHECK(lint.out.find("valid") != std::string::npos);
  const Run embedded_dir = cli({"rules", "lint", std::string(ROCDOC_SOURCE_DIR) + "/rules"});
  CHECK(embedded_dir.code == 0);

  test::TempSnapshot bad;
  bad.file("/torch.yaml",
           "releases:\n  - torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n"
           "    torchaudio: \"2.6.0\"\n    rocm_indexes: [\"rocm6.2.4\"]\n"
           "    gfx: [gfx1031, gfx9999]\n    source: s\n");
  const Run invalid = cli({"rules", "lint", bad.root()});
  CHECK(invalid.code == 2);
  CHECK(invalid.err.find(bad.root() + "/torch.yaml:6:") != std::string::npos);

  const Run target = cli({"rules", "show", "gfx1031"});
  CHECK(target.code == 0);
  CHECK(target.out.find("HSA_OVERRIDE_GFX_VERSION=10.3.0: works") != std::string::npos);
  const Run torch = cli({"rules", "show", "torch", "2.6"});
  CHECK(torch.code == 0);
  CHECK(torch.out.find("pip install torch==2.6.0 torchvision==0.21.0 torchaudio==2.6.0 --index-url "
                       "https://download.pytorch.org/whl/rocm6.2.4") != std::string::npos);
  CHECK(cli({"rules", "show", "74a1"}).out.find("gfx942") != std::string::npos);
  const Run unknown = cli({"rules", "show", "gfx1301"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("did you mean gfx1101?") != std::string::npos);
  CHECK(cli({"rules", "show", "torch", "9.9"}).code == 2);
}

TEST_CASE("the python option cannot go with a snapshot", "[cli]") {
  const Run run = cli({"check", "--root", k_fixture, "--python", "/usr/bin/python3"});
  CHECK(run.code == 2);
  CHECK(run.err.find("cannot go with --root") != std::string::npos);
}

TEST_CASE("rules show takes what users have in hand", "[cli][rules]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  // Marketing names.
  CHECK_THAT(cli({"rules", "show", "RX", "7900", "XTX"}).out, Contains("->  gfx1100"));
  CHECK_THAT(cli({"rules", "show", "Radeon 780M"}).out, Contains("gfx1103  (KFD"));
  CHECK_THAT(cli({"rules", "show", "Radeon 8060S"}).out, Contains("gfx1151  (KFD"));
  // torch.__version__ strings: the build's origin first.
  CHECK_THAT(cli({"rules", "show", "2.6.0+rocm6.2.4"}).out,
             StartsWith("torch 2.6.0+rocm6.2.4: pytorch.org wheel (rocm6.2.4 index)"));
  CHECK_THAT(cli({"rules", "show", "2.9.1+rocm7.2.0.git7e1940d4"}).out,
             Contains("not a pytorch.org wheel"));
  CHECK_THAT(cli({"rules", "show", "torch", "2.14"}).out, Contains("triton-rocm 3.8.0"));
  // ROCm and driver versions.
  CHECK_THAT(cli({"rules", "show", "7.2.1"}).out, StartsWith("ROCm 7.2\n"));
  CHECK_THAT(cli({"rules", "show", "rocm", "10.1"}).out, StartsWith("ROCm 10.1\n"));
  CHECK_THAT(cli({"rules", "show", "6.19.14.31400000"}).out,
             StartsWith("amdgpu DKMS module 6.19.14: ships with ROCm 7.14"));
  CHECK_THAT(cli({"rules", "show", "11.0"}).out, Contains("newer than these rules (revision"));
  const Run unknown = cli({"rules", "show", "Voodoo 5"});
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.err, Contains("knows nothing called 'Voodoo 5'"));
}

TEST_CASE("corrected facts, as rules show prints them", "[cli][rules]") {
  using Catch::Matchers::Contains;
  // gfx1035: the only primary report shows silently wrong results.
  CHECK_THAT(cli({"rules", "show", "gfx1035"}).out,
             Contains("HSA_OVERRIDE_GFX_VERSION=10.3.0: DANGEROUS - never use"));
  // Krackan2 is gfx1153, not gfx1152.
  CHECK_THAT(cli({"rules", "show", "1902"}).out,
             Contains("Krackan2 iGPU (Radeon 840M / 820M)  ->  gfx1153"));
  CHECK_THAT(cli({"rules", "show", "gfx1153"}).out, Contains("KFD gfx_target_version 110503"));
  // 2.14: the rocm7.14 wheels have no gfx900/gfx906 code.
  CHECK_THAT(cli({"rules", "show", "torch", "2.14.1"}).out,
             Contains("rocm7.14 wheels: gfx908 gfx90a gfx942"));
  // ROCm 7.14 lists Strix Halo (gfx1151) and Gorgon Point (gfx1153).
  CHECK_THAT(cli({"rules", "show", "7.14"}).out, Contains("gfx1151 gfx1153"));
}
