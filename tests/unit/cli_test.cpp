#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <streambuf>

#include "rocdoc/check.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/render.h"
#include "src/commands/build_commit.h"
#include "src/commands/cli.h"
#include "src/commands/command.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"
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

/// A stream buffer that refuses every write as a full disk does.
class FullDisk : public std::streambuf {
 protected:
  int overflow(int) override {
    errno = ENOSPC;
    return traits_type::eof();
  }
  std::streamsize xsputn(const char*, std::streamsize) override {
    errno = ENOSPC;
    return 0;
  }
};

Run cli_to_full_disk(std::vector<std::string> args) {
  args.insert(args.begin(), "rocdoc");
  std::vector<const char*> argv;
  for (const auto& arg : args) {
    argv.push_back(arg.c_str());
  }
  FullDisk full;
  std::ostream out(&full);
  std::ostringstream err;
  const int code =
      run_cli(static_cast<int>(argv.size()), argv.data(), out, err, OutputIsTerminal::no);
  return {code, "", err.str()};
}

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("an unknown check id is exit 2 with a did-you-mean", "[cli]") {
  const Run run = cli({"check", "--root", k_fixture, "--only", "perm.kdf"});
  CHECK(run.code == 2);
  CHECK(run.err == "rocdoc: check --only: unknown check id 'perm.kdf'; did you mean perm.kfd?\n");
  CHECK(
      cli({"check", "--root", k_fixture, "--skip", "zzz.qqqqqqq"}).err.find("rocdoc list-checks") !=
      std::string::npos);
}

TEST_CASE("bad arguments are exit 2", "[cli]") {
  CHECK(cli({"check", "--fail-on", "sometimes"}).code == 2);
  CHECK(cli({"check", "--bogus"}).code == 2);
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
  CHECK(cli({"--version"}).out == std::string("rocdoc ") + ROCDOC_VERSION + " (commit " +
                                      std::string(k_build_commit) + ", rules revision " +
                                      rocdoc::embedded_knowledge().revision + ")\n");
  CHECK(std::string(k_build_commit) != "");
  CHECK(rocdoc::embedded_knowledge().revision == "2026-12-07");
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
  ::unsetenv("COLUMNS");  // a pipe is not wrapped: the reason is on one line
  const Run quiet = cli({"check", "--root", std::string(ROCDOC_FIXTURES_DIR) + "/wsl2"});
  const Run verbose = cli({"check", "--root", std::string(ROCDOC_FIXTURES_DIR) + "/wsl2", "-v"});
  CHECK(quiet.out.find("perm.kfd") == std::string::npos);
  // The reason first, then the id.
  CHECK(
      verbose.out.find(" WSL: the GPU is not reached through amdgpu, /dev/kfd or the PCI bus (see "
                       "os.wsl)  [perm.kfd]\n") != std::string::npos);
}

