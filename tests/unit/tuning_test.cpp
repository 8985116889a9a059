// env.tuning, shm.small and the compute abilities of the rules, on real strings: allocator
// settings from torch's docs and users' logs, MIOpen's find modes and switch words from its
// sources, and snapshots whose directories and mounts are what the fixtures' notes cite.
#include <algorithm>
#include <catch2/catch.hpp>

#include <sstream>

#include "probes/tuning.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/checks/allocator_config.h"
#include "src/hosts/declared_gpus.h"
#include "src/hosts/snapshot.h"
#include "src/knowledge/show.h"
#include "src/render/gpu_memory_text.h"
#include "src/util/byte_size.h"
#include "tests/unit/report_support.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;
using test::check_result;
using test::fix_commands;

namespace {

/// alice (uid 1000) with `env`, judged against the declared GPU `gpu` (GPU-less mode: the
/// software checks run as on a machine with that GPU).
struct Machine {
  test::TempSnapshot snap;
  std::string env = "{}";
  std::string stats = "{}";
  std::string gpu = "gfx1100";
  const Knowledge* rules = nullptr;  ///< the embedded rules unless set

  Report report() const {
    snap.manifest(R"({"format": "rocdoc-snapshot/1",
      "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [{"name": "alice", "gid": 1000}]},
      "env": )" + env +
                  R"(, "stats": )" + stats + "}");
    snap.file("/etc/passwd",
              "root:x:0:0:root:/root:/bin/bash\n"
              "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
    const Knowledge& knowledge = rules != nullptr ? *rules : embedded_knowledge();
    return run_report(SnapshotHost(snap.dir()), knowledge,
                      {{"env.tuning", "env.debug-left-on"}, {}}, {},
                      parse_declared_gpus(knowledge, {gpu}));
  }
};

}  // namespace

TEST_CASE("the keys of an allocator setting, as torch's tokenizer reads them", "[tuning]") {
  using rocdoc::checks::allocator_config_keys;
  using Keys = std::vector<std::string>;
  // torch's out-of-memory message; PyTorch docs (CUDA semantics); a bracketed value with commas.
  CHECK(allocator_config_keys("expandable_segments:True") == Keys{"expandable_segments"});
  CHECK(allocator_config_keys("garbage_collection_threshold:0.8,max_split_size_mb:512") ==
        Keys{"garbage_collection_threshold", "max_split_size_mb"});
  CHECK(allocator_config_keys("roundup_power2_divisions:[256:1,512:2,1024:4,>:8],backend:native") ==
        Keys{"roundup_power2_divisions", "backend"});
  CHECK(allocator_config_keys(" max_split_size_mb : 128 ,, expandable_segments:True") ==
        Keys{"max_split_size_mb", "expandable_segments"});
  CHECK(allocator_config_keys("").empty());
  CHECK(allocator_config_keys("expandable_segment").size() == 1);  // no value: still a key
}

TEST_CASE("sizes as people read them", "[tuning]") {
  CHECK(util::byte_size_text(268435456) == "256 MiB");
  CHECK(util::byte_size_text(25753026560) == "24 GiB");                       // RX 7900 XTX VRAM
  CHECK(util::byte_size_text(std::uint64_t{16651264} * 1024) == "15.9 GiB");  // #5444's rocminfo
  CHECK(util::byte_size_text(1536) == "1.5 KiB");
  CHECK(util::byte_size_text(512) == "512 bytes");
}

TEST_CASE("the directory a tuning setting names", "[tuning]") {
  const std::string home = "/home/alice";
  CHECK(tuning_directory("~/miopen-db/", PathKind::directory, HomeExpansion::expanded, home) ==
        "/home/alice/miopen-db");
  CHECK(tuning_directory("/tmp/miopen-config-alice", PathKind::directory, HomeExpansion::expanded,
                         home) == "/tmp/miopen-config-alice");
  // PyTorch opens the file as named: a "~" is a directory called "~" in the working directory.
  CHECK(tuning_directory("~/tunableop_results%d.csv", PathKind::file, HomeExpansion::literal, home)
            .empty());
  CHECK(tuning_directory("/scratch/alice/tunableop_results%d.csv", PathKind::file,
                         HomeExpansion::literal, home) == "/scratch/alice");
  CHECK(tuning_directory("results.csv", PathKind::file, HomeExpansion::literal, home).empty());
  CHECK(tuning_directory("~/x", PathKind::directory, HomeExpansion::expanded, "").empty());
}

