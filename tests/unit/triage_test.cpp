// rocdoc triage: the log parser on plain strings, the judging against `rocdoc check`, the rules.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "src/hosts/snapshot.h"
#include "src/triage/scan.h"

using namespace rocdoc;

namespace {

const Knowledge& knowledge() {
  static const Knowledge embedded = load_embedded_knowledge();
  return embedded;
}

const SignatureHit* hit(const LogScan& scan, const std::string& id) {
  for (const auto& h : scan.hits) {
    if (h.signature->id == id) {
      return &h;
    }
  }
  return nullptr;
}

const TriageFinding* finding(const TriageReport& report, const std::string& check) {
  for (const auto& f : report.findings) {
    if (f.check == check) {
      return &f;
    }
  }
  return nullptr;
}

std::vector<std::string> commands(const std::vector<Fix>& fixes) {
  std::vector<std::string> out;
  for (const auto& fix : fixes) {
    out.push_back(fix.description + " | " + fix.command);
  }
  return out;
}

RulesError triage_rules_error(const std::string& triage) {
  std::vector<RuleText> files;
  for (const auto& embedded : embedded_rule_files()) {
    if (embedded.name != "triage.yaml") {
      files.push_back({std::string(embedded.name), std::string(embedded.content)});
    }
  }
  files.push_back({"triage.yaml", triage});
  try {
    const Knowledge loaded = load_knowledge(files, "test");
    check_triage_signatures(loaded);
  } catch (const RulesError& error) {
    return error;
  }
  FAIL("the triage rules loaded although they are invalid");
  return RulesError("", 0, 0, "");
}

}  // namespace

TEST_CASE("triage matches signatures as plain text without regard to case", "[triage]") {
  const LogScan scan = scan_log(
      "ROCk module is loaded\r\n"
      "unable to open /DEV/KFD read-write: cannot ALLOCATE memory\r\n"
      "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed\n",
      knowledge());
  CHECK(scan.lines == 3);
  const SignatureHit* enomem = hit(scan, "kfd-enomem");
  REQUIRE(enomem != nullptr);
  REQUIRE(enomem->lines.size() == 1);
  CHECK(enomem->lines[0].number == 2);
  CHECK(enomem->lines[0].text == "unable to open /DEV/KFD read-write: cannot ALLOCATE memory");
  REQUIRE(hit(scan, "hsa-out-of-resources") != nullptr);
  CHECK(hit(scan, "hsa-out-of-resources")->lines[0].number == 3);
}

TEST_CASE("triage signatures with `with` need every word on the same line", "[triage]") {
  CHECK(hit(scan_log("undefined symbol: _ZN3c10\n", knowledge()), "torchvision-undefined-symbol") ==
        nullptr);
  CHECK(hit(scan_log("ImportError: /x/torchvision/_C.so: undefined symbol: _ZN3c10\n", knowledge()),
            "torchvision-undefined-symbol") != nullptr);
  CHECK(hit(scan_log("rocBLAS error: Cannot read TensileLibrary.dat\n", knowledge()),
            "tensile-library-missing") != nullptr);
  CHECK(hit(scan_log("TensileLibrary.dat found\n", knowledge()), "tensile-library-missing") ==
        nullptr);
}

TEST_CASE("triage finds the GPU's gfx target but not lists of compiled targets", "[triage]") {
  const LogScan scan = scan_log(
      "  Name:                    gfx1031\n"
      "      Name:                    amdgcn-amd-amdhsa--gfx1031\n"
      "\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx908.dat\"\n"
      "torch.cuda.get_arch_list(): ['gfx900', 'gfx906', 'gfx90a', 'gfx1030']\n"
      "arch gfx1100xyz and xgfx1101 are not names\n"
      "Cannot read TensileLibrary.dat: Illegal seek for GPU arch : gfx1201\n",
      knowledge());
  REQUIRE(scan.facts.gfx_targets.size() == 2);
  CHECK(scan.facts.gfx_targets[0].value == "gfx1031");
  CHECK(scan.facts.gfx_targets[0].line == 1);
  CHECK(scan.facts.gfx_targets[1].value == "gfx1201");
  CHECK(scan.facts.gfx_targets[1].line == 6);
}

