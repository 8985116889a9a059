// GPU-less mode (--gpu, --sysroot): declared GPUs, the assumed inventory, the plain-root host.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "rocdoc/check.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "src/hosts/declared_gpus.h"
#include "src/hosts/snapshot.h"
#include "src/hosts/sysroot.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;

namespace {

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

std::vector<DeclaredGpu> declared(const std::string& value) {
  return parse_declared_gpus(knowledge(), {value});
}

std::string refusal(const std::string& value) {
  try {
    declared(value);
  } catch (const DeclaredGpuError& error) {
    return error.what();
  }
  return "accepted";
}

const CheckResult& result(const Report& report, std::string_view id) {
  for (const auto& record : report.checks) {
    if (record.info->id == id) {
      return record.result;
    }
  }
  FAIL("no check " << id);
  throw std::logic_error("unreachable");
}

bool has_note(const Report& report, std::string_view text) {
  return std::any_of(report.notes.begin(), report.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

constexpr std::string_view k_gpu_less_reason =
    "GPU-less mode (--gpu): hardware, driver and permissions are not judged";

/// A root filesystem with Debian's layout and a CPU-only torch in dist-packages.
void cpu_torch_tree(const test::TempSnapshot& tree) {
  tree.file("/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian 12\"\n");
  tree.file("/usr/lib/python3/dist-packages/torch/version.py",
            "__version__ = '1.13.0a0'\ncuda = None\nhip = None\n");
  tree.file("/usr/lib/python3/dist-packages/torch-1.13.0a0+gitunknown.egg-info/PKG-INFO",
            "Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0a0+gitunknown\n");
}

}  // namespace

TEST_CASE("GPU-less: --gpu takes gfx targets, with or without target features") {
  const auto gpus = declared("gfx942, gfx1100");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].given == "gfx942");
  CHECK(gpus[0].gfx_target == "gfx942");
  CHECK(gpus[0].name == "Instinct MI300X");
  CHECK(gpus[1].gfx_target == "gfx1100");

  const auto featured = declared("gfx942:sramecc+:xnack-");
  REQUIRE(featured.size() == 1);
  CHECK(featured[0].given == "gfx942:sramecc+:xnack-");
  CHECK(featured[0].gfx_target == "gfx942");

  // Repeated flags add up.
  CHECK(parse_declared_gpus(knowledge(), {"gfx942", "gfx1100,gfx1031"}).size() == 3);
}

TEST_CASE("GPU-less: --gpu takes PCI device ids and product names the rules know") {
  const auto by_id = declared("744c,1002:74a1");
  REQUIRE(by_id.size() == 2);
  CHECK(by_id[0].gfx_target == "gfx1100");
  CHECK(by_id[1].gfx_target == "gfx942");
  CHECK(by_id[1].name == "Instinct MI300X");

  // MI300X: the shipped product (PCI 74a1) is gfx942, not the revision-0 gfx941.
  const auto by_name = declared("MI300X,RX 7900 XTX");
  REQUIRE(by_name.size() == 2);
  CHECK(by_name[0].gfx_target == "gfx942");
  CHECK(by_name[1].gfx_target == "gfx1100");
  CHECK(by_name[1].name == "RX 7900 XTX");
}

TEST_CASE("GPU-less: --gpu refuses what names no GPU, with the nearest target") {
  CHECK(refusal("gfx9422") ==
        "--gpu 'gfx9422': not a GPU these rules know; did you mean gfx942? (--gpu takes gfx "
        "targets such as gfx942,gfx1100, PCI device ids such as 744c, or product names such as "
        "MI300X; `rocdoc rules show WHAT` looks one up)");
  CHECK(refusal("gfx942:xnack") ==
        "--gpu 'gfx942:xnack': 'xnack' is not a target feature (sramecc+, sramecc-, xnack+ or "
        "xnack-, as in gfx942:sramecc+:xnack-)");
  CHECK(refusal("gfx942:xnack+:xnack-") == "--gpu 'gfx942:xnack+:xnack-': xnack is given twice");
  CHECK(refusal("gfx942:") ==
        "--gpu 'gfx942:': '' is not a target feature (sramecc+, sramecc-, xnack+ or xnack-, as in "
        "gfx942:sramecc+:xnack-)");
  CHECK(refusal(",") == "--gpu: no GPU given (e.g. --gpu gfx942,gfx1100)");
  CHECK(refusal("2.6.0") != "accepted");  // a torch version is no GPU
  CHECK(refusal("gfx1100\x1b[2J").find('\x1b') == std::string::npos);
}