TEST_CASE("values MIOpen and Accelerate do not take", "[tuning]") {
  struct Row {
    const char* env;
    bool accepted;
  };
  const Row rows[] = {
      {R"({"MIOPEN_FIND_MODE": "FAST"})", true},  // ComfyUI's default (Comfy-Org/ComfyUI#10448)
      {R"({"MIOPEN_FIND_MODE": "2"})", true},     // SD.Next (vladmandic/sdnext#4601)
      {R"({"MIOPEN_FIND_MODE": "dynamic_hybrid"})", true},  // upper-cased by MIOpen
      {R"({"MIOPEN_FIND_MODE": "TRUST_VERIFY"})", true},    // newer MIOpen (#3908)
      {R"({"MIOPEN_FIND_MODE": "4"})", false},              // reserved: behaves as NORMAL
      {R"({"MIOPEN_FIND_MODE": "FastHybrid"})", false},     // the CMake spelling: stoul throws
      {R"({"MIOPEN_FIND_MODE": "0"})", false},              // out of range: the default
      {R"({"MIOPEN_DEBUG_CONV_GEMM": "0"})", true},
      {R"({"MIOPEN_DEBUG_CONV_GEMM": "Disabled"})", true},
      {R"({"MIOPEN_DEBUG_CONV_GEMM": "2"})", false},  // MIOPEN_THROW: Invalid value
      {R"({"ACCELERATE_MIXED_PRECISION": "fp16"})", true},
      {R"({"ACCELERATE_MIXED_PRECISION": "float16"})", false},
  };
  for (const auto& row : rows) {
    INFO(row.env);
    Machine machine;
    machine.env = row.env;
    const CheckResult r = check_result(machine.report(), "env.tuning");
    if (row.accepted) {
      CHECK(r.status == Status::pass);
    } else {
      CHECK(r.status == Status::warn);
      CHECK(r.severity == Severity::warning);
      CHECK(r.message.find("is not a value it takes") != std::string::npos);
      REQUIRE(r.fix.size() == 1);
      CHECK(r.fix.front().command.rfind("unset ", 0) == 0);
    }
  }
}

TEST_CASE("MIOpen's layer filtering left at 0 is a debugging setting left on", "[tuning]") {
  Machine machine;
  machine.env = R"({"MIOPEN_DEBUG_CONV_IMPLICIT_GEMM": "0", "MIOPEN_DEBUG_CONV_WINOGRAD": "1"})";
  const Report report = machine.report();
  const CheckResult& r = check_result(report, "env.debug-left-on");
  CHECK(r.status == Status::warn);
  CHECK(r.message.find("MIOPEN_DEBUG_CONV_IMPLICIT_GEMM=0") != std::string::npos);
  CHECK(r.message.find("WINOGRAD") == std::string::npos);  // 1 is the default: on
  CHECK(fix_commands(r) == std::vector<std::string>{"unset MIOPEN_DEBUG_CONV_IMPLICIT_GEMM"});
}

TEST_CASE("allocator keys: unknown, ignored variable", "[tuning]") {
  SECTION("a key no torch knows stops torch at its first allocation") {
    Machine machine;
    machine.env = R"({"PYTORCH_HIP_ALLOC_CONF": "expandable_segment:True"})";
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(r.status == Status::warn);
    CHECK(r.severity == Severity::warning);
    CHECK(r.message.find("a key no torch release knows, expandable_segment") != std::string::npos);
  }
  SECTION("the HIP name is not read when the CUDA name is set") {
    Machine machine;
    machine.env = R"({"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True",
                      "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512"})";
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(r.status == Status::warn);
    CHECK(r.severity == Severity::info);
    CHECK(fix_commands(r) == std::vector<std::string>{"unset PYTORCH_HIP_ALLOC_CONF"});
  }
  SECTION("the same value under both names is not a problem") {
    Machine machine;
    machine.env = R"({"PYTORCH_HIP_ALLOC_CONF": "max_split_size_mb:512",
                      "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512"})";
    CHECK(check_result(machine.report(), "env.tuning").status == Status::pass);
  }
}

