// --smoke: what a run's output says (parsed as untrusted text), the child's environment, the
// manifest record, and torch.smoke over hand-built facts.
#include <catch2/catch.hpp>

#include <algorithm>

#include "probes/smoke.h"
#include "rocdoc/knowledge_loader.h"
#include "src/checks/checks.h"
#include "src/hosts/snapshot_root.h"
#include "src/runtime/smoke_facts.h"
#include "src/runtime/smoke_runner.h"

using namespace rocdoc;

namespace {

/// The last lines of the real run on an NVIDIA H100 (tests/fixtures/nvidia-h100-smoke-cuda-torch),
/// the device's tests cut to two.
constexpr std::string_view k_h100 =
    "# step import torch\n# step is_available\n# step matmul-fp32 cuda:0\n# step alloc cuda:0\n"
    R"({"arch_list": ["sm_80", "sm_90"], "available": true, "device_count": 1, "devices": )"
    R"([{"arch": "sm_90", "index": 0, "name": "NVIDIA H100 80GB HBM3", "tests": {"alloc": )"
    R"({"bytes": 67108864, "seconds": 0.0072, "status": "ok"}, "fp32": {"error": 5.9e-07, )"
    R"("seconds": 0.24, "status": "ok", "tolerance": 0.001}}, "total_memory": 85017493504}], )"
    R"("executable": "/opt/torch/.venv/bin/python3.12", "format": 1, "network": {"how": )"
    R"("network namespace", "interfaces": ["lo"], "isolated": true}, "python": "3.12.3", )"
    R"("torch": {"cuda": "13.0", "file": "/opt/torch/.venv/lib/python3.12/site-packages/torch/)"
    R"(__init__.py", "hip": null, "version": "2.11.0+cu130"}, "warnings": []})"
    "\n";

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

CheckResult judge(const std::vector<std::string_view>& outputs) {
  Facts facts;
  SmokeFacts smoke;
  for (const auto output : outputs) {
    SmokeRun run;
    run.target = {"/venv/bin/python3", "/venv/lib/python3.12/site-packages"};
    run.ending = ChildEnding::exited;
    run.exit_status = 0;
    run.output = std::string(output);
    smoke.results.push_back(runtime::smoke_result(run));
  }
  facts.smoke = smoke;
  GpuInventory inventory = build_gpu_inventory(facts, knowledge());
  const CheckContext context{facts, knowledge(), std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  return checks::torch_smoke(context);
}

}  // namespace

TEST_CASE("a smoke run's output: its steps, then one JSON document", "[smoke]") {
  const SmokeResult result = runtime::parse_smoke_output(k_h100);
  CHECK(result.document);
  CHECK_FALSE(result.unreadable);
  CHECK(result.last_step == "alloc cuda:0");
  CHECK(result.torch_version == "2.11.0+cu130");
  CHECK(result.cuda == "13.0");
  CHECK_FALSE(result.hip);
  CHECK(result.available == true);
  CHECK(result.network_isolated == true);
  REQUIRE(result.devices.size() == 1);
  CHECK(result.devices[0].arch == "sm_90");
  REQUIRE(result.devices[0].tests.size() == 2);
  CHECK(result.devices[0].tests[0].name == "fp32");  // in the order the script runs them
  CHECK(result.devices[0].tests[1].name == "alloc");
}

TEST_CASE("output that is not the script's result is unreadable, never a value", "[smoke]") {
  for (const std::string_view output :
       {"", "# step import torch\n", "Segmentation fault\n", "{not json\n", "[1, 2]\n",
        "{\"a\": [[[[[[[[[[[[1]]]]]]]]]]]]}\n"}) {
    CAPTURE(output);
    const SmokeResult result = runtime::parse_smoke_output(output);
    CHECK_FALSE(result.document);
    CHECK(result.unreadable);
  }
  // Fields of the wrong type are unknown, not errors; a test status outside the four is "?".
  const SmokeResult odd = runtime::parse_smoke_output(
      R"({"available": "yes", "device_count": -3, "torch": [], "devices": [{"tests": )"
      R"({"fp32": {"status": "splendid"}}}]})");
  CHECK(odd.document);
  CHECK_FALSE(odd.available);
  CHECK_FALSE(odd.device_count);
  CHECK_FALSE(odd.torch_version);
  REQUIRE(odd.devices.size() == 1);
  CHECK(odd.devices[0].tests.at(0).status == "?");
}