TEST_CASE("The assumed inventory: one GPU per declared target, no PCI, no KFD") {
  const GpuInventory inventory = declared_gpu_inventory(declared("gfx942,gfx1031"), knowledge());
  REQUIRE(inventory.gpus.size() == 2);
  CHECK(inventory.withheld.empty());
  const AmdGpu& mi300 = inventory.gpus[0];
  CHECK(mi300.declared);
  CHECK(mi300.pci == nullptr);
  CHECK(mi300.kfd == nullptr);
  CHECK(mi300.kfd_nodes.empty());
  CHECK(mi300.bdf.empty());
  REQUIRE(mi300.target != nullptr);
  CHECK(mi300.gfx_target() == "gfx942");
  CHECK(mi300.instinct());
  CHECK(inventory.gpus[1].gfx_target() == "gfx1031");

  const Facts facts;
  const CheckContext context{facts, knowledge(), inventory.gpus, {}};
  CHECK(context.reachable(context.amd_gpus[0]));  // ROCm is assumed to reach a declared GPU
}

TEST_CASE("Every check says whether it judges the software or the machine") {
  const auto judges = [](std::string_view id) { return find_check(id)->judges; };
  for (const auto* id : {"gpu.none", "driver.kfd-missing", "perm.kfd", "rocm.agents",
                         "env.visible-devices", "numa.balancing", "shm.small"}) {
    CAPTURE(id);
    CHECK(judges(id) == Judges::machine);
  }
  for (const auto* id : {"torch.cpu-wheel", "torch.cuda-wheel", "torch.companions",
                         "python.cuda-packages", "torch.arch-missing", "arch.unsupported",
                         "arch.override-wrong", "rocm.multiple", "env.rocm-arch", "env.unknown"}) {
    CAPTURE(id);
    CHECK(judges(id) == Judges::software);
  }
}

TEST_CASE("SysrootHost reads a plain tree and nothing outside it") {
  const test::TempSnapshot outside;
  outside.file("/secret", "outside\n");
  const test::TempSnapshot tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  tree.symlink("/etc/absolute", "/etc/passwd");                 // restarts at the tree's root
  tree.symlink("/etc/escape", "../../../../../../etc/passwd");  // .. stops at the tree's root
  tree.symlink(
      "/etc/sibling",  // on the reading machine this would be the outside file
      "../../../" + std::filesystem::path(outside.dir()).filename().string() + "/root/secret");
  tree.symlink("/etc/outside", outside.root() + "/secret");  // absolute: inside the tree, missing

  const SysrootHost host(tree.root());
  CHECK(host.kind() == HostKind::sysroot);
  CHECK(host.origin() == tree.root());
  CHECK(host.read_file("/etc/absolute") == "root:x:0:0:root:/root:/bin/bash\n");
  CHECK(host.read_file("/etc/escape") == "root:x:0:0:root:/root:/bin/bash\n");
  CHECK_FALSE(host.read_file("/etc/sibling"));
  CHECK_FALSE(host.read_file("/etc/outside"));
  CHECK(host.read_link("/etc/absolute") == "/etc/passwd");
  CHECK(host.list_dir("/etc")->size() == 5);
  CHECK(host.stat("/etc")->type == FileType::directory);
  CHECK_FALSE(host.stat("/etc/outside"));

  // Nothing of the machine is known but what the tree holds.
  CHECK(host.uname().release.empty());
  CHECK(host.identity().uid == 0);
  CHECK(host.open_device("/dev/kfd").access == OpenAccess::none);
  CHECK_FALSE(host.local_path("/sys"));
  CHECK(host.env("PATH") == std::string(k_container_default_path));
  CHECK_FALSE(host.env("HSA_OVERRIDE_GFX_VERSION"));
}