TEST_CASE("triage turns an AMD PCI id in a kernel line into the GPU", "[triage]") {
  const LogScan scan =
      scan_log("[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics\n",
               knowledge());
  REQUIRE(scan.facts.gfx_targets.size() == 1);
  CHECK(scan.facts.gfx_targets[0].value == "gfx803");
  REQUIRE(hit(scan, "pcie-atomics-rejected") != nullptr);
}

TEST_CASE("triage reads torch, its build and its companions from collect_env and pip", "[triage]") {
  SECTION("collect_env of a CUDA build") {
    const LogScan scan = scan_log(
        "PyTorch version: 2.1.0+cu121\n"
        "CUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n"
        "[pip3] torchvision==0.16.0+cu121\n",
        knowledge());
    REQUIRE(scan.facts.torch);
    CHECK(scan.facts.torch->value == "2.1.0+cu121");
    CHECK(scan.facts.torch->line == 1);
    CHECK(scan.facts.torch_build == TorchBuild::cuda);
    REQUIRE(scan.facts.torchvision);
    CHECK(scan.facts.torchvision->value == "0.16.0+cu121");
    CHECK(scan.facts.torchvision->line == 4);
  }
  SECTION("collect_env without a local tag: the build lines decide") {
    const LogScan scan = scan_log(
        "PyTorch version: 2.5.1\n"
        "CUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: 6.2.41133-dd7f95766\n",
        knowledge());
    CHECK(scan.facts.torch_build == TorchBuild::rocm);
    REQUIRE(scan.facts.rocm);
    CHECK(scan.facts.rocm->value == "6.2.41133-dd7f95766");
  }
  SECTION("pip's Requirement already satisfied, with the environment's path") {
    const LogScan scan = scan_log(
        "Requirement already satisfied: torch in /opt/conda/envs/ldm/lib/python3.8/site-packages "
        "(1.12.1+rocm5.1.1)\n",
        knowledge());
    REQUIRE(scan.facts.torch);
    CHECK(scan.facts.torch->value == "1.12.1+rocm5.1.1");
    CHECK(scan.facts.torch_build == TorchBuild::rocm);
  }
  SECTION("uv's + lines and pip list columns") {
    const LogScan scan = scan_log(
        " + torch==2.10.0+rocm7.14.0a20260520\n"
        "torchaudio                2.11.0+rocm7.14.0a20260520\n",
        knowledge());
    CHECK(scan.facts.torch->value == "2.10.0+rocm7.14.0a20260520");
    CHECK(scan.facts.torchaudio->value == "2.11.0+rocm7.14.0a20260520");
  }
  SECTION("a traceback path gives the site-packages directory") {
    const LogScan scan = scan_log(
        "  File \"/home/alice/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", "
        "line 302\n",
        knowledge());
    REQUIRE(scan.facts.site_packages);
    CHECK(scan.facts.site_packages->value == "/home/alice/venv/lib/python3.10/site-packages");
  }
  SECTION("a path longer than a fact may be is not kept, rather than cut to a wrong one") {
    const std::string line =
        "  File \"/" + std::string(1500, 'a') + "/site-packages/torch/__init__.py\", line 1\n";
    const LogScan scan = scan_log(line, knowledge());
    CHECK_FALSE(scan.facts.site_packages);
  }
}