TEST_CASE("hipBLASLt and bf16 asked of a target that has neither", "[tuning]") {
  Machine machine;
  machine.gpu = "gfx1030";  // RX 6800: no hipBLASLt in torch, bf16 emulated
  machine.env = R"({"TORCH_BLAS_PREFER_HIPBLASLT": "1", "ACCELERATE_MIXED_PRECISION": "bf16"})";
  const CheckResult r = check_result(machine.report(), "env.tuning");
  CHECK(r.status == Status::warn);
  CHECK(r.severity == Severity::info);
  CHECK(r.message == "2 tuning settings cannot work as meant");
  CHECK(fix_commands(r) == std::vector<std::string>{"unset TORCH_BLAS_PREFER_HIPBLASLT",
                                                    "export ACCELERATE_MIXED_PRECISION=fp16"});
  SECTION("the same settings suit an MI300X") {
    Machine mi300x;
    mi300x.gpu = "gfx942";
    mi300x.env = machine.env;
    CHECK(check_result(mi300x.report(), "env.tuning").status == Status::pass);
  }
}

TEST_CASE("directories MIOpen cannot write, and a home on NFS", "[tuning]") {
  SECTION("a read-only mount") {
    Machine machine;
    machine.env = R"({"MIOPEN_USER_DB_PATH": "/opt/models/miopen"})";
    machine.stats = R"({"/opt/models": {"type": "dir", "mode": "0777", "uid": 0, "gid": 0}})";
    machine.snap.file(
        "/proc/mounts",
        "/dev/sda1 / ext4 rw,relatime 0 0\n/dev/sdb1 /opt/models ext4 ro,relatime 0 0\n");
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(r.status == Status::warn);
    CHECK(r.message.find("/opt/models is on a read-only mount (/opt/models)") != std::string::npos);
    CHECK(fix_commands(r) ==
          std::vector<std::string>{"export MIOPEN_USER_DB_PATH=\"$HOME/.config/miopen\""});
  }
  SECTION("a directory alice may write is fine, one of root's in her home is not") {
    Machine machine;
    machine.stats = R"({"/home/alice": {"type": "dir", "mode": "0750", "uid": 1000, "gid": 1000},
                        "/home/alice/.cache": {"type": "dir", "mode": "0755", "uid": 0, "gid": 0}})";
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(r.status == Status::warn);
    CHECK(r.message.find("MIOpen's kernel cache cannot be written") == 0);
    CHECK(fix_commands(r) == std::vector<std::string>{"sudo chown -R alice: /home/alice/.cache"});
  }
  SECTION("a home on NFS sends MIOpen to /tmp") {
    Machine machine;
    machine.stats = R"({"/home/alice": {"type": "dir", "mode": "0700", "uid": 1000, "gid": 1000}})";
    machine.snap.file("/proc/mounts",
                      "/dev/sda1 / ext4 rw 0 0\n"
                      "nas:/export/home /home nfs4 rw,relatime,vers=4.2 0 0\n");
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(r.status == Status::warn);
    CHECK(r.severity == Severity::info);
    CHECK(r.message.find("is on nfs4 (/home)") != std::string::npos);
    CHECK(fix_commands(r) ==
          std::vector<std::string>{"export MIOPEN_USER_DB_PATH=\"/tmp/miopen-config-$USER\" "
                                   "MIOPEN_CUSTOM_CACHE_DIR=\"/tmp/miopen-cache-$USER\""});
  }
  SECTION("the places are the rules' (env_vars.yaml `place`), not the code's") {
    Knowledge changed = embedded_knowledge();
    for (auto& variable : changed.env_variables) {
      if (variable.name == "MIOPEN_CUSTOM_CACHE_DIR") {
        variable.place->default_place = "~/kernels";
      }
      if (variable.name == "MIOPEN_USER_DB_PATH") {
        variable.place->per_user = "$HOME/miopen-db";
      }
    }
    Machine machine;
    machine.rules = &changed;
    machine.env = R"({"MIOPEN_USER_DB_PATH": "/opt/models/miopen"})";
    machine.stats = R"({"/opt/models": {"type": "dir", "mode": "0777", "uid": 0, "gid": 0},
                        "/home/alice": {"type": "dir", "mode": "0750", "uid": 1000, "gid": 1000},
                        "/home/alice/kernels": {"type": "dir", "mode": "0755", "uid": 0, "gid": 0}})";
    machine.snap.file(
        "/proc/mounts",
        "/dev/sda1 / ext4 rw,relatime 0 0\n/dev/sdb1 /opt/models ext4 ro,relatime 0 0\n");
    const CheckResult r = check_result(machine.report(), "env.tuning");
    CHECK(std::any_of(r.evidence.begin(), r.evidence.end(), [](const std::string& line) {
      return line.find("/home/alice/kernels (the default of MIOPEN_CUSTOM_CACHE_DIR)") !=
             std::string::npos;
    }));
    CHECK(fix_commands(r) ==
          std::vector<std::string>{"export MIOPEN_USER_DB_PATH=\"$HOME/miopen-db\"",
                                   "sudo chown -R alice: /home/alice/kernels"});
  }
  SECTION("a snapshot's own tree says nothing about owners") {
    Machine machine;
    machine.snap.file("/home/alice/.config/placeholder", "");
    CHECK(check_result(machine.report(), "env.tuning").status == Status::pass);
  }
}