TEST_CASE("SysrootHost's environment: PATH by default, --env for allow-listed names only") {
  const test::TempSnapshot tree;
  const SysrootHost host(tree.root(), {{"PATH", "/opt/venv/bin:/usr/bin"},
                                       {"HSA_OVERRIDE_GFX_VERSION", "10.3.0"},
                                       {"AWS_SECRET_ACCESS_KEY", "x"}});
  CHECK(host.env("PATH") == "/opt/venv/bin:/usr/bin");
  CHECK(host.env("HSA_OVERRIDE_GFX_VERSION") == "10.3.0");
  CHECK_FALSE(host.env("AWS_SECRET_ACCESS_KEY"));
  CHECK(host.environment().size() == 2);
}

TEST_CASE("SysrootHost refuses a missing directory and a file") {
  const test::TempSnapshot tree;
  tree.file("/file", "x");
  CHECK_THROWS_WITH(SysrootHost(tree.root() + "/missing"),
                    "--sysroot " + tree.root() + "/missing: no such directory");
  CHECK_THROWS_WITH(SysrootHost(tree.root() + "/file"),
                    "--sysroot " + tree.root() +
                        "/file: not a directory (--sysroot takes an unpacked root "
                        "filesystem)");
}

TEST_CASE("GPU-less mode on a sysroot: software judged for the declared GPUs, machine skipped") {
  const test::TempSnapshot tree;
  cpu_torch_tree(tree);
  const SysrootHost host(tree.root());
  const Report report = run_report(host, knowledge(), {}, {}, declared("gfx942,gfx1100"));

  CHECK(report.host_kind == HostKind::sysroot);
  REQUIRE(report.declared_gpus.size() == 2);
  REQUIRE(report.gpus.size() == 2);
  CHECK(report.gpus[0].gfx_target == "gfx942");
  CHECK(report.gpus[0].bdf.empty());
  CHECK(report.gpus[1].gfx_target == "gfx1100");

  const CheckResult& cpu = result(report, "torch.cpu-wheel");
  CHECK(cpu.status == Status::fail);
  REQUIRE(cpu.evidence.size() == 1);
  CHECK(cpu.evidence[0].rfind("torch 1.13.0a0 (CPU only) in /usr/lib/python3/dist-packages", 0) ==
        0);
  CHECK(result(report, "torch.not-found").status == Status::pass);
  for (const auto& record : report.checks) {
    CAPTURE(record.info->id);
    if (record.info->judges == Judges::machine) {
      CHECK(record.result.status == Status::skip);
      CHECK(record.result.message == k_gpu_less_reason);
    } else {
      CHECK(record.result.message != k_gpu_less_reason);
    }
  }
  CHECK(report.notes.front() ==
        "GPU-less mode (--gpu gfx942,gfx1100): the software is judged as if these GPUs were "
        "present: Instinct MI300X (gfx942), Radeon RX 7900 XTX (gfx1100); hardware, driver and "
        "permissions are not judged");
  CHECK(has_note(report, "is a plain root filesystem (--sysroot)"));
  CHECK_FALSE(has_note(report, "rocdoc runs as root"));  // permissions are not judged
}

TEST_CASE("GPU-less: --gpu on a machine with a GPU: the declared GPUs replace the one found") {
  const SnapshotHost host(std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy");
  const Report found = run_report(host, knowledge(), {});
  CHECK(found.declared_gpus.empty());
  CHECK(result(found, "arch.unsupported").status == Status::pass);  // its gfx1100 has code
  CHECK_FALSE(has_note(found, "GPU-less mode"));

  const Report report = run_report(host, knowledge(), {}, {}, declared("gfx1031"));
  REQUIRE(report.gpus.size() == 1);
  CHECK(report.gpus[0].gfx_target == "gfx1031");
  CHECK(result(report, "arch.unsupported").status == Status::fail);
  CHECK(result(report, "perm.kfd").message == k_gpu_less_reason);
  CHECK(has_note(report, "the AMD GPU found here ("));
  CHECK(has_note(report, "is not judged: the GPUs given with --gpu replace it"));
}
