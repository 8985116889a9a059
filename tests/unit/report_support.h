// Helpers for tests that run the pipeline (with the embedded knowledge base, rocdoc::
// embedded_knowledge()): a fixture's report, a check's result and its fix commands.
#pragma once

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "src/hosts/snapshot.h"

namespace rocdoc::test {

/// The report of tests/fixtures/<name>, every check run.
inline Report fixture_report(const std::string& name, const CheckSelection& selection = {}) {
  return run_report(SnapshotHost(std::string(ROCDOC_FIXTURES_DIR) + "/" + name),
                    embedded_knowledge(), selection);
}

/// What a check function sees of `facts` (kept alive by the caller), with the embedded rules.
inline CheckContext check_context(const Facts& facts) {
  GpuInventory inventory = build_gpu_inventory(facts, embedded_knowledge());
  return {facts, embedded_knowledge(), std::move(inventory.gpus), std::move(inventory.withheld)};
}

inline const CheckResult& check_result(const Report& report, std::string_view id) {
  for (const auto& record : report.checks) {
    if (record.info->id == id) {
      return record.result;
    }
  }
  FAIL("no check " << id);
  throw std::logic_error("unreachable");
}

inline std::vector<std::string> fix_commands(const CheckResult& result) {
  std::vector<std::string> out;
  for (const auto& fix : result.fix) {
    out.push_back(fix.command);
  }
  return out;
}

}  // namespace rocdoc::test
