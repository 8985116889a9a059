// --deep's result channel (src/runtime/protocol.h): what a runtime child writes, or
// what a snapshot's `runtime` key replays, read as untrusted lines. Input: the result text,
// parsed as the HIP, rocm_smi, HSA and amd-smi children's; then runtime.hip-init, runtime.smi,
// runtime.compute and driver.gpu-faults judge it against a machine without GPUs and against
// the two-MI210 facts below.
#include "probes/runtime.h"
#include "src/checks/checks.h"
#include "src/runtime/protocol.h"
#include "tests/fuzz/fuzz.h"

namespace {

using namespace rocdoc;

void check_load(const RuntimeLoad& load) {
  if (load.unreadable) {
    fuzz::check_error_message(*load.unreadable);
  }
  ROCDOC_FUZZ_CHECK(load.calls.size() <= runtime::k_max_records, "calls are bounded");
}

template <typename Device>
void check_devices(const std::vector<Device>& devices) {
  for (const auto& device : devices) {
    ROCDOC_FUZZ_CHECK(device.index >= 0 && device.index < runtime::k_max_devices,
                      "a device index is in range: " + std::to_string(device.index));
  }
}

void judge(const Facts& facts) {
  GpuInventory inventory = build_gpu_inventory(facts, fuzz::knowledge());
  const CheckContext context{facts, fuzz::knowledge(), std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  for (auto* check : {checks::runtime_hip_init, checks::runtime_smi, checks::runtime_compute,
                      checks::driver_gpu_faults}) {
    const CheckResult result = check(context);
    ROCDOC_FUZZ_CHECK(!result.message.empty(), "a verdict has a message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::text(data, size);
  const HipRuntimeFacts hip = runtime::parse_hip_result(input);
  check_load(hip.load);
  check_devices(hip.devices);
  const SmiRuntimeFacts smi = runtime::parse_smi_result(input);
  check_load(smi.load);
  check_devices(smi.devices);
  check_load(runtime::parse_hsa_result(input).load);

  RuntimeRun run;
  run.ending = ChildEnding::exited;
  run.exit_status = 0;
  run.result = std::string(input);
  RuntimeReport report;
  report.hip = run;
  report.smi = run;
  report.hsa = run;
  report.amdsmi = run;
  Facts facts;
  facts.kfd = KfdFacts{};
  facts.env = EnvFacts{};
  facts.runtime = runtime_facts(report);
  judge(facts);
  facts.kfd->topology_present = true;
  for (int index = 1; index <= 2; ++index) {
    KfdNode node;
    node.index = index;
    node.simd_count = 104;
    node.gfx_target = "gfx90a";
    node.bdf = index == 1 ? "0000:03:00.0" : "0000:43:00.0";
    node.io_links.push_back({0, 11, index, 3 - index, 0, 15, 50000, 50000});
    facts.kfd->nodes.push_back(node);
  }
  judge(facts);
  return 0;
}