TEST_CASE("the smoke child gets the variables that change torch's answer, and nothing else",
          "[smoke]") {
  const auto environment =
      runtime::smoke_environment({{"HIP_VISIBLE_DEVICES", "1"},
                                  {"HSA_OVERRIDE_GFX_VERSION", "11.0.0"},
                                  {"PYTHONPATH", "/x"},
                                  {"VIRTUAL_ENV", "/venv"},
                                  {"MIOPEN_USER_DB_PATH", "/home/alice/.config/miopen"}},
                                 "/home/alice", "/tmp/rocdoc-smoke-abc");
  const auto has = [&](std::string_view entry) {
    return std::find(environment.begin(), environment.end(), entry) != environment.end();
  };
  CHECK(has("HIP_VISIBLE_DEVICES=1"));
  CHECK(has("HSA_OVERRIDE_GFX_VERSION=11.0.0"));
  CHECK(has("HOME=/home/alice"));
  CHECK(has("PATH=/usr/local/bin:/usr/bin:/bin"));
  CHECK_FALSE(has("PYTHONPATH=/x"));
  CHECK_FALSE(has("VIRTUAL_ENV=/venv"));
  // The caches the libraries write go to the private directory, the user's setting too.
  CHECK(has("MIOPEN_USER_DB_PATH=/tmp/rocdoc-smoke-abc/miopen"));
  CHECK_FALSE(has("MIOPEN_USER_DB_PATH=/home/alice/.config/miopen"));
  CHECK(has("XDG_CACHE_HOME=/tmp/rocdoc-smoke-abc/cache"));
  CHECK(runtime::smoke_script().find("def main():") != std::string_view::npos);
}

TEST_CASE("a manifest's smoke key reads back what was written, and refuses what is wrong",
          "[smoke]") {
  SmokeReport report;
  report.timeout = std::chrono::milliseconds(30'000);
  SmokeRun run;
  run.target = {"/usr/bin/python3", "/usr/lib/python3/dist-packages"};
  run.ending = ChildEnding::signaled;
  run.signal = "SIGSEGV";
  run.output = "# step import torch\n";
  report.runs.push_back(run);
  const SmokeReport back =
      runtime::parse_smoke_report(runtime::smoke_report_json(report), "m.json");
  CHECK(back.timeout == report.timeout);
  REQUIRE(back.runs.size() == 1);
  CHECK(back.runs[0].ending == ChildEnding::signaled);
  CHECK(back.runs[0].signal == "SIGSEGV");
  CHECK(back.runs[0].output == run.output);
  CHECK_THROWS_AS(runtime::parse_smoke_report(nlohmann::json::array(), "m.json"), SnapshotError);
  CHECK_THROWS_WITH(runtime::parse_smoke_report({{"runs", {{{"ending", "exploded"}}}}}, "m.json"),
                    Catch::Contains("smoke.runs[0].ending must be exited"));
}

TEST_CASE("torch.smoke: a CUDA torch that computes passes: each failure is named", "[smoke]") {
  const CheckResult ok = judge({k_h100});
  CHECK(ok.status == Status::pass);
  CHECK(ok.message ==
        "torch ran on 1 GPU in 1 environment: every product and convolution matched the CPU's");
  CHECK(std::any_of(ok.evidence.begin(), ok.evidence.end(), [](const std::string& line) {
    return line.rfind("  cuda:0  NVIDIA H100 80GB HBM3  sm_90  fp32 ok  alloc ok", 0) == 0;
  }));

  const CheckResult cpu = judge({R"({"torch": {"version": "1.13.0a0", "hip": null, "cuda": null},)"
                                 R"( "available": false, "device_count": 0, "devices": []})"});
  CHECK(cpu.status == Status::fail);
  CHECK(cpu.message ==
        "torch 1.13.0a0 (CPU-only) run by /venv/bin/python3: torch.cuda.is_available() is False: "
        "it is a CPU-only build, with no GPU code");
  CHECK(cpu.fix.at(0).command == "rocdoc check --only torch.cpu-wheel,torch.not-found");

  const CheckResult missing = judge({""});
  CHECK(missing.status == Status::fail);
  CHECK(missing.message == "/venv/bin/python3 gave no result: it printed no result");

  Facts plain;
  const CheckContext none{plain, knowledge(), {}, {}};
  CHECK(checks::torch_smoke(none).message == "run with --smoke to run torch on the GPUs");
}