TEST_CASE("triage reads HSA_OVERRIDE_GFX_VERSION in its usual spellings", "[triage]") {
  const LogScan scan = scan_log(
      "export HSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n"
      "env=\"map[HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION:11.0.0 OLLAMA_DEBUG:INFO]\"\n"
      "HSA_OVERRIDE_GFX_VERSION_1=9.0.10 python3 x.py\n"
      "HSA_OVERRIDE_GFX_VERSION: OLLAMA_HOST:x\n"
      "HSA_OVERRIDE_GFX_VERSION 11.0 is invalid\n",
      knowledge());
  REQUIRE(scan.facts.overrides.size() == 4);
  CHECK(scan.facts.overrides[0].name == "HSA_OVERRIDE_GFX_VERSION");
  CHECK(scan.facts.overrides[0].value == "10.3.0");
  CHECK(scan.facts.overrides[1].value == "11.0.0");
  CHECK(scan.facts.overrides[1].line == 2);
  CHECK(scan.facts.overrides[2].name == "HSA_OVERRIDE_GFX_VERSION_1");
  CHECK(scan.facts.overrides[2].value == "9.0.10");
  CHECK(scan.facts.overrides[3].value == "11.0");
  CHECK(hit(scan, "override-invalid") != nullptr);
}

TEST_CASE("override-invalid: libhsakmt's and rocm_agent_enumerator's refusals, and only those",
          "[triage]") {
  for (const char* line : {"HSA_OVERRIDE_GFX_VERSION 11.0 is invalid",
                           "Invalid HSA_OVERRIDE_GFX_VERSION format expected \"1.2.3\"",
                           "Invalid HSA_OVERRIDE_GFX_VERSION value"}) {
    INFO(line);
    const LogScan scan = scan_log(line, knowledge());
    const auto* found = hit(scan, "override-invalid");
    REQUIRE(found != nullptr);
    CHECK(found->signature->check == "arch.override-wrong");
  }
  for (const char* line : {"export HSA_OVERRIDE_GFX_VERSION=10.3.0",
                           "HSA_OVERRIDE_GFX_VERSION=\"\" /opt/rocm/bin/rocm_agent_enumerator"}) {
    INFO(line);
    CHECK(hit(scan_log(line, knowledge()), "override-invalid") == nullptr);
  }
}

TEST_CASE("triage cuts long lines and quotes hostile bytes printably", "[triage]") {
  const std::string long_line = std::string(k_max_triage_line, 'a') + "hipErrorNoBinaryForGpu\n";
  const LogScan cut = scan_log(long_line + "invalid device function\n", knowledge());
  CHECK(cut.cut_lines == 1);
  CHECK(hit(cut, "hip-no-binary-for-gpu") == nullptr);  // beyond the cap: not read
  REQUIRE(hit(cut, "invalid-device-function") != nullptr);
  CHECK(hit(cut, "invalid-device-function")->lines[0].number == 2);

  const LogScan hostile =
      scan_log(std::string("\x1b[31mhipErrorNoBinaryForGpu\xff\x07\n"), knowledge());
  REQUIRE(hit(hostile, "hip-no-binary-for-gpu") != nullptr);
  CHECK(hit(hostile, "hip-no-binary-for-gpu")->lines[0].text ==
        "\\x1b[31mhipErrorNoBinaryForGpu\\xff\\x07");
}

TEST_CASE("triage of an empty log and of a log without signatures", "[triage]") {
  const TriageReport empty = triage_log("", knowledge());
  CHECK(empty.scan.lines == 0);
  CHECK(empty.findings.empty());
  CHECK(triage_exit_code(empty, FailOn::error) == 0);
  const TriageReport plain = triage_log("hello\nworld\n", knowledge());
  CHECK(plain.findings.empty());
}