TEST_CASE("every target knows what it can do, and says it", "[tuning][rules]") {
  for (const auto& target : embedded_knowledge().targets) {
    INFO(target.name);
    REQUIRE(target.compute);
    CHECK_FALSE(target.compute->source.empty());
    // GCN and CDNA run wave64 only; RDNA defaults to wave32.
    const bool gcn_or_cdna = target.name.size() == 6;  // gfx8xx, gfx9xx
    CHECK(target.compute->wavefronts.front() == (gcn_or_cdna ? 64 : 32));
  }
  const auto compute = [](const char* name) { return *embedded_knowledge().target(name)->compute; };
  CHECK(compute("gfx1030").bf16 == Bf16Support::emulated);
  CHECK_FALSE(compute("gfx1030").hipblaslt);
  CHECK(compute("gfx90a").matrix == MatrixCores::mfma);
  CHECK(compute("gfx942").fp8 == Fp8Format::fnuz);
  CHECK(compute("gfx950").fp8 == Fp8Format::ocp);
  CHECK(compute("gfx1100").matrix == MatrixCores::wmma);
  CHECK(compute("gfx1250").wavefronts == std::vector<int>{32});
  std::ostringstream shown;
  render_target(embedded_knowledge(), *embedded_knowledge().target("gfx1030"), shown);
  CHECK(shown.str().find("compute: wave32 (wave64 too) · fp16 packed · bf16 emulated · fp8 none · "
                         "int8 dot · matrix cores none") != std::string::npos);
  CHECK(shown.str().find("it runs slower than fp16 here: use fp16 for mixed precision") !=
        std::string::npos);
}

TEST_CASE("the memory part of a GPU's inventory line", "[tuning][render]") {
  InventoryGpu gpu;
  CHECK(gpu_memory_text(gpu).empty());  // amdgpu told nothing: no part
  // Radeon Pro 580X without Resizable BAR: 256 MiB of 8 GiB visible (a vulkaninfo/sysfs capture).
  gpu.memory = {8589934592, 268435456, std::nullopt};
  CHECK(gpu_memory_text(gpu) == "VRAM 8 GiB (256 MiB CPU-visible)");
  gpu.memory.vis_vram_total = 8589934592;
  gpu.memory.gtt_total = std::uint64_t{15995} << 20;
  CHECK(gpu_memory_text(gpu) == "VRAM 8 GiB (all CPU-visible), GTT 15.6 GiB");
  // Strix Halo, 96 GiB carve-out on a 6.11 kernel (ROCm/legacy-rocm-build#5444).
  gpu.integrated = true;
  gpu.memory = {103079215104, 103079215104, 17050894336};
  CHECK(gpu_memory_text(gpu) == "VRAM 96 GiB (BIOS carve-out), GTT 15.9 GiB");
  const Report report = run_report(
      SnapshotHost(std::string(ROCDOC_FIXTURES_DIR) + "/strix-halo-old-kernel-96g-carve-out"),
      embedded_knowledge(), {});
  REQUIRE(report.gpus.size() == 1);
  CHECK(report.gpus.front().wavefront == 32u);  // KFD's wave_front_size
  CHECK(report.gpus.front().compute->matrix == MatrixCores::wmma);
  std::ostringstream text;
  render_human(report, text, {});
  CHECK(text.str().find("· amdgpu · VRAM 96 GiB (BIOS carve-out), GTT 15.9 GiB\n") !=
        std::string::npos);
}