TEST_CASE("rules lint validates a directory: rules show prints what the base knows",
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
  // A product: the target its PCI id maps to comes first; the engineering samples' after, marked
  // (issue 22, N6).
  const std::string mi300x = cli({"rules", "show", "MI300X"}).out;
  const auto first_block = mi300x.find("\ngfx");
  REQUIRE(first_block != std::string::npos);
  CHECK(mi300x.compare(first_block + 1, 6, "gfx942") == 0);
  CHECK(mi300x.find("(gfx941 below is not what the PCI ids above map to") != std::string::npos);
  // Issue 22, N27: AMD's per-target build, the pip spelling, and what a CUDA build is.
  CHECK_THAT(
      cli({"rules", "show", "gfx1031"}).out,
      Catch::Matchers::Contains("AMD's torch[device-gfx1031] build: torch 2.12.0+rocm7.14.1"));
  // Issue 22: AMD's repo.radeon.com build of one point release, and its release's files.
  CHECK_THAT(cli({"rules", "show", "2.6.0+rocm6.4.1.git1ded221d"}).out,
             Catch::Matchers::Contains(
                 "AMD's wheel files of ROCm 6.4.1 (no index: installed by URL): torchvision "
                 "0.21.0+rocm6.4.1.git4040d51f, torchaudio 2.6.0+rocm6.4.1.gitd8831425, "
                 "Triton 3.2.0+rocm6.4.1.git6da9e660 in "
                 "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/ for CPython 3.10, 3.12"));
  CHECK_THAT(
      cli({"rules", "show", "rocm", "6.4"}).out,
      Catch::Matchers::Contains("AMD wheel files (6.4.1): torch 2.6.0+rocm6.4.1.git1ded221d"));
  CHECK(cli({"rules", "show", "torch==2.7.1"}).out == cli({"rules", "show", "torch", "2.7.1"}).out);
  CHECK_THAT(cli({"rules", "show", "2.12.0+cu130"}).out,
             Catch::Matchers::Contains("a CUDA build: it cannot use an AMD GPU"));
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
  // The APU's name users know, and a revision's product as rocminfo names it (N27, N24).
  CHECK_THAT(cli({"rules", "show", "Ryzen AI MAX+ 395"}).out, StartsWith("gfx1151  (KFD"));
  CHECK_THAT(cli({"rules", "show", "Radeon 8060S Graphics"}).out, Contains("->  gfx1151"));
  CHECK_THAT(cli({"rules", "show", "RX 6750 GRE 12GB"}).out, Contains("1002:73df"));
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
             StartsWith("amdgpu DKMS module 6.19.14 (AMD GPU Driver 31.40): ships with ROCm 7.14"));
  const Run unknown = cli({"rules", "show", "Voodoo 5"});
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.err, Contains("knows nothing called 'Voodoo 5'"));
}

TEST_CASE("rules show says 'newer than these rules' alike for ROCm, torch, driver and HIP",
          "[cli][rules]") {
  const auto newer = [](const std::string& what) {
    return "rocdoc: " + what + " is newer than these rules (revision 2026-12-07): rocdoc knows " +
           "nothing about it yet";
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"rules", "show", "10.2"}, newer("ROCm 10.2") + "\n"},
      {{"rules", "show", "rocm", "12.0"}, newer("ROCm 12.0") + "\n"},
      {{"rules", "show", "torch", "2.15"}, newer("torch 2.15") + "\n"},
      {{"rules", "show", "2.15.0"}, newer("torch 2.15.0") + "\n"},
      // AMD GPU Driver releases (30.x, 31.x) are not ROCm versions.
      {{"rules", "show", "31.60"}, newer("AMD GPU Driver 31.60") + "\n"},
      // A module with its release code is a driver, never ROCm 7.2.
      {{"rules", "show", "7.2.0.32000000"},
       newer("amdgpu driver module 7.2.0.32000000 (AMD GPU Driver 32.0)") + "\n"},
      // HIP 7.17 (ROCm 10.2 previews): between 7.14 and 10.0 only HIP numbers live.
      {{"rules", "show", "7.17"},
       newer("HIP 7.17") + "; 7.17 is no ROCm release (ROCm went from 7.14 to 10.0)\n"},
  };
  for (const auto& [args, err] : cases) {
    INFO(args.back());
    const Run run = cli(args);
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err == err);
  }
  const Run json = cli({"rules", "show", "--json", "31.60"});
  CHECK(json.code == 2);
  CHECK(json.out.empty());  // exit 2 prints nothing on standard output
  CHECK(json.err == newer("AMD GPU Driver 31.60") + "\n");
  // Older than the rules: not "newer", still exit 2.
  const Run old = cli({"rules", "show", "torch", "1.13"});
  CHECK(old.code == 2);
  CHECK(old.err.find("no torch release 1.13") != std::string::npos);
}