TEST_CASE("triage gives check's own fix for the GPU and torch of the log", "[triage]") {
  // The fixture's machine: gfx1031 with torch 2.6.0+rocm6.2.4 in /home/alice/venv.
  const SnapshotHost host(std::string(ROCDOC_FIXTURES_DIR) + "/rx6700xt-no-override");
  const Report check = run_report(host, knowledge(), {});
  const CheckRecord* record = nullptr;
  for (const auto& r : check.checks) {
    if (r.info->id == "arch.unsupported") {
      record = &r;
    }
  }
  REQUIRE(record != nullptr);
  REQUIRE(record->result.status == Status::fail);

  const TriageReport report = triage_log(
      "  Name:                    gfx1031\n"
      "  File \"/home/alice/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 9\n"
      "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n"
      "[pip3] torch==2.6.0+rocm6.2.4\n",
      knowledge());
  const TriageFinding* found = finding(report, "arch.unsupported");
  REQUIRE(found != nullptr);
  CHECK(found->status == Status::fail);
  CHECK(found->fix_from_facts);
  CHECK(found->signatures == std::vector<std::string>{"hip-no-binary-for-gpu"});
  CHECK(commands(found->fix) == commands(record->result.fix));
  CHECK(found->fix_order == record->result.fix_order);
  std::vector<std::size_t> numbers;
  for (const auto& line : found->lines) {
    numbers.push_back(line.number);
  }
  CHECK(numbers == std::vector<std::size_t>{1, 2, 3, 4});
  CHECK(triage_exit_code(report, FailOn::error) == 1);
}

TEST_CASE("triage without the facts falls back to the rules' fix", "[triage]") {
  const TriageReport report = triage_log("hipErrorNoBinaryForGpu\n", knowledge());
  const TriageFinding* found = finding(report, "arch.unsupported");
  REQUIRE(found != nullptr);
  CHECK_FALSE(found->fix_from_facts);
  REQUIRE_FALSE(found->fix.empty());
  CHECK(found->fix[0].command.empty());
}

TEST_CASE("triage judges a CUDA torch on an AMD GPU as check does", "[triage]") {
  const TriageReport report = triage_log(
      "PyTorch version: 2.1.0+cu121\n"
      "CUDA used to build PyTorch: 12.1\n"
      "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n",
      knowledge());
  const TriageFinding* found = finding(report, "torch.cuda-wheel");
  REQUIRE(found != nullptr);
  CHECK(found->status == Status::fail);
  CHECK(found->signatures.empty());
  CHECK(found->fix_from_facts);
  REQUIRE(found->fix.size() >= 2);
  CHECK(found->fix[0].command == "python3 -m pip uninstall -y torch torchvision torchaudio");
  CHECK(found->fix[1].command.find("--index-url https://download.pytorch.org/whl/rocm") !=
        std::string::npos);
}

TEST_CASE("triage exit codes follow --fail-on", "[triage]") {
  const TriageReport warning =
      triage_log("[ 35.1] amdgpu 0000:03:00.0: amdgpu: ring comp_1.1.0 timeout, signaled seq=7\n",
                 knowledge());
  REQUIRE(finding(warning, "driver.gpu-faults") != nullptr);
  CHECK(finding(warning, "driver.gpu-faults")->status == Status::warn);
  CHECK(triage_exit_code(warning, FailOn::error) == 0);
  CHECK(triage_exit_code(warning, FailOn::warning) == 1);
  CHECK(triage_exit_code(warning, FailOn::never) == 0);
}

TEST_CASE("the embedded triage signatures name existing checks and have sources", "[triage]") {
  REQUIRE(knowledge().triage_signatures.size() >= 80);  // issue 27: at least 80
  for (const auto& signature : knowledge().triage_signatures) {
    INFO(signature.id);
    CHECK(find_check(signature.check) != nullptr);
    CHECK_FALSE(signature.source.empty());
  }
  CHECK_NOTHROW(check_triage_signatures(knowledge()));
}

