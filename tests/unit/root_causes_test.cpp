// The root-cause table on hand-built results: which finding names which cause, and when not.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rocdoc/check.h"
#include "src/pipeline/root_causes.h"

using namespace rocdoc;

namespace {

CheckResult failed(std::vector<Fix> fix = {}) {
  CheckResult result;
  result.status = Status::fail;
  result.severity = Severity::error;
  result.message = "broken";
  result.fix = std::move(fix);
  return result;
}

CheckResult warned(std::vector<Fix> fix = {}) {
  CheckResult result = failed(std::move(fix));
  result.status = Status::warn;
  result.severity = Severity::warning;
  return result;
}

CheckResult passed() { return CheckResult{}; }

CheckRecord record(std::string_view id, CheckResult result) {
  const CheckInfo* info = find_check(id);
  REQUIRE(info != nullptr);
  return {info, std::move(result)};
}

const CheckResult& in(const std::vector<CheckRecord>& records, std::string_view id) {
  for (const auto& r : records) {
    if (r.info->id == id) {
      return r.result;
    }
  }
  FAIL("no record " << id);
  throw std::logic_error("unreachable");
}

using Ids = std::vector<std::string>;

DeviceNode node(const std::string& path, std::uint32_t gid) {
  DeviceNode n;
  n.path = path;
  n.stat.gid = gid;
  n.stat.mode = 0660;
  return n;
}

/// alice: /etc/group puts her in render (109); the session has only her own group (1000).
AccessFacts stale_session() {
  AccessFacts access;
  access.identity.user = "alice";
  access.identity.uid = 1000;
  access.identity.gid = 1000;
  access.kfd = node("/dev/kfd", 109);
  access.render_nodes.push_back(node("/dev/dri/renderD128", 109));
  access.etc_group = std::vector<GroupEntry>{{"render", 109, {"alice"}}};
  return access;
}

struct World {
  Facts facts;
  Knowledge knowledge;
  CheckContext context() const { return CheckContext{facts, knowledge, {}, {}}; }
};

const Fix k_usermod{"Add alice to render", "sudo usermod -aG render 'alice'", true};
const Fix k_newgrp{"Log out and back in", "newgrp render", false};

}  // namespace