TEST_CASE("rules show reads driver releases and HIP numbers for what they are", "[cli][rules]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  const Run package = cli({"rules", "show", "31.40"});
  CHECK(package.code == 0);
  CHECK_THAT(package.out,
             StartsWith("amdgpu DKMS module 6.19.14 (AMD GPU Driver 31.40): ships with ROCm 7.14"));
  CHECK_THAT(cli({"rules", "show", "31.50.0"}).out,
             StartsWith("amdgpu DKMS module 7.1.3 (AMD GPU Driver 31.50): ships with ROCm 10.0"));
  // 7.1.3 is ROCm 10.0's driver module and would be a ROCm 7.1 point release: both said.
  const Run module = cli({"rules", "show", "7.1.3"});
  CHECK_THAT(module.out, StartsWith("(7.1.3 is read as an amdgpu driver module; as a ROCm 7.1 "
                                    "point release ask 'rules show rocm 7.1.3')\n"
                                    "amdgpu DKMS module 7.1.3 (AMD GPU Driver 31.50)"));
  CHECK_THAT(cli({"rules", "show", "rocm", "7.1.3"}).out, StartsWith("ROCm 7.1\n"));
  // HIP 7.15 is ROCm 10.0's.
  const Run hip = cli({"rules", "show", "7.15"});
  CHECK(hip.code == 0);
  CHECK_THAT(hip.out, StartsWith("(7.15 is no ROCm release; HIP 7.15 is ROCm 10.0's (from ROCm "
                                 "10.0 HIP is not numbered as ROCm))\nROCm 10.0\n"
                                 "  HIP version: 7.15 (not the ROCm number)\n"));
  CHECK_THAT(cli({"rules", "show", "10.1"}).out,
             Contains("  no longer built or installed: rocm-smi\n"));
  CHECK_THAT(cli({"rules", "show", "7.2"}).out, Contains("  HIP version: 7.2\n"));
}

TEST_CASE("every product name of AMD's gpus.yaml finds its target", "[cli][rules]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  // The audit's misses (kb-audit-2026-12 M6) and APUs by their processor names.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"Radeon AI PRO R9700S", "gfx1201"},
      {"R9600D", "gfx1201"},
      {"RX 9060 XT LP", "gfx1200"},
      {"RX 9050 (4GB)", "gfx1200"},
      {"RX 9050", "gfx1200"},
      {"RX 7700", "gfx1101"},
      {"Radeon 8065S", "gfx1151"},
      {"Ryzen AI Max+ PRO 495", "gfx1151"},
      {"MI350P", "gfx950"},
      {"Ryzen AI 9 HX 370", "gfx1150"},
      {"Ryzen AI 5 330", "gfx1152"},
      {"Ryzen AI 7 445", "gfx1153"},
      {"Ryzen 5 PRO 215", "gfx1103"}};
  // The first target block is the product's own (PCI id lines may come before it).
  const auto first_target = [](const std::string& out) {
    const std::size_t kfd = out.find("  (KFD");
    const std::size_t line = kfd == std::string::npos ? 0 : out.rfind('\n', kfd);
    return kfd == std::string::npos ? std::string()
                                    : out.substr(line == std::string::npos ? 0 : line + 1,
                                                 kfd - (line == std::string::npos ? 0 : line + 1));
  };
  for (const auto& [name, target] : names) {
    INFO(name);
    const Run run = cli({"rules", "show", name});
    CHECK(run.code == 0);
    CHECK(first_target(run.out) == target);
  }
  // RX 7700 is not the RX 7700 XT only: the name of its own.
  CHECK_THAT(cli({"rules", "show", "gfx1101"}).out, Contains("Radeon RX 7700 XT, Radeon PRO W7700, "
                                                             "Radeon PRO V710, Radeon RX 7700\n"));
  CHECK_THAT(cli({"rules", "show", "gfx1150"}).out,
             Contains("  in processors: Ryzen AI 9 HX PRO 475"));
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

TEST_CASE("a report that cannot be written is exit 2, whatever the findings", "[cli][write]") {
  const std::string full = "rocdoc: cannot write the report: No space left on device\n";
  const std::string relogin = std::string(ROCDOC_FIXTURES_DIR) + "/user-needs-relogin";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"check", "--root", k_fixture},
                                             {"check", "--root", k_fixture, "--json"},
                                             {"check", "--root", relogin},  // exit 1 when written
                                             {"rules", "show", "gfx1100"},
                                             {"list-checks"},
                                             {"list-checks", "--json"},
                                             {"--help"},
                                             {"--version"}}) {
    INFO(args.front() << " " << args.back());
    const Run run = cli_to_full_disk(args);
    CHECK(run.code == 2);
    CHECK(run.err == full);
  }
}