TEST_CASE("triage.yaml mistakes are refused with file:line:column", "[triage][knowledge]") {
  const std::string head = "signatures:\n  - id: x-y\n";
  SECTION("a check id that is not one") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"abcd\"]\n    check: Arch\n    severity: error\n    message: m\n"
        "    source: s\n");
    CHECK(error.file() == "triage.yaml");
    CHECK(error.line() == 4);
  }
  SECTION("a check id the check table lacks") {
    const RulesError error =
        triage_rules_error(head +
                           "    match: [\"abcd\"]\n    check: arch.nothing\n    severity: error\n"
                           "    message: m\n    source: s\n");
    CHECK(std::string(error.what()).find("arch.nothing") != std::string::npos);
  }
  SECTION("a match string too short to mean anything") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"ab\"]\n    check: perm.kfd\n    severity: error\n    message: m\n"
        "    source: s\n");
    CHECK(error.line() == 3);
  }
  SECTION("an order of fixes for fewer than two fixes") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"abcd\"]\n    check: perm.kfd\n    severity: error\n    message: m\n"
        "    fixes:\n      - description: d\n    fix_order: alternatives\n    source: s\n");
    CHECK(error.line() == 9);
    CHECK(std::string(error.what()).find("at least two fixes") != std::string::npos);
  }
  SECTION("an order of fixes that is not one") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"abcd\"]\n    check: perm.kfd\n    severity: error\n    message: m\n"
        "    fixes:\n      - description: d\n      - description: e\n    fix_order: any\n"
        "    source: s\n");
    CHECK(error.line() == 10);
  }
  SECTION("a severity that is not one") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"abcd\"]\n    check: perm.kfd\n    severity: fatal\n    message: m\n"
        "    source: s\n");
    CHECK(error.line() == 5);
  }
  SECTION("a fix kind without a command") {
    const RulesError error = triage_rules_error(
        head +
        "    match: [\"abcd\"]\n    check: perm.kfd\n    severity: error\n    message: m\n"
        "    fixes:\n      - description: d\n        kind: container_flag\n"
        "    source: s\n");
    CHECK(error.line() == 9);
    CHECK(std::string(error.what()).find("needs a \"command\"") != std::string::npos);
  }
  SECTION("no source") {
    const RulesError error = triage_rules_error(
        head + "    match: [\"abcd\"]\n    check: perm.kfd\n    severity: error\n    message: m\n");
    CHECK(std::string(error.what()).find("source") != std::string::npos);
  }
}

TEST_CASE("a hostile path from the log reaches a fix only shell-quoted", "[triage]") {
  const TriageReport report = triage_log(
      "  Name:                    gfx1031\n"
      "  File \"/home/a`id`$HOME;reboot/lib/python3.10/site-packages/torch/x.py\", line 1\n"
      "hipErrorNoBinaryForGpu\n"
      "[pip3] torch==2.6.0+rocm6.2.4\n",
      knowledge());
  const TriageFinding* found = finding(report, "arch.unsupported");
  REQUIRE(found != nullptr);
  REQUIRE(found->fix_from_facts);
  CHECK(found->fix[0].command.rfind("'/home/a`id`$HOME;reboot/bin/python3' -m pip install ", 0) ==
        0);
}