TEST_CASE("a stale session is the cause of both node findings", "[root-causes]") {
  World world;
  world.facts.access = stale_session();
  std::vector<CheckRecord> records = {record("perm.kfd", failed({k_newgrp})),
                                      record("perm.render", failed({k_newgrp})),
                                      record("perm.relogin", failed({k_newgrp}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "perm.kfd").caused_by == Ids{"perm.relogin"});
  CHECK(in(records, "perm.render").caused_by == Ids{"perm.relogin"});
  CHECK(in(records, "perm.relogin").caused_by.empty());
  Report report;
  report.checks = records;
  CHECK(report.summary().errors == 3);
  CHECK(report.summary().root_causes == 1);
}

TEST_CASE("a cause that is not a finding is named by nothing", "[root-causes]") {
  World world;
  world.facts.access = stale_session();
  std::vector<CheckRecord> records = {record("perm.kfd", failed({k_usermod})),
                                      record("perm.render", failed({k_usermod})),
                                      record("perm.relogin", passed())};
  link_root_causes(records, world.context());
  // Not the session then: /dev/kfd's finding, with the same fix, is the render node's cause.
  CHECK(in(records, "perm.kfd").caused_by.empty());
  CHECK(in(records, "perm.render").caused_by == Ids{"perm.kfd"});
}

TEST_CASE("the session is not blamed for a group /etc/group does not give", "[root-causes]") {
  World world;
  world.facts.access = stale_session();
  world.facts.access->etc_group = std::vector<GroupEntry>{{"render", 109, {}}};
  std::vector<CheckRecord> records = {record("perm.kfd", failed({k_usermod})),
                                      record("perm.relogin", failed({k_newgrp}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "perm.kfd").caused_by.empty());
}

TEST_CASE("node findings with different fixes stay two root causes", "[root-causes]") {
  World world;
  world.facts.access = stale_session();
  const Fix video{"Add alice to video", "sudo usermod -aG video 'alice'", true};
  std::vector<CheckRecord> records = {record("perm.kfd", failed({video})),
                                      record("perm.render", failed({k_usermod}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "perm.render").caused_by.empty());
  CHECK(in(records, "perm.kfd").caused_by.empty());
}

TEST_CASE("inside a container the missing --group-add is the cause", "[root-causes]") {
  World world;
  world.facts.access = stale_session();
  world.facts.access->etc_group = std::vector<GroupEntry>{};
  const Fix flag{"Add the group", "--group-add 109", false, FixKind::container_flag};
  std::vector<CheckRecord> records = {record("perm.kfd", failed({flag})),
                                      record("perm.render", failed({flag})),
                                      record("perm.container-groups", failed({flag}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "perm.kfd").caused_by == Ids{"perm.container-groups"});
  CHECK(in(records, "perm.render").caused_by == Ids{"perm.container-groups"});
  CHECK(in(records, "perm.container-groups").caused_by.empty());
}

TEST_CASE("amdgpu not loaded is why a GPU with no driver is unbound, not one vfio holds",
          "[root-causes]") {
  World world;
  PciDevice device;
  device.bdf = "0000:03:00.0";
  AmdGpu gpu;
  gpu.pci = &device;
  const auto run = [&]() {
    std::vector<CheckRecord> records = {record("gpu.not-bound", failed()),
                                        record("driver.amdgpu-missing", failed())};
    CheckContext context{world.facts, world.knowledge, {gpu}, {}};
    link_root_causes(records, context);
    return in(records, "gpu.not-bound").caused_by;
  };
  CHECK(run() == Ids{"driver.amdgpu-missing"});
  device.driver = "vfio-pci";
  CHECK(run().empty());
}

TEST_CASE("the target's verdict owns the wheel's when their fixes agree", "[root-causes]") {
  World world;
  const Fix install{"Install torch 2.7.0", "python3 -m pip install torch==2.7.0", false};
  const Fix override_it{"Keep this torch and override", "export HSA_OVERRIDE_GFX_VERSION=11.0.0",
                        false};
  std::vector<CheckRecord> records = {record("arch.unsupported", failed({install, override_it})),
                                      record("torch.arch-missing", failed({install, override_it}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "torch.arch-missing").caused_by == Ids{"arch.unsupported"});

  records = {record("arch.unsupported", failed({install})),
             record("torch.arch-missing", failed({override_it}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "torch.arch-missing").caused_by.empty());
}

TEST_CASE("an unneeded global override and its mixed use: one cause, either way", "[root-causes]") {
  World world;
  const Fix unset{"Remove the override", "unset HSA_OVERRIDE_GFX_VERSION", false};
  const Fix per_node{"Give it to one GPU",
                     "unset HSA_OVERRIDE_GFX_VERSION && export HSA_OVERRIDE_GFX_VERSION_2=10.3.0",
                     false};
  std::vector<CheckRecord> records = {record("arch.override-unneeded", warned({unset})),
                                      record("arch.override-mixed", warned({unset}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "arch.override-mixed").caused_by == Ids{"arch.override-unneeded"});
  CHECK(in(records, "arch.override-unneeded").caused_by.empty());

  records = {record("arch.override-unneeded", warned({unset})),
             record("arch.override-mixed", warned({per_node}))};
  link_root_causes(records, world.context());
  CHECK(in(records, "arch.override-unneeded").caused_by == Ids{"arch.override-mixed"});
  CHECK(in(records, "arch.override-mixed").caused_by.empty());
}

TEST_CASE("a link that would close a cycle is left out", "[root-causes]") {
  World world;
  const CauseRule rules[] = {{"perm.kfd", "perm.render", "a", nullptr},
                             {"perm.render", "perm.relogin", "b", nullptr},
                             {"perm.relogin", "perm.kfd", "c", nullptr}};
  std::vector<CheckRecord> records = {record("perm.kfd", failed()), record("perm.render", failed()),
                                      record("perm.relogin", failed())};
  link_root_causes(records, world.context(), rules);
  CHECK(in(records, "perm.render").caused_by == Ids{"perm.kfd"});
  CHECK(in(records, "perm.relogin").caused_by == Ids{"perm.render"});
  CHECK(in(records, "perm.kfd").caused_by.empty());
}

TEST_CASE("the table names real checks, never itself, and says why", "[root-causes]") {
  for (const auto& rule : cause_rules()) {
    INFO(rule.cause << " -> " << rule.consequence);
    CHECK(find_check(rule.cause) != nullptr);
    CHECK(find_check(rule.consequence) != nullptr);
    CHECK(rule.cause != rule.consequence);
    CHECK(!rule.why.empty());
  }
}

TEST_CASE("a GPU fault of this boot is why work failed: the IOMMU is why copies crawl",
          "[root-causes]") {
  World world;
  std::vector<CheckRecord> records = {record("driver.gpu-faults", failed()),
                                      record("iommu.mode", warned()),
                                      record("runtime.compute", failed())};
  link_root_causes(records, world.context());
  CHECK(in(records, "runtime.compute").caused_by == Ids{"driver.gpu-faults"});
  // Slow copies (a warning) are the IOMMU's, never the faults'.
  records = {record("driver.gpu-faults", failed()), record("iommu.mode", warned()),
             record("runtime.compute", warned())};
  link_root_causes(records, world.context());
  CHECK(in(records, "runtime.compute").caused_by == Ids{"iommu.mode"});
  // A failed compute test without missing code is not the override's.
  records = {record("arch.override-wrong", failed()), record("runtime.compute", failed())};
  link_root_causes(records, world.context());
  CHECK(in(records, "runtime.compute").caused_by.empty());
  HipRuntimeFacts hip;
  hip.devices.emplace_back().compute.emplace().calls.push_back(
      {"hipDeviceSynchronize", 98, "hipErrorInvalidDeviceFunction", ""});
  world.facts.runtime = RuntimeFacts{};
  world.facts.runtime->hip = hip;
  link_root_causes(records, world.context());
  CHECK(in(records, "runtime.compute").caused_by == Ids{"arch.override-wrong"});
}