TEST_CASE("report files of --output --json-output --junit: one not written is exit 2",
          "[cli][write]") {
  test::TempSnapshot dir;
  const std::string human = dir.dir() + "/report.txt";
  const std::string json = dir.dir() + "/report.json";
  const std::string junit = dir.dir() + "/report.xml";
  const Run run = cli(
      {"check", "--root", k_fixture, "--output", human, "--json-output", json, "--junit", junit});
  CHECK(run.code == 0);
  CHECK(run.out.empty());
  CHECK(read_file(human).find("No issues found") != std::string::npos);
  CHECK(nlohmann::json::parse(read_file(json))["verdict"] == "pass");
  CHECK(read_file(junit).find("<testsuite name=\"rocdoc\"") != std::string::npos);

  const Run both = cli({"check", "--root", k_fixture, "--json-output", json});
  CHECK(both.out.find("No issues found") != std::string::npos);  // the human report stays

  const Run json_file = cli({"check", "--root", k_fixture, "--json", "--output", json});
  CHECK(json_file.out.empty());
  CHECK(nlohmann::json::parse(read_file(json))["schema"] == "rocdoc-report/1");

  const Run full = cli({"check", "--root", k_fixture, "--junit", "/dev/full"});
  CHECK(full.code == 2);
  CHECK(full.out.empty());  // exit 2 prints nothing on standard output
  CHECK(full.err == "rocdoc: cannot write the report: /dev/full: No space left on device\n");
  const Run missing = cli({"check", "--root", k_fixture, "--output", dir.dir() + "/no/such"});
  CHECK(missing.code == 2);
  CHECK(missing.err ==
        "rocdoc: cannot write the report: " + dir.dir() + "/no/such: No such file or directory\n");
  const Run same = cli({"check", "--root", k_fixture, "--output", human, "--junit", human});
  CHECK(same.code == 2);
  CHECK(same.err == "rocdoc: check --junit: " + human +
                        " is already the file of --output\nRun 'rocdoc check --help' for usage.\n");
}