namespace {

/// Everything a scan found, as one comparable text.
std::string described(const LogScan& scan) {
  std::string out = std::to_string(scan.bytes) + " bytes, " + std::to_string(scan.lines) +
                    " lines, " + std::to_string(scan.cut_lines) + " cut\n";
  const auto fact = [&](const char* name, const LogFact& f) {
    out += std::string(name) + " " + f.name + "=" + f.value + " @" + std::to_string(f.line) + "\n";
  };
  for (const auto& f : scan.facts.gfx_targets) fact("gfx", f);
  for (const auto& f : scan.facts.gpu_names) fact("name", f);
  for (const auto& f : scan.facts.overrides) fact("override", f);
  for (const auto* f : {&scan.facts.torch, &scan.facts.torch_build_evidence,
                        &scan.facts.torchvision, &scan.facts.torchaudio, &scan.facts.rocm,
                        &scan.facts.site_packages, &scan.facts.container}) {
    if (*f) fact("fact", **f);
  }
  if (scan.facts.torch_build)
    out += "build " + std::string(to_string(*scan.facts.torch_build)) + "\n";
  for (const auto& h : scan.hits) {
    out += h.signature->id + " x" + std::to_string(h.count) + ":";
    for (const auto& line : h.lines) out += " " + std::to_string(line.number);
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("the one-pass filter reads what every line would give", "[triage]") {
  // Each real log, the logs one after the other, and lines built to sit at the filter's edges:
  // a literal past the 4096-byte cut, one split by a CR, runs of lines that each hold one
  // (the dense path) ended by a line without, and a log without a final newline.
  std::vector<std::string> logs;
  std::string all;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ROCDOC_SOURCE_DIR) + "/tests/triage")) {
    if (entry.path().extension() == ".log") {
      std::ifstream in(entry.path(), std::ios::binary);
      logs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      all += logs.back();
    }
  }
  REQUIRE(logs.size() >= 15);
  logs.push_back(all);
  logs.push_back(std::string(k_max_triage_line, 'a') + "hipErrorNoBinaryForGpu gfx1030\nx\n");
  logs.push_back(std::string(k_max_triage_line - 3, 'a') + "gfx1030\n");
  logs.push_back("hipErrorNoBinary\rForGpu\r\ngfx\r\n\r\n");
  std::string dense;
  for (int i = 0; i < 12; ++i) {
    dense += "gfx90a\nHSA_OVERRIDE_GFX_VERSION=9.0.0\ntorch==2.6.0+rocm6.2.4\n";
  }
  logs.push_back(dense + "plain\nMarketing Name: AMD Radeon RX 6800\nhipErrorNoBinaryForGpu");
  // A pip list: its rows hold no literal, and are read while its table lasts.
  logs.push_back(
      "Package    Version\n---------- -------\nflash_attn 2.7.4\nvllm 0.6.3\n\nxformers 0.0.30\n");
  for (const auto& log : logs) {
    CHECK(described(scan_log(log, knowledge(), LineFilter::markers)) ==
          described(scan_log(log, knowledge(), LineFilter::every_line)));
  }
}

TEST_CASE("triage names the tool outputs a text holds", "[triage]") {
  // One line of each, in the tool's own form.
  const std::string log =
      "PyTorch version: 2.6.0+rocm6.2.4\n"                                    // collect_env
      "ROCk module is loaded\n"                                               // rocminfo
      "GPU: 0\n    MARKET_NAME: AMD Instinct MI300X\n"                        // amd-smi
      "============================ ROCm System Management Interface ====\n"  // rocm-smi
      "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
      "[Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)\n"               // lspci -nn
      "[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n"  // dmesg
      "numpy==1.26.4\n"                                                   // pip freeze
      "Package    Version\n"                                              // pip list
      "Traceback (most recent call last):\n"                              // Python
      "docker: Error response from daemon: error gathering device information\n";
  const LogScan scan = scan_log(log, knowledge());
  std::vector<std::pair<std::string, std::size_t>> tools;
  for (const auto& tool : scan.facts.tools) {
    tools.emplace_back(tool.value, tool.line);
  }
  CHECK(tools ==
        std::vector<std::pair<std::string, std::size_t>>{{"collect_env", 1},
                                                         {"rocminfo", 2},
                                                         {"amd-smi", 4},
                                                         {"rocm-smi", 5},
                                                         {"lspci -nn", 6},
                                                         {"a kernel log (dmesg, journalctl -k)", 7},
                                                         {"pip freeze", 8},
                                                         {"pip list", 9},
                                                         {"a Python traceback", 10},
                                                         {"a container runtime's error", 11}});
  // journalctl -k's form; a line that only mentions amdgpu is no kernel log.
  CHECK(
      scan_log("Dec 01 10:00:00 host kernel: amdgpu 0000:03:00.0: ring gfx timeout\n", knowledge())
          .facts.tools.size() == 1);
  CHECK(scan_log("I installed amdgpu-dkms\npip install torch==2.6.0 --index-url x\n", knowledge())
            .facts.tools.empty());
}

TEST_CASE("triage with no finding says what the text did not establish", "[triage]") {
  const TriageReport report = triage_log("PyTorch version: 2.6.0+rocm6.2.4\n", knowledge());
  CHECK(report.findings.empty());
  std::vector<std::string> ids;
  for (const auto& item : report.not_in_log) {
    ids.push_back(item.id);
  }
  CHECK(ids == std::vector<std::string>{"gpu", "rocm", "kernel-log"});
  CHECK(report.signatures == knowledge().triage_signatures.size());
}

