// `check --format slurm`: the one line a Slurm health check drains a node with.
#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rocdoc/render.h"

using namespace rocdoc;

namespace {

/// Check infos that outlive the reports built from them (a record points at its info).
const CheckInfo& info(const std::string& id) {
  static std::vector<std::unique_ptr<CheckInfo>> infos;
  static std::vector<std::unique_ptr<std::string>> ids;
  ids.push_back(std::make_unique<std::string>(id));
  infos.push_back(std::make_unique<CheckInfo>());
  infos.back()->id = *ids.back();
  return *infos.back();
}

CheckResult result(Status status, Severity severity, std::vector<std::string> caused_by = {}) {
  CheckResult r;
  r.status = status;
  r.severity = severity;
  r.caused_by = std::move(caused_by);
  return r;
}

std::string rendered(const Report& report) {
  std::ostringstream out;
  render_slurm(report, out);
  return out.str();
}

}  // namespace

TEST_CASE("slurm: root causes of what fails, in report order, each once", "[render][slurm]") {
  Report report;
  report.checks.push_back({&info("driver.loaded"), result(Status::pass, Severity::error)});
  report.checks.push_back({&info("numa.balancing"), result(Status::fail, Severity::error)});
  report.checks.push_back({&info("perm.kfd"), result(Status::fail, Severity::error)});
  // follows from perm.kfd: named by its cause only
  report.checks.push_back(
      {&info("torch.sees-gpu"), result(Status::fail, Severity::error, {"perm.kfd"})});
  report.checks.push_back({&info("pcie.link-degraded"), result(Status::warn, Severity::warning)});
  report.checks.push_back({&info("env.notice"), result(Status::warn, Severity::info)});
  report.outcome = judge(report, FailOn::error);
  CHECK(rendered(report) == "rocdoc: numa.balancing, perm.kfd\n");

  report.outcome = judge(report, FailOn::warning);
  CHECK(rendered(report) == "rocdoc: numa.balancing, perm.kfd, pcie.link-degraded\n");

  report.outcome = judge(report, FailOn::never);
  CHECK(rendered(report) == "rocdoc: ok\n");
}

TEST_CASE("slurm: a failing consequence of a warning names the warning", "[render][slurm]") {
  Report report;
  report.checks.push_back({&info("rocm.version"), result(Status::warn, Severity::warning)});
  report.checks.push_back(
      {&info("torch.rocm-match"), result(Status::fail, Severity::error, {"rocm.version"})});
  report.outcome = judge(report, FailOn::error);
  CHECK(rendered(report) == "rocdoc: rocm.version\n");
}

TEST_CASE("slurm: healthy, and a required check that did not run", "[render][slurm]") {
  Report report;
  report.checks.push_back({&info("perm.kfd"), result(Status::pass, Severity::error)});
  report.checks.push_back({&info("gpu.present"), result(Status::skip, Severity::error)});
  report.outcome = judge(report, FailOn::error);
  CHECK(rendered(report) == "rocdoc: ok\n");
  report.outcome = judge(report, FailOn::error, {"gpu.present"});
  CHECK(report.outcome.exit_code == 1);
  CHECK(rendered(report) == "rocdoc: gpu.present not run\n");
}

TEST_CASE("slurm: the line is bounded and never cuts an id", "[render][slurm]") {
  Report report;
  for (int i = 0; i < 12; ++i) {
    report.checks.push_back(
        {&info("area.check-number-" + std::to_string(i)), result(Status::fail, Severity::error)});
  }
  report.outcome = judge(report, FailOn::error);
  const std::string line = slurm_reason(report);
  // Four ids are 8 + 19 + 3 * 21 = 90 characters; a fifth would pass 100: ", +8 more" (99).
  CHECK(line ==
        "rocdoc: area.check-number-0, area.check-number-1, area.check-number-2, "
        "area.check-number-3, +8 more");
  CHECK(line.size() <= k_slurm_reason_max);

  Report fits;
  for (int i = 0; i < 4; ++i) {
    fits.checks.push_back(
        {&info("area.check-number-" + std::to_string(i)), result(Status::fail, Severity::error)});
  }
  fits.outcome = judge(fits, FailOn::error);
  CHECK(slurm_reason(fits) ==
        "rocdoc: area.check-number-0, area.check-number-1, area.check-number-2, "
        "area.check-number-3");
}