TEST_CASE("a check named with --require that did not run is exit 1 and verdict unchecked",
          "[cli]") {
  using Catch::Matchers::Contains;
  const std::string healthy = std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy";
  // shm.small skips outside a container: required, it makes the run exit 1.
  const Run skipped = cli({"check", "--root", healthy, "--require", "shm.small"});
  CHECK(skipped.code == 1);
  CHECK_THAT(
      skipped.out,
      Contains(
          "required check shm.small did not run: not in a container, and fewer than two GPUs\n"));
  // The summary line says it too, instead of "No issues found" beside exit 1 (issue 22, N10).
  CHECK_THAT(skipped.out, Contains("Not checked: 1 required check did not run (not in a container, "
                                   "and fewer than two GPUs)"));
  CHECK_THAT(skipped.out, !Contains("No issues found"));
  const Run ran = cli({"check", "--root", healthy, "--require", "perm.kfd,arch.*", "--json"});
  CHECK(ran.code == 0);
  const auto report = nlohmann::json::parse(ran.out);
  CHECK(report["verdict"] == "pass");
  CHECK(report["exit_code"] == 0);
  CHECK(report["require"] == nlohmann::json::array({"arch.override-mixed", "arch.override-unneeded",
                                                    "arch.override-wrong", "arch.unsupported",
                                                    "perm.kfd"}));  // arch.*: every arch check
  const Run left_out =
      cli({"check", "--root", healthy, "--only", "perm.kfd", "--require", "perm.render", "--json"});
  CHECK(left_out.code == 1);
  const auto unchecked = nlohmann::json::parse(left_out.out);
  CHECK(unchecked["verdict"] == "unchecked");
  CHECK(unchecked["exit_code"] == 1);
  CHECK(unchecked["require"] == nlohmann::json::array({"perm.render"}));
  const Run unknown = cli({"check", "--root", healthy, "--require", "torch.cuda-whel"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err ==
        "rocdoc: check --require: unknown check id 'torch.cuda-whel'; did you mean "
        "torch.cuda-wheel?\n");
}

TEST_CASE("areas select checks in --only --skip --require (torch dot star)", "[cli]") {
  const Run only = cli({"check", "--root", k_fixture, "--only", "perm.*", "--json"});
  CHECK(only.code == 0);
  const auto report = nlohmann::json::parse(only.out);
  std::set<std::string> ids;
  for (const auto& check : report["checks"]) {
    ids.insert(check["id"].get<std::string>());
  }
  CHECK(ids ==
        std::set<std::string>{"perm.kfd", "perm.render", "perm.relogin", "perm.container-groups"});
  const Run skip = cli({"check", "--root", k_fixture, "--skip", "perm.*,torch.*", "--json"});
  const auto skipped = nlohmann::json::parse(skip.out);  // kept: the loop reads inside it
  for (const auto& check : skipped["checks"]) {
    const std::string id = check["id"];
    CHECK(id.rfind("perm.", 0) != 0);
    CHECK(id.rfind("torch.", 0) != 0);
  }
  const Run unknown = cli({"check", "--root", k_fixture, "--only", "trch.*"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err == "rocdoc: check --only: unknown area 'trch.*'; did you mean torch.*?\n");
  const Run far = cli({"check", "--root", k_fixture, "--skip", "zzzzzz.*"});
  CHECK(far.code == 2);
  CHECK(far.err.find("the areas are apu.*, arch.*, code.*, driver.*") != std::string::npos);
  CHECK(cli({"check", "--only", "torch"}).err ==
        "rocdoc: check --only: unknown check id 'torch'; did you mean torch.* (every torch "
        "check)?\n");
  // A report heading selects what the report files under it, rocm.agents included (N30).
  const Run heading = cli({"check", "--root", k_fixture, "--only", "kernel driver", "--json"});
  CHECK(heading.code == 0);
  std::set<std::string> driver;
  const auto filed = nlohmann::json::parse(heading.out);  // kept: the loop reads inside it
  for (const auto& check : filed["checks"]) {
    driver.insert(check["id"].get<std::string>());
  }
  CHECK(driver.count("rocm.agents") == 1);
  CHECK(driver.count("driver.kfd-missing") == 1);
  CHECK(driver.count("perm.kfd") == 0);
}

TEST_CASE("list-checks prints aligned columns and JSON with --json", "[cli]") {
  const Run list = cli({"list-checks"});
  CHECK(list.code == 0);
  // Two spaces at least between every column: the area never runs into the title.
  CHECK(list.out.find("wsl.torch-bundled-runtime  error    WSL") != std::string::npos);
  CHECK(list.out.find("Environment variables  Visible devices exist") != std::string::npos);
  const Run json = cli({"list-checks", "--json"});
  CHECK(json.code == 0);
  const auto checks = nlohmann::json::parse(json.out);
  CHECK(checks.size() == check_table().size());
  CHECK(checks[0] == nlohmann::json({{"id", "gpu.none"},
                                     {"area", "Hardware and PCI"},
                                     {"title", "AMD GPU present"},
                                     {"severity", "error"},
                                     {"scope", "bare_metal"},
                                     {"needs", {"pci", "kfd_topology"}}}));
}

TEST_CASE("rocdoc alone runs check and takes check's options", "[cli]") {
  const Run alone = cli({"--root", k_fixture});
  CHECK(alone.code == 0);
  CHECK(alone.out == cli({"check", "--root", k_fixture}).out);
  CHECK(alone.out.find("No issues found") != std::string::npos);
  const Run json = cli({"--json", "--root", k_fixture});
  CHECK(json.code == 0);
  CHECK(nlohmann::json::parse(json.out)["schema"] == "rocdoc-report/1");
  const std::string wsl2 = std::string(ROCDOC_FIXTURES_DIR) + "/wsl2";
  const Run verbose = cli({"-v", "--root", wsl2});
  CHECK(verbose.out == cli({"check", "-v", "--root", wsl2}).out);
  CHECK(verbose.out != cli({"check", "--root", wsl2}).out);
  const Run bare = cli({});
  CHECK((bare.code == 0 || bare.code == 1));  // this machine's report
  CHECK(bare.out.find("rocdoc ") == 0);
}

TEST_CASE("help is wrapped at the terminal's width, options in groups", "[cli]") {
  // Issue 22, N14: descriptions ran past an 80-column terminal and cut words at column 0.
  const char* argv[] = {"rocdoc", "check", "--help"};
  std::ostringstream out, err;
  REQUIRE(run_cli(3, argv, out, err, OutputIsTerminal::yes, std::size_t{80}) == 0);
  const std::string help = out.str();
  std::size_t longest = 0;
  for (const auto line : util::split(help, '\n')) {
    // A line may exceed the width only where one word (a URL, an option list) does.
    if (line.find(' ', line.find_first_not_of(' ')) != std::string_view::npos) {
      longest = std::max(longest, text::display_width(line));
    }
  }
  CHECK(longest <= 80);
  CHECK_THAT(help, Catch::Matchers::Contains("What to read:"));
  CHECK_THAT(help, Catch::Matchers::Contains("Without the GPU (GPU-less mode):"));
  CHECK_THAT(help, Catch::Matchers::Contains("Which checks, and what fails:"));
  CHECK_THAT(help, Catch::Matchers::Contains("Output:"));
  // --format's description continues under its own column, not at column 0.
  const auto format = help.find("  --format FORMAT");
  REQUIRE(format != std::string::npos);
  const auto next = help.find('\n', format);
  CHECK(help.compare(next + 1, 30, std::string(30, ' ')) == 0);
  // Not a terminal (a pipe, a file): CLI11's own layout, unwrapped.
  CHECK(cli({"check", "--help"}).out.find("What to read:") != std::string::npos);
}

TEST_CASE("help help is rocdoc's help, not an unknown command", "[cli]") {
  const Run help = cli({"help", "help"});  // issue 22, N29: was "did you mean help?"
  CHECK(help.code == 0);
  CHECK(help.out == cli({"--help"}).out);
}

TEST_CASE("help and version work: unknown commands and options get a did-you-mean", "[cli]") {
  const std::string version = std::string("rocdoc ") + ROCDOC_VERSION + " (commit " +
                              std::string(k_build_commit) + ", rules revision " +
                              rocdoc::embedded_knowledge().revision + ")\n";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"version"}, {"-V"}, {"--version"}}) {
    const Run run = cli(args);
    CHECK(run.code == 0);
    CHECK(run.out == version);
  }
  const Run help = cli({"help"});
  CHECK(help.code == 0);
  CHECK(help.out == cli({"--help"}).out);
  CHECK(help.out.find("Usage: rocdoc [OPTIONS] SUBCOMMAND") != std::string::npos);
  const Run help_check = cli({"help", "check"});
  CHECK(help_check.code == 0);
  CHECK(help_check.out == cli({"check", "--help"}).out);
  CHECK(help_check.out.find("Usage: rocdoc check [OPTIONS]") != std::string::npos);
  CHECK(help_check.out.find("--require") != std::string::npos);
  CHECK(cli({"help", "rules", "lint"}).out.find("Usage: rocdoc rules lint [OPTIONS] [DIR]") !=
        std::string::npos);

  const Run chek = cli({"chek"});
  CHECK(chek.code == 2);
  CHECK(chek.out.empty());
  CHECK(chek.err ==
        "rocdoc: unknown command 'chek'; did you mean check?\nRun 'rocdoc --help' for usage.\n");
  CHECK(
      cli({"targts"}).err ==
      "rocdoc: unknown command 'targts'; did you mean targets?\nRun 'rocdoc --help' for usage.\n");
  CHECK(cli({"targets"}).err ==
        "rocdoc: targets: name at least one file (a HIP binary such as "
        "torch/lib/libtorch_hip.so, or a rocblas/library directory)\nRun 'rocdoc targets --help' "
        "for usage.\n");
  CHECK(cli({"frobnicate"}).err ==
        "rocdoc: unknown command 'frobnicate'; the commands are check, rules lint, rules show, "
        "snapshot, triage, scan, targets, fleet, topology, list-checks, explain, completions, help "
        "and "
        "version\nRun 'rocdoc --help' for usage.\n");
  CHECK(cli({"completions", "tcsh"}).err ==
        "rocdoc: completions: unknown shell 'tcsh'; rocdoc completes bash, zsh and fish\nRun "
        "'rocdoc completions --help' for usage.\n");
  CHECK(cli({"completions", "bash"}).out.find("complete -F _rocdoc rocdoc") != std::string::npos);
  CHECK(cli({"rules", "lnt"}).err ==
        "rocdoc: rules: unknown command 'lnt'; did you mean lint?\n"
        "Run 'rocdoc rules --help' for usage.\n");
  CHECK(cli({"check", "--jsn"}).err ==
        "rocdoc: check: unknown option --jsn; did you mean --json?\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"--no-colour"}).err ==
        "rocdoc: check: unknown option --no-colour; did you mean --no-color?\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"list-checks", "extra"}).err ==
        "rocdoc: list-checks: unexpected argument 'extra'\n"
        "Run 'rocdoc list-checks --help' for usage.\n");
}