TEST_CASE("triage keeps the rules' order of fixes: steps or alternatives", "[triage]") {
  // kfd-enoent: in a container pass the devices, or on a host load the driver (one of them).
  const TriageReport either =
      triage_log("Unable to open /dev/kfd read-write: No such file or directory\n", knowledge());
  REQUIRE(finding(either, "driver.kfd-missing") != nullptr);
  CHECK(finding(either, "driver.kfd-missing")->fix_order == FixOrder::alternatives);
  CHECK(finding(either, "driver.kfd-missing")->fix.size() == 2);
  // kfd-enomem: look in the kernel log, then (on an APU) remount /dev.
  const TriageReport steps =
      triage_log("Unable to open /dev/kfd read-write: Cannot allocate memory\n", knowledge());
  REQUIRE(finding(steps, "driver.kfd-unusable") != nullptr);
  CHECK(finding(steps, "driver.kfd-unusable")->fix_order == FixOrder::steps);
}

TEST_CASE("triage reads collect_env's aligned keys, the Python version and package lists",
          "[triage]") {
  // vLLM's collect_env (and newer torch's) aligns its keys: "key<spaces>: value".
  const LogScan scan = scan_log(
      "PyTorch version              : 2.12.0+rocm7.2\n"
      "ROCM used to build PyTorch   : 7.2.53211\n"
      "Python version               : 3.11.2 (main, Apr  8 2026, 01:58:00) [GCC 12.2.0]\n"
      "GPU models and configuration : AMD Instinct MI210 (gfx90a:sramecc+:xnack-)\n"
      "[pip3] nvidia-nccl-cu12==2.27.3\n"
      "[pip3] torch==2.12.0+rocm7.2\n"
      "[conda] Flash_Attn  2.7.4  pypi_0  pypi\n"
      "+ bitsandbytes==0.45.0\n"
      "- removed-by-uv==1.0\n"
      "Package      Version\n"
      "------------ -------\n"
      "onnxruntime-gpu 1.20.1\n"
      "cupy-cuda12x 13.3.0  /home/a/venv/lib/python3.11/site-packages\n"
      "\n"
      "not-a-row 1.0\n",
      knowledge());
  REQUIRE(scan.facts.torch);
  CHECK(scan.facts.torch->value == "2.12.0+rocm7.2");
  REQUIRE(scan.facts.rocm);
  CHECK(scan.facts.rocm->value == "7.2.53211");
  REQUIRE(scan.facts.python);
  CHECK(scan.facts.python->value == "3.11");
  CHECK(scan.facts.python->line == 3);
  REQUIRE(scan.facts.gpu_names.size() == 1);
  CHECK(scan.facts.gpu_names[0].line == 4);
  std::vector<std::string> packages;
  for (const auto& package : scan.facts.packages) {
    packages.push_back(package.name + "=" + package.value + "@" + std::to_string(package.line));
  }
  CHECK(packages == std::vector<std::string>{"nvidia-nccl-cu12=2.27.3@5", "torch=2.12.0+rocm7.2@6",
                                             "flash-attn=2.7.4@7", "bitsandbytes=0.45.0@8",
                                             "onnxruntime-gpu=1.20.1@12",
                                             "cupy-cuda12x=13.3.0@13"});
}

TEST_CASE("triage keeps at most k_max_log_packages packages and counts the rest", "[triage]") {
  std::string log;
  for (std::size_t i = 0; i < k_max_log_packages + 5; ++i) {
    log += "package" + std::to_string(i) + "==1.0\n";
  }
  log += "package0==2.0\n";  // a name seen again is not a new package
  const LogScan scan = scan_log(log, knowledge());
  CHECK(scan.facts.packages.size() == k_max_log_packages);
  CHECK(scan.facts.packages_left_out == 6);
}

