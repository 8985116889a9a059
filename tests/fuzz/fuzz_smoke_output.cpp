// --smoke's output (src/runtime/smoke_facts.h): what an interpreter printed running the smoke
// script, or what a snapshot's `smoke` key replays, read as untrusted text. Input: the output;
// then torch.smoke judges it as a run that exited, timed out and crashed.
#include "probes/smoke.h"
#include "src/checks/checks.h"
#include "src/runtime/smoke_facts.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  const SmokeResult parsed = runtime::parse_smoke_output(input);
  ROCDOC_FUZZ_CHECK(parsed.document != parsed.unreadable.has_value(),
                    "an output is either the script's result or unreadable");
  ROCDOC_FUZZ_CHECK(parsed.devices.size() <= 64, "devices are bounded");
  for (const ChildEnding ending :
       {ChildEnding::exited, ChildEnding::timed_out, ChildEnding::signaled}) {
    SmokeRun run;
    run.target = {"/venv/bin/python3", "/venv/lib/python3.12/site-packages"};
    run.ending = ending;
    run.signal =
        ending == ChildEnding::signaled ? std::optional<std::string>("SIGSEGV") : std::nullopt;
    run.output = std::string(input);
    SmokeReport report;
    report.runs.push_back(run);
    Facts facts;
    facts.smoke = smoke_facts(report);
    GpuInventory inventory = build_gpu_inventory(facts, fuzz::knowledge());
    const CheckContext context{facts, fuzz::knowledge(), std::move(inventory.gpus),
                               std::move(inventory.withheld)};
    const CheckResult result = checks::torch_smoke(context);
    ROCDOC_FUZZ_CHECK(!result.message.empty(), "a verdict has a message");
    ROCDOC_FUZZ_CHECK(ending == ChildEnding::exited || result.status == Status::fail,
                      "a run that hung or crashed is a finding");
  }
  return 0;
}