TEST_CASE("argument errors are one line in rocdoc's words, then the command's help", "[cli]") {
  CHECK(cli({"rules", "show"}).err ==
        "rocdoc: rules show: say what to show (a gfx target, PCI id, product name, torch or ROCm "
        "version)\nRun 'rocdoc rules show --help' for usage.\n");
  CHECK(cli({"rules", "lint", "/nonexistent"}).err ==
        "rocdoc: rules lint: /nonexistent: no such directory\n"
        "Run 'rocdoc rules lint --help' for usage.\n");
  CHECK(cli({"check", "--fail-on"}).err ==
        "rocdoc: check --fail-on: needs a value: error, warning or never\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"check", "--fail-on", "warn"}).err ==
        "rocdoc: check --fail-on: 'warn' is not error, warning or never; did you mean warning?\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"check", "--root", "/etc/passwd"}).err ==
        "rocdoc: check --root: /etc/passwd: not a directory\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"check", "--only"}).err ==
        "rocdoc: check --only: needs a value: check ids or areas (perm.kfd,torch.*)\n"
        "Run 'rocdoc check --help' for usage.\n");
  CHECK(cli({"rules"}).err ==
        "rocdoc: rules: needs a command: lint or show\nRun 'rocdoc rules --help' for usage.\n");
  CHECK(cli({"--json=foo"}).err ==
        "rocdoc: check --json: takes no value\nRun 'rocdoc check --help' for usage.\n");
  CHECK(cli({"check", "-x"}).err ==
        "rocdoc: check: unknown option -x\nRun 'rocdoc check --help' for usage.\n");
  CHECK(cli({"--json", "check"}).err ==
        "rocdoc: check: unexpected argument 'check' (the command comes first: rocdoc check "
        "[OPTIONS])\nRun 'rocdoc check --help' for usage.\n");
  // A value given twice: the last one counts, as in most tools.
  CHECK(cli({"check", "--root", k_fixture, "--fail-on", "bogus", "--fail-on", "never"}).code == 0);
  // Each command's help lists its own exit codes.
  CHECK(cli({"rules", "lint", "--help"}).out.find("0  the rules are valid") != std::string::npos);
  CHECK(cli({"rules", "lint", "--help"}).out.find("--fail-on") == std::string::npos);
  CHECK(cli({"list-checks", "--help"}).out.find("0  the list was printed") != std::string::npos);
  CHECK(cli({"rules", "show", "--help"}).out.find("2  it knows nothing of that name") !=
        std::string::npos);
}