TEST_CASE("triage judges the log's package list as python.cuda-packages does", "[triage]") {
  // vllm-project/vllm#44660's case: PyPI's vLLM (CUDA) beside a ROCm torch on an MI210, in a
  // CPython 3.11 environment, for which vLLM has no ROCm wheel.
  const TriageReport report = triage_log(
      "PyTorch version              : 2.12.0+rocm7.2\n"
      "Python version               : 3.11.2 (main, Apr  8 2026, 01:58:00) [GCC 12.2.0]\n"
      "GPU models and configuration : AMD Instinct MI210 (gfx90a:sramecc+:xnack-)\n"
      "[pip3] numpy==2.2.6\n"
      "[pip3] vllm==0.22.1\n",
      knowledge());
  const TriageFinding* packages = finding(report, "python.cuda-packages");
  REQUIRE(packages != nullptr);
  CHECK(packages->status == Status::fail);
  CHECK(packages->fix_from_facts);
  CHECK(packages->message.find("vllm 0.22.1") != std::string::npos);
  std::vector<std::size_t> lines;
  for (const auto& line : packages->lines) {
    lines.push_back(line.number);
  }
  CHECK(lines == std::vector<std::size_t>{1, 3, 5});  // torch, the GPU, vllm; never numpy
  REQUIRE(packages->fix.size() >= 2);
  CHECK(packages->fix[0].command == "python3 -m pip uninstall -y vllm");
  CHECK(packages->fix[1].description.find("CPython 3.12 only") != std::string::npos);
}

TEST_CASE("triage leaves CUDA packages alone when the log shows an NVIDIA GPU too", "[triage]") {
  const std::string amd =
      "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
      "[Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)\n"
      "vllm==0.22.1\n";
  const TriageReport only_amd = triage_log(amd, knowledge());
  CHECK(finding(only_amd, "python.cuda-packages") != nullptr);
  CHECK_FALSE(only_amd.scan.facts.nvidia_gpu);
  for (const std::string nvidia :
       {"01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] "
        "[10de:2684] (rev a1)\n",
        "Nvidia driver version: 550.54.15\n",
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     "
        "|\n"}) {
    const TriageReport mixed = triage_log(amd + nvidia, knowledge());
    CHECK(mixed.scan.facts.nvidia_gpu);
    CHECK(finding(mixed, "python.cuda-packages") == nullptr);
  }
  // collect_env on an AMD machine: "Could not collect" is no NVIDIA GPU.
  CHECK_FALSE(scan_log("Nvidia driver version: Could not collect\n", knowledge()).facts.nvidia_gpu);
}

TEST_CASE("a log from a container keeps the container's way of several", "[triage]") {
  const std::string error = "Unable to open /dev/kfd read-write: No such file or directory\n";
  const TriageReport host = triage_log(error, knowledge());
  REQUIRE(finding(host, "driver.kfd-missing") != nullptr);
  CHECK(finding(host, "driver.kfd-missing")->fix.size() == 2);  // container or host
  const TriageReport container =
      triage_log("$ docker run -it rocm/pytorch:latest\n" + error, knowledge());
  const TriageFinding* missing = finding(container, "driver.kfd-missing");
  REQUIRE(missing != nullptr);
  REQUIRE(missing->fix.size() == 1);
  CHECK(missing->fix[0].command == "--device=/dev/kfd --device=/dev/dri");
  CHECK(missing->fix[0].kind == FixKind::container_flag);
  CHECK(missing->fix_from_facts);
  CHECK(missing->lines.front().number == 1);  // the docker run line is quoted
}

TEST_CASE("triage refuses rules built without their signatures", "[triage]") {
  const Knowledge& machine = embedded_knowledge(KnowledgeParts::machine);
  CHECK_THROWS_AS(LogMatcher(machine), std::logic_error);
  CHECK_THROWS_AS(check_triage_signatures(machine), std::logic_error);
  CHECK_NOTHROW(check_triage_signatures(embedded_knowledge()));
}