TEST_CASE("rules lint and check --rules refuse a directory without rules files", "[cli][rules]") {
  test::TempSnapshot empty;
  const Run lint = cli({"rules", "lint", empty.root()});
  CHECK(lint.code == 2);
  CHECK(lint.out.empty());
  CHECK(lint.err.find("rocdoc: invalid rules: " + empty.root() + ":0:0: no rules files here") == 0);
  CHECK(cli({"rules", "lint", "/etc"}).code == 2);
  CHECK(cli({"check", "--root", k_fixture, "--rules", empty.root()}).code == 2);
}

TEST_CASE("JUnit escapes what XML cannot hold: its failures follow --fail-on", "[cli][junit]") {
  CheckInfo kfd{};
  kfd.id = "perm.kfd";
  CheckInfo pcie{};
  pcie.id = "pcie.link-degraded";
  Report report;
  report.created = "2026-12-01T17:57:08Z";
  CheckResult failed;
  failed.status = Status::fail;
  failed.severity = Severity::error;
  failed.message = "a\x01<&>\"'\xff\xef\xbf\xbe\x1b[2J]]>";
  failed.fix.push_back({"Add the flag", "--group-add 110", false, FixKind::container_flag});
  CheckResult warned;
  warned.status = Status::warn;
  warned.severity = Severity::warning;
  warned.message = "x8 of x16";
  report.checks.push_back({&kfd, failed});
  report.checks.push_back({&pcie, warned});
  report.outcome = judge(report, FailOn::error);
  std::ostringstream out;
  render_junit(report, out);
  const std::string xml = out.str();
  CHECK(std::none_of(xml.begin(), xml.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == '\x7f';
  }));
  CHECK(xml.find("message=\"a\\x01&lt;&amp;&gt;&quot;&apos;\\xff\\ufffe\\x1b[2J]]&gt;\" "
                 "type=\"error\"") != std::string::npos);
  CHECK(xml.find("container flag: --group-add 110") != std::string::npos);
  CHECK(xml.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" "
                 "timestamp=\"2026-12-01T17:57:08\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"rocdoc.pcie\" name=\"pcie.link-degraded\"><system-out>"
                 "warning, not a failure under --fail-on error: x8 of x16") != std::string::npos);
  report.outcome = judge(report, FailOn::warning);
  std::ostringstream strict;
  render_junit(report, strict);
  CHECK(strict.str().find("failures=\"2\"") != std::string::npos);
  CHECK(strict.str().find("<failure message=\"x8 of x16\" type=\"warning\">") != std::string::npos);
}

TEST_CASE("Every row of the table of commands has its help, its man page entry and completions") {
  std::ifstream man_file(std::string(ROCDOC_SOURCE_DIR) + "/docs/rocdoc.1.md");
  const std::string man((std::istreambuf_iterator<char>(man_file)),
                        std::istreambuf_iterator<char>());
  REQUIRE(man.find("# COMMANDS") != std::string::npos);
  const std::string top_help = cli({"--help"}).out;
  const std::string bash = cli({"completions", "bash"}).out;
  REQUIRE_FALSE(command_table().empty());
  for (const Command& command : command_table()) {
    const std::string name(command.name);
    INFO(name);
    CHECK(top_help.find("  " + name + " ") != std::string::npos);
    CHECK(top_help.find(std::string(command.summary)) != std::string::npos);
    CHECK(bash.find(name) != std::string::npos);
    std::vector<std::string> words;
    if (command.subcommands.empty()) {
      words.push_back(name);
    }
    for (const std::string_view sub : command.subcommands) {
      words.push_back(name + " " + std::string(sub));
    }
    for (const auto& word : words) {
      INFO(word);
      // The SYNOPSIS line and the entry under COMMANDS of docs/rocdoc.1.md.
      CHECK(man.find("**rocdoc " + word + "**") != std::string::npos);
      CHECK(man.find("\n**" + word + "**") != std::string::npos);
      std::vector<std::string> args;
      const auto space = word.find(' ');
      args.push_back(word.substr(0, space));
      if (space != std::string::npos) {
        args.push_back(word.substr(space + 1));
      }
      args.emplace_back("--help");
      const Run help = cli(args);
      CHECK(help.code == 0);
      CHECK(help.out.find("Usage: rocdoc " + word) != std::string::npos);
      CHECK(help.out.find("Exit codes") != std::string::npos);
    }
  }
  CHECK(find_command("check") == &command_table().front());
  CHECK(find_command("chek") == nullptr);
}
