// Exact fix commands and messages of the checks, on fixtures and on small built snapshots.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/checks/checks.h"
#include "src/hosts/snapshot.h"
#include "tests/unit/test_support.h"

using namespace rocdoc;

namespace {

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

Report fixture(const std::string& name) {
  const SnapshotHost host(std::string(ROCDOC_FIXTURES_DIR) + "/" + name);
  return run_report(host, knowledge(), {});
}

const CheckResult& result(const Report& report, std::string_view id) {
  for (const auto& record : report.checks) {
    if (record.info->id == id) {
      return record.result;
    }
  }
  FAIL("check " << id << " is not in the report");
  throw std::logic_error("unreachable");
}

/// A copy, so the report behind it may go.
CheckResult result_of(const std::string& name, std::string_view id) {
  const Report report = fixture(name);
  return result(report, id);
}

std::vector<std::string> commands(const CheckResult& r) {
  std::vector<std::string> list;
  for (const auto& fix : r.fix) {
    list.push_back(fix.command);
  }
  return list;
}

}  // namespace

TEST_CASE("a user outside render gets the exact usermod line", "[checks][perm]") {
  const Report report = fixture("user-not-in-render");
  const CheckResult& kfd = result(report, "perm.kfd");
  CHECK(kfd.status == Status::fail);
  CHECK(commands(kfd) == std::vector<std::string>{"sudo usermod -aG render,video 'alice'"});
  CHECK(kfd.fix.front().needs_root);
  CHECK(result(report, "perm.relogin").status == Status::pass);
}

TEST_CASE("user names are shell-quoted in fix commands", "[checks][perm]") {
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "rocdoc-snapshot/1",
    "identity": {"user": "o'brien", "uid": 1001, "gid": 1001, "groups": [{"name": "o'brien", "gid": 1001}]},
    "nodes": {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 992, "access": "none", "errno": "EACCES"}}})");
  snap.file("/etc/group", "root:x:0:\nrender:x:992:\n");
  const Report report = run_report(SnapshotHost(snap.dir()), knowledge(), {});
  CHECK(commands(result(report, "perm.kfd")) ==
        std::vector<std::string>{"sudo usermod -aG render 'o'\\''brien'"});
}

TEST_CASE("a user listed in /etc/group but not in the session is told to log in again",
          "[checks][perm]") {
  const Report report = fixture("user-needs-relogin");
  const CheckResult& relogin = result(report, "perm.relogin");
  CHECK(relogin.status == Status::fail);
  CHECK(commands(relogin) == std::vector<std::string>{"newgrp render"});
  CHECK(commands(result(report, "perm.kfd")) == std::vector<std::string>{"newgrp render"});
}

TEST_CASE("container fixes are docker flags with numeric gids", "[checks][container]") {
  const Report groups = fixture("container-groups-missing");
  CHECK(commands(result(groups, "perm.container-groups")) ==
        std::vector<std::string>{"--group-add 110"});
  const Report no_kfd = fixture("container-no-kfd");
  CHECK(commands(result(no_kfd, "driver.kfd-missing")) ==
        std::vector<std::string>{"--device=/dev/kfd --device=/dev/dri"});
  CHECK(result(no_kfd, "rocm.agents").status == Status::skip);
  CHECK(commands(result(no_kfd, "shm.small")) ==
        std::vector<std::string>{"--ipc=host", "--shm-size=8g"});
}

TEST_CASE("a blacklisted amdgpu names the file and line to change", "[checks][driver]") {
  const Report report = fixture("amdgpu-blacklisted");
  const CheckResult& missing = result(report, "driver.amdgpu-missing");
  CHECK(missing.status == Status::fail);
  const auto list = commands(missing);
  REQUIRE(list.size() >= 3);
  CHECK(list[0] == "sudo sed -i '1s/^/# /' '/etc/modprobe.d/blacklist-amdgpu.conf'");
  CHECK(list[1] == "sudo update-initramfs -u");
  CHECK(list[2] == "sudo modprobe amdgpu");
}

TEST_CASE("NUMA balancing is an error on MI300X and names sysctl and a drop-in",
          "[checks][system]") {
  const CheckResult numa = result_of("mi300x-numa-balancing", "numa.balancing");
  CHECK(numa.status == Status::fail);
  CHECK(numa.severity == Severity::error);
  CHECK(commands(numa) ==
        std::vector<std::string>{
            "sudo sysctl -w kernel.numa_balancing=0",
            "echo 'kernel.numa_balancing=0' | sudo tee /etc/sysctl.d/99-rocm-numa-balancing.conf"});
}

TEST_CASE("an iGPU beside a dGPU gets the dGPU's HIP index pinned", "[checks][hardware]") {
  const CheckResult igpu = result_of("igpu-and-dgpu", "gpu.igpu-visible");
  // An error since issue 22 (N17): what follows from it (arch.unsupported for the iGPU) is one.
  CHECK(igpu.status == Status::fail);
  CHECK(igpu.severity == Severity::error);
  CHECK(commands(igpu).front().rfind("export HIP_VISIBLE_DEVICES=", 0) == 0);
  const CheckResult vfio = result_of("gpu-vfio-pci", "gpu.igpu-visible");
  CHECK(vfio.status == Status::pass);  // the dGPU is held by vfio-pci: ROCm sees only the iGPU
}

TEST_CASE("the degraded link is measured at the card's switch upstream port",
          "[checks][hardware]") {
  const CheckResult link = result_of("pcie-link-degraded", "pcie.link-degraded");
  CHECK(link.status == Status::warn);
  CHECK(commands(link) ==
        std::vector<std::string>{"sudo lspci -vv -s 0000:01:00.0 | grep -E 'LnkCap|LnkSta'"});
  CHECK(result_of("rx7900xtx-healthy", "pcie.link-degraded").status == Status::pass);
}

TEST_CASE("WSL2 skips every bare-metal check and says why", "[checks][wsl]") {
  const Report report = fixture("wsl2");
  for (const auto& record : report.checks) {
    if (record.info->scope == Scope::bare_metal) {
      INFO(record.info->id);
      CHECK(record.result.status == Status::skip);
      CHECK(record.result.message.find("WSL") != std::string::npos);
    }
  }
  CHECK(result(report, "os.wsl").severity == Severity::info);
}

TEST_CASE("an NVIDIA-only host fails gpu.none and names the NVIDIA GPUs", "[checks][hardware]") {
  const CheckResult none = result_of("nvidia-only", "gpu.none");
  CHECK(none.status == Status::fail);
  CHECK(none.message.find("NVIDIA") != std::string::npos);
  CHECK(none.evidence.size() == 2);
}

TEST_CASE("check selection (only, skip) and exit codes per fail level", "[checks][runner]") {
  const SnapshotHost host(std::string(ROCDOC_FIXTURES_DIR) + "/pcie-link-degraded");
  const Report all = run_report(host, knowledge(), {});
  CHECK(exit_code_for(all, FailOn::error) == 0);
  CHECK(exit_code_for(all, FailOn::warning) == 1);
  CHECK(exit_code_for(all, FailOn::never) == 0);
  CheckSelection only;
  only.only = {"gpu.none", "perm.kfd"};
  CHECK(run_report(host, knowledge(), only).checks.size() == 2);
  CheckSelection skip;
  skip.skip = {"pcie.link-degraded"};
  const Report skipped = run_report(host, knowledge(), skip);
  CHECK(exit_code_for(skipped, FailOn::warning) == 0);
}

TEST_CASE("a DKMS driver four releases from the user space is flagged", "[checks][driver]") {
  const CheckResult version = result_of("dkms-driver-too-old", "driver.version");
  CHECK(version.status == Status::warn);
  CHECK(version.message.find("ROCm 6.0") != std::string::npos);
  CHECK(commands(version) == std::vector<std::string>{"sudo amdgpu-install --usecase=dkms"});
  CHECK(result_of("rx7900xtx-healthy", "driver.version").status == Status::skip);
}

// ---- the software half: exact remedies --------------------------------------------------

TEST_CASE("gfx1031 gets AMD's per-target wheel, then the 10.3.0 override said to be unofficial",
          "[checks][arch]") {
  // AMD's 10.x stable sets list only the targets AMD supports (the safe choice, kb-audit W3):
  // gfx1031 gets the newest 7.14 build, the 7.14.1 rebuild.
  const CheckResult r = result_of("rx6700xt-no-override", "arch.unsupported");
  CHECK(r.status == Status::fail);
  CHECK(
      commands(r) ==
      std::vector<std::string>{
          "'/home/alice/venv/bin/python3' -m pip install --index-url "
          "https://repo.amd.com/rocm/whl-multi-arch/ \"torch[device-gfx1031]==2.12.0+rocm7.14.1\" "
          "\"torchvision[device-gfx1031]==0.27.0+rocm7.14.1\" \"torchaudio==2.11.0+rocm7.14.1\"",
          "export HSA_OVERRIDE_GFX_VERSION=10.3.0"});
  CHECK(r.fix.back().description.find("unofficial") != std::string::npos);
  CHECK(result_of("rx6700xt-override-10-3-0", "arch.unsupported").status == Status::pass);
}

TEST_CASE("a wrong override is corrected to the value that works", "[checks][arch]") {
  for (const char* fixture : {"rx6700xt-override-10-3-1", "rdna2-override-11"}) {
    INFO(fixture);
    const CheckResult r = result_of(fixture, "arch.override-wrong");
    CHECK(r.status == Status::fail);
    CHECK(commands(r) == std::vector<std::string>{"export HSA_OVERRIDE_GFX_VERSION=10.3.0"});
  }
  // A cross-family value is arch.override-wrong's alone; a value equal to the GPU's own target
  // (10.3.1 on gfx1031) leaves it without code, which arch.unsupported reports too.
  CHECK(result_of("rdna2-override-11", "arch.unsupported").status == Status::pass);
  CHECK(result_of("rx6700xt-override-10-3-1", "arch.unsupported").status == Status::fail);
}

TEST_CASE("a dangerous override is never suggested: the fix unsets it", "[checks][arch]") {
  const CheckResult r = result_of("apu-780m-override-11", "arch.override-wrong");
  CHECK(r.status == Status::fail);
  CHECK(r.message.find("dangerous") != std::string::npos);
  const auto list = commands(r);
  REQUIRE_FALSE(list.empty());
  // Every remedy takes the dangerous value away first.
  for (const auto& command : list) {
    CHECK(command.rfind("unset HSA_OVERRIDE_GFX_VERSION", 0) == 0);
  }
  for (const auto& command : list) {
    CHECK(command.find("export HSA_OVERRIDE_GFX_VERSION") == std::string::npos);
  }
  const CheckResult gfx90c = result_of("apu-gfx90c", "arch.unsupported");
  // Issue 22, N11: the source build as PyTorch's README gives it, the variable set for the build
  // command (was a lone `export PYTORCH_ROCM_ARCH=gfx90c`), and which ROCm it needs.
  CHECK(commands(gfx90c) ==
        std::vector<std::string>{
            "git clone --recursive https://github.com/pytorch/pytorch && cd pytorch && "
            "'/home/alice/venv/bin/python3' tools/amd_build/build_amd.py && "
            "'/home/alice/venv/bin/python3' -m pip install -r requirements.txt && "
            "PYTORCH_ROCM_ARCH=gfx90c '/home/alice/venv/bin/python3' -m pip install "
            "--no-build-isolation -v -e ."});
  CHECK(gfx90c.fix.front().description.find("No supported path") != std::string::npos);
  CHECK(gfx90c.fix.front().description.find(
            "no ROCm release these rules know lists it, so an older or a community-patched ROCm") !=
        std::string::npos);
}

TEST_CASE("RX 7600 on torch 2.6 gets the torch 2.7 line: on torch 2.7 the override is unneeded",
          "[checks][arch]") {
  const CheckResult old = result_of("rx7600-torch26", "arch.unsupported");
  REQUIRE(old.fix.size() == 2);
  CHECK(old.fix[0].command ==
        "'/home/alice/venv/bin/python3' -m pip install torch==2.7.0 torchvision==0.22.0 "
        "torchaudio==2.7.0 --index-url https://download.pytorch.org/whl/rocm6.3");
  CHECK(old.fix[1].command == "export HSA_OVERRIDE_GFX_VERSION=11.0.0");
  const CheckResult unneeded = result_of("rx7600-torch27", "arch.override-unneeded");
  CHECK(unneeded.status == Status::warn);
  CHECK(commands(unneeded) == std::vector<std::string>{"unset HSA_OVERRIDE_GFX_VERSION"});
}

TEST_CASE("a CUDA wheel is replaced by the ROCm build of the same torch version",
          "[checks][torch]") {
  const CheckResult r = result_of("cuda-wheel-pytorch-org", "torch.cuda-wheel");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) ==
        std::vector<std::string>{
            // PyPI's CUDA triton goes too: left beside the ROCm torch it breaks torch.compile.
            "'/home/alice/venv/bin/python3' -m pip uninstall -y torch torchvision torchaudio "
            "triton",
            "'/home/alice/venv/bin/python3' -m pip install torch==2.6.0 torchvision==0.21.0 "
            "torchaudio==2.6.0 --index-url https://download.pytorch.org/whl/rocm6.2.4"});
}

TEST_CASE("a wheel whose bundled rocBLAS lacks the target is not code for it", "[checks][arch]") {
  // torch 2.14.1's rocm7.14 wheels have no gfx906 kernels; its rocm7.2 wheels list gfx906 but
  // bundle ROCm 7.2's rocBLAS, which has none (rules/rocm_releases.yaml library_targets): the
  // remedy is the newest wheel whose bundled ROCm (6.3) still has gfx906 kernels.
  const CheckResult r = result_of("mi50-torch214-rocm714-no-code", "arch.unsupported");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) ==
        std::vector<std::string>{"'/home/alice/venv/bin/python3' -m pip install torch==2.9.1 "
                                 "torchvision==0.24.1 torchaudio==2.9.1 --index-url "
                                 "https://download.pytorch.org/whl/rocm6.3"});
  const CheckResult krackan = result_of("krackan2-gfx1153-amd-device-wheel", "arch.unsupported");
  CHECK(
      commands(krackan) ==
      std::vector<std::string>{
          "'/home/alice/venv/bin/python3' -m pip install --index-url "
          "https://stable.repo.amd.com/rocm/whl-next/ \"torch[device-gfx1153]==2.14.0+rocm10.1.0\" "
          "\"torchvision[device-gfx1153]==0.29.0a0+rocm10.1.0\" "
          "\"torchaudio==2.11.0.3+rocm10.1.0\""});
  CHECK_THAT(krackan.message, Catch::Matchers::Contains("gfx1153"));
  // Its pip ROCm 7.14.1 has no device package at all: no gfx1153 code there either.
  CHECK_THAT(krackan.message,
             Catch::Matchers::Contains("in the pip ROCm SDK 7.14.1 in /home/alice/venv/lib/"));
}

TEST_CASE("pip ROCm packages are judged by their family and device packages", "[checks][arch]") {
  // ROCm/TheRock#2249: gfx110X-dgpu's libraries on a Radeon 780M (gfx1103).
  const CheckResult wrong = result_of("apu-780m-therock-wrong-family", "arch.unsupported");
  CHECK(wrong.status == Status::fail);
  CHECK_THAT(wrong.message,
             Catch::Matchers::StartsWith(
                 "no code for gfx1103 (Phoenix1 iGPU (Radeon 780M Graphics)) in the pip ROCm SDK "
                 "7.13.0 in "
                 "/home/alice/venv/lib/python3.10/site-packages (rocm-sdk-libraries-gfx110x-dgpu: "
                 "gfx1100 gfx1101 gfx1102)"));
  CHECK(
      commands(wrong) ==
      std::vector<std::string>{
          "'/home/alice/venv/bin/python3' -m pip uninstall -y rocm-sdk-libraries-gfx110x-dgpu "
          "&& '/home/alice/venv/bin/python3' -m pip install --index-url "
          "https://stable.repo.amd.com/rocm/whl-next/ \"torch[device-gfx1103]==2.14.0+rocm10.1.0\" "
          "\"torchvision[device-gfx1103]==0.29.0a0+rocm10.1.0\" "
          "\"torchaudio==2.11.0.3+rocm10.1.0\""});
  // The pip ROCm is told apart from /opt/rocm.
  const CheckResult multiple = result_of("apu-780m-therock-wrong-family", "rocm.multiple");
  CHECK(multiple.status == Status::pass);
  CHECK(multiple.message ==
        "one ROCm install under /opt; ROCm 7.13.0 as pip packages in "
        "/home/alice/venv/lib/python3.10/site-packages (what Python there loads, not /opt/rocm)");
  // AMD's install line copied with its example extra: gfx942's device packages on a gfx1100.
  const CheckResult device = result_of("amd-multiarch-torch-wrong-device", "arch.unsupported");
  CHECK(device.status == Status::fail);
  CHECK_THAT(
      device.message,
      Catch::Matchers::StartsWith(
          "no code for gfx1100 (Radeon RX 7900 XTX) in torch 2.12.0+rocm7.14.0's device "
          "packages in /home/alice/venv/lib/python3.12/site-packages (amd-torch-device-* for "
          "gfx942); no code for gfx1100 (Radeon RX 7900 XTX) in the pip ROCm SDK 7.14.0"));
  CHECK(
      commands(device) ==
      std::vector<std::string>{
          "'/home/alice/venv/bin/python3' -m pip install --index-url "
          "https://repo.amd.com/rocm/whl-multi-arch/ \"torch[device-gfx1100]==2.12.0+rocm7.14.0\" "
          "\"torchvision[device-gfx1100]==0.27.0+rocm7.14.0\" \"torchaudio==2.11.0+rocm7.14.0\""});
  // A family that has the GPU: code (TheRock's nightly for gfx1151 has rocm-sdk-libraries-gfx1151).
  CHECK(result_of("therock-nightly-gfx1151", "arch.unsupported").status == Status::pass);
}

TEST_CASE("a torch newer than the rules is said, never downgraded", "[checks][torch]") {
  const Report report = fixture("torch-newer-than-rules");
  bool noted = false;
  for (const auto& note : report.notes) {
    noted = noted || note.find("is newer than these rules (revision") != std::string::npos;
  }
  CHECK(noted);
  for (const auto& record : report.checks) {
    for (const auto& fix : record.result.fix) {
      INFO(record.info->id << ": " << fix.command);
      CHECK(fix.command.find("pip install torch==") == std::string::npos);
    }
  }
}

TEST_CASE("a leftover CPU torch beside a working ROCm venv is a notice: python3's is an error",
          "[checks][torch]") {
  // Issue 22, N8 (was an error with `sudo apt remove python3-torch`): python3 runs the venv.
  const CheckResult leftover = result_of("torch-two-envs", "torch.cpu-wheel");
  CHECK(leftover.status == Status::warn);
  CHECK(leftover.severity == Severity::info);
  REQUIRE(leftover.evidence.size() == 1);
  CHECK(leftover.evidence.front().find("/usr/lib/python3/dist-packages") != std::string::npos);
  CHECK(commands(leftover) == std::vector<std::string>{""});
  // N2: Debian 12's externally managed Python runs the CPU torch: a venv, as commands, and the
  // newest release for gfx1100 with Python 3.11 wheels (was torch 2.1.0, "nearest" to 1.13).
  const CheckResult system = result_of("cpu-wheel", "torch.cpu-wheel");
  CHECK(system.status == Status::fail);
  CHECK(system.evidence.front().find(": python3 runs it") != std::string::npos);
  CHECK(commands(system) ==
        std::vector<std::string>{
            "sudo apt install python3-venv", "python3 -m venv ~/rocm-venv",
            "~/rocm-venv/bin/python -m pip install torch==2.14.1 torchvision==0.29.1 "
            "torchaudio==2.11.0 --index-url https://download.pytorch.org/whl/rocm7.14",
            ". ~/rocm-venv/bin/activate"});
}

TEST_CASE("software fixes: companions, LD_LIBRARY_PATH, WSL, variables",
          "[checks][torch][wsl][env]") {
  CHECK(commands(result_of("torchvision-cu-mismatch", "torch.companions")) ==
        std::vector<std::string>{"'/home/alice/venv/bin/python3' -m pip install --force-reinstall "
                                 "torch==2.6.0 torchvision==0.21.0 torchaudio==2.6.0 --index-url "
                                 "https://download.pytorch.org/whl/rocm6.2.4"});
  CHECK(commands(result_of("torch-rocm61-system-rocm62", "torch.rocm-mismatch")) ==
        std::vector<std::string>{"unset LD_LIBRARY_PATH"});
  CHECK(commands(result_of("wsl2-bundled-hsa-runtime", "wsl.torch-bundled-runtime")) ==
        std::vector<std::string>{
            "rm '/home/alice/venv/lib/python3.10/site-packages/torch/lib/libhsa-runtime64.so'"});
  CHECK(commands(result_of("wsl1", "wsl.version1")) ==
        std::vector<std::string>{"wsl --set-version 'Ubuntu-22.04' 2"});
  CHECK(commands(result_of("tunable-backend-typo", "env.unknown")) ==
        std::vector<std::string>{
            "unset PYTORCH_TUNABLE_BACKEND && export PYTORCH_TUNABLEOP_ENABLED=1"});
  CHECK(commands(result_of("hip-visible-devices-missing-gpu", "env.visible-devices")) ==
        std::vector<std::string>{"export HIP_VISIBLE_DEVICES=0"});
  CHECK(commands(result_of("rocm-arch-excludes-gpu", "env.rocm-arch")) ==
        std::vector<std::string>{"export PYTORCH_ROCM_ARCH=\"gfx90a;gfx1100\""});
  CHECK(result_of("full-stack-healthy", "arch.unsupported").status == Status::pass);
}

TEST_CASE("a wheel's libhsa-runtime64 already replaced by ROCm's WSL runtime is not flagged",
          "[checks][wsl]") {
  const auto run = [](std::uint64_t wheel_size) {
    test::TempSnapshot snap;
    snap.manifest(fmt::format(R"({{"format": "rocdoc-snapshot/1",
      "uname": {{"sysname": "Linux", "release": "5.15.167.4-microsoft-standard-WSL2"}},
      "identity": {{"user": "alice", "uid": 1000, "gid": 1000}},
      "env": {{"VIRTUAL_ENV": "/home/alice/venv"}},
      "nodes": {{"/dev/dxg": {{"type": "char", "mode": "0666", "access": "rw"}}}},
      "links": {{"/opt/rocm": "/opt/rocm-6.4.2"}},
      "binaries": {{"/opt/rocm-6.4.2/lib/libhsa-runtime64.so.1": {{"size": 3276800}},
        "/home/alice/venv/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so": {{"size": {}}}}}}})",
                              wheel_size));
    snap.file("/opt/rocm-6.4.2/.info/version", "6.4.2-120\n");
    snap.file("/usr/lib/wsl/lib/libdxcore.so", "");
    snap.file("/home/alice/venv/lib/python3.12/site-packages/torch/version.py",
              "__version__ = '2.6.0+rocm6.2.4'\ncuda = None\nhip = '6.2.41134-65d174c3e'\n");
    const Report report = run_report(SnapshotHost(snap.dir()), knowledge(), {});
    return result(report, "wsl.torch-bundled-runtime");
  };
  CHECK(run(3276800).status == Status::pass);
  const CheckResult bundled = run(1048576);
  CHECK(bundled.status == Status::fail);
  CHECK(commands(bundled) ==
        std::vector<std::string>{
            "rm '/home/alice/venv/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so'"});
}

TEST_CASE("a per-node override under a ROCm too old to read it is wrong: the fix keeps it",
          "[checks][arch]") {
  const CheckResult r = result_of("per-node-override-rocm62", "arch.override-wrong");
  CHECK(r.status == Status::fail);
  CHECK(r.message.find("read only from ROCm 6.3") != std::string::npos);
  CHECK(commands(r) ==
        std::vector<std::string>{"'/home/alice/venv/bin/python3' -m pip install torch==2.7.0 "
                                 "torchvision==0.22.0 torchaudio==2.7.0 --index-url "
                                 "https://download.pytorch.org/whl/rocm6.3"});
  CHECK(result_of("per-node-override", "arch.override-wrong").status == Status::pass);
}

// ---- issue 6: the exact fixes of the capabilities real machines needed -----------------------

using Commands = std::vector<std::string>;

TEST_CASE("broken firmware gets this distribution's steps only", "[checks][driver]") {
  const CheckResult r = result_of("strix-halo-mes-0x83-fedora", "driver.firmware");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) ==
        Commands{"sudo dnf install fedora-repos-archive && sudo dnf --enablerepo=updates-archive "
                 "downgrade amd-gpu-firmware-20251111 && sudo dracut -f",
                 "cat /sys/class/drm/card*/device/fw_version/mes_fw_version"});
  CHECK(result_of("strix-halo-mes-0x80-ubuntu", "driver.firmware").status == Status::pass);
}

TEST_CASE("a DKMS driver not built for the running kernel", "[checks][driver]") {
  const CheckResult r = result_of("dkms-not-built-for-hwe-kernel", "driver.dkms-build");
  CHECK(r.status == Status::warn);
  // Three ways out, any one of them; the failed build's log is evidence, named in the first.
  CHECK(commands(r) ==
        Commands{"sudo dkms install amdgpu/'6.12.12-2164967.24.04' -k '6.14.0-24-generic'",
                 "sudo apt purge amdgpu-dkms && sudo amdgpu-install --usecase=rocm --no-dkms", ""});
  CHECK(r.fix_order == FixOrder::alternatives);
  CHECK_THAT(
      r.fix.front().description,
      Catch::Matchers::Contains("/var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log"));
  for (const auto& fix : r.fix) {
    CHECK(fix.needs_reboot);
    CHECK(fix.description.rfind("Or ", 0) == std::string::npos);
  }
}

TEST_CASE("WSL with a ROCm that needs DXG detection switched on", "[checks][wsl]") {
  const CheckResult r = result_of("wsl2-rocm72-no-dxg-detection", "wsl.dxg-detection");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) == Commands{"export HSA_ENABLE_DXG_DETECTION=1",
                                "echo 'export HSA_ENABLE_DXG_DETECTION=1' >> ~/.bashrc"});
  CHECK(result_of("wsl2-healthy", "wsl.dxg-detection").status == Status::pass);
}

TEST_CASE("HIP_PATH left from a removed ROCm points at the installed one", "[checks][env]") {
  const CheckResult r = result_of("stale-hip-path-after-upgrade", "env.rocm-path");
  CHECK(r.status == Status::warn);
  CHECK(commands(r) == Commands{"export HIP_PATH='/opt/rocm'"});
}

TEST_CASE("rootless containers keep the host groups, never --group-add 65534", "[checks][perm]") {
  for (const char* id : {"perm.kfd", "perm.render", "perm.container-groups"}) {
    INFO(id);
    const CheckResult r = result_of("rootless-distrobox-nogroup", id);
    CHECK(r.status == Status::fail);
    // The box's own name (/run/.containerenv), copied: toolbx passes nothing after `--`.
    CHECK(commands(r) ==
          Commands{"--group-add keep-groups",
                   "distrobox stop llama-rocm-7.2 && distrobox create --clone llama-rocm-7.2 "
                   "--name llama-rocm-7.2-gpu --additional-flags \"--group-add keep-groups\" && "
                   "distrobox enter llama-rocm-7.2-gpu"});
    CHECK(r.fix_order == FixOrder::alternatives);
  }
}

TEST_CASE("a pod known by its mounts gets the pod spec's fixes", "[checks][perm]") {
  // cgroup "0::/", no marker file: the service-account mount and containerd's root say "pod".
  const Report report = fixture("k8s-pod-cgroupns-groups-missing");
  for (const char* id : {"perm.kfd", "perm.render", "perm.container-groups"}) {
    INFO(id);
    const CheckResult& r = result(report, id);
    CHECK(r.status == Status::fail);
    CHECK(commands(r) == Commands{"supplementalGroups: [110]"});
    CHECK(r.fix.front().kind == FixKind::file_edit);
  }
  CHECK(commands(result(report, "shm.small")) ==
        Commands{"- {name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}"});
}

TEST_CASE("under sudo, permissions are the invoking user's", "[checks][perm]") {
  const Report report = fixture("sudo-user-not-in-render");
  CHECK(commands(result(report, "perm.kfd")) == Commands{"sudo usermod -aG render 'alice'"});
  CHECK(result(report, "perm.relogin").status == Status::skip);
  REQUIRE(report.notes.size() == 1);
  CHECK(report.notes.front().rfind("rocdoc runs as root through sudo", 0) == 0);
}

TEST_CASE("noexec /dev on an APU: remount, then find what sets it", "[checks][driver]") {
  const CheckResult r = result_of("raven-apu-dev-noexec", "driver.kfd-unusable");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) == Commands{"sudo mount -o remount,exec '/dev'",
                                "grep -rn noexec /etc/fstab /etc/systemd/system/*.mount"});
  CHECK(result_of("raven-apu-dev-noexec", "perm.kfd").status == Status::pass);
  // Current kernels: EPERM from do_mmap's PROT_EXEC refusal, and the kernel says so.
  const CheckResult eperm = result_of("apu-dev-noexec-eperm", "driver.kfd-unusable");
  CHECK(eperm.status == Status::fail);
  CHECK(eperm.message.rfind("/dev is mounted noexec", 0) == 0);
  CHECK(commands(eperm) == commands(r));
  CHECK(std::any_of(eperm.evidence.begin(), eperm.evidence.end(), [](const std::string& e) {
    return e.find("Failure to set tba address. error -1.") != std::string::npos;
  }));
}

TEST_CASE("the mask that goes wrong is the one fixed", "[checks][env]") {
  const CheckResult r = result_of("mi300x-rocr-then-hip-mask", "env.visible-devices");
  CHECK(r.status == Status::fail);
  CHECK(r.message.rfind("HIP_VISIBLE_DEVICES=\"1\"", 0) == 0);
  CHECK(commands(r) == Commands{"export HIP_VISIBLE_DEVICES=0"});
}

TEST_CASE("a stale Triton and a PyPI torchvision beside a ROCm torch", "[checks][torch]") {
  CHECK(commands(result_of("torch210-stale-pytorch-triton-rocm", "torch.companions")) ==
        Commands{"'/home/alice/venv/bin/python3' -m pip uninstall -y pytorch-triton-rocm",
                 "'/home/alice/venv/bin/python3' -m pip install --force-reinstall torch==2.10.0 "
                 "torchvision==0.25.0 torchaudio==2.10.0 --index-url "
                 "https://download.pytorch.org/whl/rocm7.1"});
  CHECK(commands(result_of("torchvision-from-pypi-beside-rocm-torch", "torch.companions")) ==
        Commands{"'/home/alice/venv/bin/python3' -m pip install --force-reinstall torch==2.6.0 "
                 "torchvision==0.21.0 torchaudio==2.6.0 --index-url "
                 "https://download.pytorch.org/whl/rocm6.2.4"});
  // Beside AMD's multi-arch torch: the companions of that torch from its own index.
  CHECK(commands(result_of("amd-multiarch-torch-pypi-torchvision", "torch.companions")) ==
        Commands{"'/home/alice/venv/bin/python3' -m pip install --index-url "
                 "https://repo.amd.com/rocm/whl-multi-arch/ "
                 "\"torchvision[device-gfx1100]==0.27.0+rocm7.14.0\" "
                 "\"torchaudio==2.11.0+rocm7.14.0\""});
  // Beside a repo.radeon.com torch (rules `radeon_wheels`): AMD's two files of that release for
  // the environment's CPython, by URL (the directory is no index).
  const CheckResult radeon = result_of("amd-torch-pypi-torchvision", "torch.companions");
  CHECK(commands(radeon) ==
        Commands{"'/home/alice/venv/bin/python3' -m pip install "
                 "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"
                 "torchvision-0.21.0%2Brocm6.4.1.git4040d51f-cp312-cp312-linux_x86_64.whl "
                 "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"
                 "torchaudio-2.6.0%2Brocm6.4.1.gitd8831425-cp312-cp312-linux_x86_64.whl"});
  // The same torch in a CPython AMD built no files for: words, never a URL pip would refuse.
  Report other_python = fixture("amd-torch-pypi-torchvision");
  for (auto& environment : other_python.facts.python->environments) {
    environment.python_version = "3.11";
  }
  const GpuInventory gpus = build_gpu_inventory(other_python.facts, knowledge());
  const CheckResult words =
      checks::torch_companions(CheckContext{other_python.facts, knowledge(), gpus.gpus, {}});
  CHECK(commands(words) == Commands{""});
  CHECK(words.fix.front().description.find("AMD builds them for CPython 3.10, 3.12; this "
                                           "environment's CPython is 3.11") != std::string::npos);
  // A torch of AMD's that no rules entry names: where it came from, in words.
  Report unlisted = fixture("amd-torch-pypi-torchvision");
  Knowledge without_files = knowledge();
  without_files.radeon_wheels.clear();
  const CheckResult unknown = checks::torch_companions(CheckContext{
      unlisted.facts, without_files, build_gpu_inventory(unlisted.facts, without_files).gpus, {}});
  CHECK(commands(unknown) == Commands{""});
  CHECK(unknown.fix.front().description.find("from where this torch came from") !=
        std::string::npos);
  CHECK(result_of("amd-radeon-repo-torch", "torch.companions").status == Status::pass);
  CHECK(result_of("amd-radeon-repo-torch", "torch.rocm-mismatch").status == Status::pass);
}

TEST_CASE("GPU faults of this boot: kinds, counts, times, and one recovered reset",
          "[checks][driver]") {
  const CheckResult hang = result_of("strix-halo-mes-hang-reset", "driver.gpu-faults");
  CHECK(hang.status == Status::fail);
  CHECK(hang.severity == Severity::error);
  CHECK(hang.message ==
        "the GPU faulted this boot: 1 GPU reset or ring timeout at 127033.279661 s, recovered; "
        "1 MES/KIQ hang at 127037.563935 s");
  CHECK(commands(hang) == Commands{"rocdoc snapshot --redact", ""});
  CHECK(hang.fix.back().description.find("https://gitlab.freedesktop.org/drm/amd/-/issues") !=
        std::string::npos);
  const CheckResult reset = result_of("gpu-reset-recovered", "driver.gpu-faults");
  CHECK(reset.status == Status::warn);
  CHECK(reset.severity == Severity::warning);
  CHECK(reset.message ==
        "the GPU faulted this boot: 1 GPU reset or ring timeout at 312.522692 s, recovered");
  // A log without faults passes; no log read at all skips.
  CHECK(result_of("apu-dev-noexec-eperm", "driver.gpu-faults").status == Status::pass);
  CHECK(result_of("full-stack-healthy", "driver.gpu-faults").status == Status::skip);
}

TEST_CASE("GPU faults from the RAS counters: uncorrectable errors and retired pages",
          "[checks][driver]") {
  // full-stack-healthy with amdgpu's ras/ files as amdgpu_ras_sysfs_read writes them ("ue: %lu
  // \nce: %lu\n") and three bad-page records ("0x%08x : 0x%08x : %1s", amdgpu_ras.c).
  namespace fs = std::filesystem;
  const fs::path copy = fs::temp_directory_path() / ("rocdoc-ras-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(std::string(ROCDOC_FIXTURES_DIR) + "/full-stack-healthy", copy,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path ras = copy / "root/sys/bus/pci/devices/0000:03:00.0/ras";
  fs::create_directories(ras);
  std::ofstream(ras / "umc_err_count") << "ue: 2\nce: 5\n";
  std::ofstream(ras / "gfx_err_count") << "ue: 0\nce: 1\n";
  // The eight reserved pages of a real capture (dri-devel, Shuai Xue, 2024-12-30: an injected
  // UMC error, `cat …/ras/gpu_vram_bad_pages | grep 27f5`), and one pending page.
  std::ofstream(ras / "gpu_vram_bad_pages")
      << "0x027f5d43 : 0x00001000 : R\n0x027f5d4b : 0x00001000 : R\n0x027f5d53 : 0x00001000 : R\n"
         "0x027f5d5b : 0x00001000 : R\n0x027f5f43 : 0x00001000 : R\n0x027f5f4b : 0x00001000 : R\n"
         "0x027f5f53 : 0x00001000 : R\n0x027f5f5b : 0x00001000 : R\n0x00000003 : 0x00001000 : P\n";
  const SnapshotHost host(copy.string());
  const Report report = run_report(host, knowledge(), {});
  const CheckResult r = result(report, "driver.gpu-faults");
  fs::remove_all(copy);
  CHECK(r.status == Status::fail);
  CHECK(r.severity == Severity::error);
  CHECK(r.message.find("counts 2 uncorrectable ECC errors (umc 2)") != std::string::npos);
  CHECK(r.message.find("has retired 9 VRAM pages for errors") != std::string::npos);
  CHECK(std::find_if(r.evidence.begin(), r.evidence.end(), [](const std::string& e) {
          return e.find("ras/gfx_err_count ue 0 ce 1") != std::string::npos;
        }) != r.evidence.end());
}

TEST_CASE("a wheel's ROCm differs from LD_LIBRARY_PATH's by patch level", "[checks][torch]") {
  const CheckResult r = result_of("torch-rocm60-wheel-over-rocm602", "torch.rocm-mismatch");
  CHECK(r.status == Status::warn);
  CHECK(commands(r) == Commands{"unset LD_LIBRARY_PATH"});
}

TEST_CASE("GPUs are counted once however KFD numbers them", "[checks][kfd]") {
  const Report cpx = fixture("mi300x-cpx-partitions");
  CHECK(result(cpx, "gpu.none").message == "8 AMD GPUs found");
  const Report old_kernel = fixture("mi25-kernel-no-gfx-target-version");
  CHECK(result(old_kernel, "rocm.agents").status == Status::pass);
  CHECK(result(old_kernel, "gpu.none").message == "1 AMD GPU found");
  const CheckResult container = result_of("container-given-1-of-8", "rocm.agents");
  CHECK(container.status == Status::warn);
  CHECK(container.severity == Severity::info);
  CHECK(container.message == "7 GPUs of this host were not passed into this container");
  CHECK(result_of("apu-no-kfd-node-only-gpu", "rocm.agents").status == Status::fail);
  CHECK(result_of("apu-no-kfd-node-beside-dgpu", "rocm.agents").severity == Severity::info);
  CHECK(result_of("apu-no-kfd-node-beside-dgpu", "gpu.igpu-visible").status == Status::pass);
}

TEST_CASE("code without AMD's blessing is a notice, not an error", "[checks][arch]") {
  const CheckResult r = result_of("rx7600-rocm64-works-not-supported", "arch.unsupported");
  CHECK(r.status == Status::warn);
  CHECK(r.severity == Severity::info);
  CHECK(r.message.rfind("Works, not supported by AMD", 0) == 0);
}

TEST_CASE("python3 on PATH that rocdoc cannot follow is said at the top", "[checks][python]") {
  const Report report = fixture("asdf-shim-python-uninspected");
  REQUIRE(report.notes.size() == 1);
  CHECK(report.notes.front().find("/home/alice/.asdf/shims/python3") != std::string::npos);
  // A snapshot cannot take --python (it runs an interpreter of this machine): the note says
  // what to run on that machine instead.
  CHECK(report.notes.front().find(
            "(on that machine, rocdoc check --python /home/alice/.asdf/shims/python3 inspects "
            "it)") != std::string::npos);
  CHECK(report.notes.front().find("name it with --python") == std::string::npos);
  CHECK(fixture("pyenv-shims-torch").notes.empty());
}

TEST_CASE("SLES 15 SP7 is listed from ROCm 6.4.2, not 6.4.0", "[checks][rocm]") {
  for (const auto& [version, status] : std::vector<std::pair<std::string, Status>>{
           {"6.4.1-83", Status::warn}, {"6.4.2-120", Status::pass}}) {
    INFO(version);
    test::TempSnapshot snap;
    snap.manifest(R"({"format": "rocdoc-snapshot/1", "links": {"/opt/rocm": "/opt/rocm-6.4"}})");
    snap.file("/etc/os-release", "NAME=\"SLES\"\nVERSION_ID=\"15.7\"\nID=\"sles\"\n");
    snap.file("/opt/rocm-6.4/.info/version", version + "\n");
    const SnapshotHost host(snap.dir());
    const Report report = run_report(host, knowledge(), {});
    CHECK(result(report, "rocm.os-unsupported").status == status);
  }
}

TEST_CASE("KFD's target is believed over the PCI table, even one the rules do not know",
          "[checks][kfd]") {
  // A Krackan2 function (1002:1902, gfx1153 in rules/pci_ids.yaml) whose KFD node reports a
  // gfx_target_version the rules do not know: the report names KFD's target and says it is
  // newer than the rules; it never judges the GPU as the PCI table's gfx1153.
  test::TempSnapshot snap;
  snap.manifest(R"({"format": "rocdoc-snapshot/1", "links": {
      "/sys/bus/pci/devices/0000:04:00.0/driver": "../../../../bus/pci/drivers/amdgpu"}})");
  snap.file("/sys/bus/pci/devices/0000:04:00.0/vendor", "0x1002\n");
  snap.file("/sys/bus/pci/devices/0000:04:00.0/device", "0x1902\n");
  snap.file("/sys/bus/pci/devices/0000:04:00.0/class", "0x030000\n");
  snap.file("/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 8\nsimd_count 0\n");
  snap.file("/sys/class/kfd/kfd/topology/nodes/1/properties",
            "simd_count 8\ngfx_target_version 110507\nvendor_id 4098\ndevice_id 6402\n"
            "location_id 1024\ndomain 0\ndrm_render_minor 128\n");
  const SnapshotHost host(snap.dir());
  const Report report = run_report(host, knowledge(), {});
  CHECK_THAT(result(report, "gpu.none").evidence.front(),
             Catch::Matchers::Contains("(0000:04:00.0, gfx1157)"));
  bool noted = false;
  for (const auto& note : report.notes) {
    noted = noted ||
            note.find("reports gfx1157, a GPU target newer than these rules") != std::string::npos;
  }
  CHECK(noted);
  CHECK(result(report, "arch.unsupported").status != Status::fail);
}

// ---- fix hygiene: values from the machine or a --rules directory never run as shell code --
// (appended with its own includes, so the cases above stay as they are)

#include <iterator>

#include "src/util/shell.h"

namespace {

/// A fixture copied into `snap`, to be edited before it is read.
void copy_fixture(const std::string& name, const test::TempSnapshot& snap) {
  std::filesystem::copy(std::string(ROCDOC_FIXTURES_DIR) + "/" + name, snap.dir(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::copy_symlinks |
                            std::filesystem::copy_options::overwrite_existing);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Replaces the first `from` in a file of the snapshot (a path under its directory).
void replace_in(const test::TempSnapshot& snap, const std::string& path, const std::string& from,
                const std::string& to) {
  std::string text = read_text(snap.dir() + path);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(snap.dir() + path, std::ios::binary) << text;
}

Report report_of(const test::TempSnapshot& snap, const Knowledge& rules = knowledge()) {
  const SnapshotHost host(snap.dir());
  return run_report(host, rules, {});
}

}  // namespace

TEST_CASE("shell words: kept when nothing in them is special, else single-quoted", "[util]") {
  CHECK(util::shell_word("6.2.4") == "6.2.4");
  CHECK(util::shell_word("https://download.pytorch.org/whl/rocm6.3") ==
        "https://download.pytorch.org/whl/rocm6.3");
  CHECK(util::shell_word("render,video") == "render,video");
  CHECK(util::shell_word("render$") == "'render$'");
  CHECK(util::shell_word("a b") == "'a b'");
  CHECK(util::shell_word("$(id)") == "'$(id)'");
  CHECK(util::shell_word("it's") == "'it'\\''s'");
  CHECK(util::shell_word("") == "''");
  CHECK(util::shell_word("a\nb") == "'a\nb'");
  CHECK(util::is_shell_name("HSA_OVERRIDE_GFX_VERSION_1"));
  CHECK(util::is_shell_name("_x"));
  CHECK_FALSE(util::is_shell_name("1X"));
  CHECK_FALSE(util::is_shell_name("X;id"));
  CHECK_FALSE(util::is_shell_name(""));
}

TEST_CASE("a group name that is not one never reaches a command", "[checks][perm]") {
  test::TempSnapshot snap;
  copy_fixture("user-not-in-render", snap);
  replace_in(snap, "/root/etc/group", "\nrender:", "\nrender$(touch /tmp/pwned):");
  const Report report = report_of(snap);
  for (const char* id : {"perm.kfd", "perm.render"}) {
    INFO(id);
    const CheckResult& r = result(report, id);
    CHECK(r.status == Status::fail);
    CHECK_THAT(r.message, Catch::Matchers::Contains(
                              "in /etc/group, \"render$(touch /tmp/pwned)\", is not a valid group "
                              "name; repair /etc/group"));
    CHECK(commands(r) == Commands{""});
    CHECK_THAT(r.fix.front().description, Catch::Matchers::Contains("Repair the group's name"));
  }
}

TEST_CASE("a valid group name with a trailing $ is quoted", "[checks][perm]") {
  test::TempSnapshot snap;
  copy_fixture("user-not-in-render", snap);
  replace_in(snap, "/root/etc/group", "\nrender:", "\nrender$:");
  CHECK(commands(result(report_of(snap), "perm.kfd")) ==
        Commands{"sudo usermod -aG 'render$' 'alice'"});
}

TEST_CASE("newgrp only for a valid group name", "[checks][perm]") {
  test::TempSnapshot snap;
  copy_fixture("user-needs-relogin", snap);
  replace_in(snap, "/root/etc/group", "\nrender:", "\nrender;reboot:");
  const Report report = report_of(snap);
  const CheckResult& r = result(report, "perm.relogin");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) == Commands{""});
  CHECK_THAT(r.message, Catch::Matchers::Contains("\"render;reboot\", is not a valid group name"));
}

TEST_CASE("a build-target variable that is no gfx list is explained, not exported",
          "[checks][env]") {
  test::TempSnapshot snap;
  copy_fixture("rocm-arch-excludes-gpu", snap);
  replace_in(snap, "/rocdoc-snapshot.json", R"j("PYTORCH_ROCM_ARCH": "gfx90a")j",
             R"j("PYTORCH_ROCM_ARCH": "gfx90a $(touch /tmp/pwned)")j");
  const Report report = report_of(snap);
  const CheckResult& r = result(report, "env.rocm-arch");
  CHECK(r.status == Status::warn);
  CHECK_THAT(r.message, Catch::Matchers::Contains("is not a list of gfx targets"));
  CHECK(commands(r) == Commands{""});
  CHECK_THAT(r.fix.front().description, Catch::Matchers::Contains("gfx1100"));
}

TEST_CASE("gfx lists with features and generic targets are still extended", "[checks][env]") {
  test::TempSnapshot snap;
  copy_fixture("rocm-arch-excludes-gpu", snap);
  replace_in(snap, "/rocdoc-snapshot.json", R"j("PYTORCH_ROCM_ARCH": "gfx90a")j",
             R"j("PYTORCH_ROCM_ARCH": "gfx942:sramecc+:xnack-;gfx10-3-generic")j");
  CHECK(commands(result(report_of(snap), "env.rocm-arch")) ==
        Commands{"export PYTORCH_ROCM_ARCH=\"gfx942:sramecc+:xnack-;gfx10-3-generic;gfx1100\""});
}

TEST_CASE("a WSL distribution name that is not one gets no command", "[checks][wsl]") {
  test::TempSnapshot snap;
  copy_fixture("wsl1", snap);
  replace_in(snap, "/rocdoc-snapshot.json", R"j("WSL_DISTRO_NAME": "Ubuntu-22.04")j",
             R"j("WSL_DISTRO_NAME": "Ubuntu'; calc; '")j");
  const Report report = report_of(snap);
  const CheckResult& r = result(report, "wsl.version1");
  CHECK(r.status == Status::fail);
  CHECK_THAT(r.message, Catch::Matchers::Contains("is not a distribution name"));
  CHECK(commands(r) == Commands{""});
}

TEST_CASE("a DKMS directory name is quoted in the rebuild command", "[checks][driver]") {
  test::TempSnapshot snap;
  copy_fixture("dkms-not-built-for-hwe-kernel", snap);
  std::filesystem::rename(snap.root() + "/var/lib/dkms/amdgpu/6.12.12-2164967.24.04",
                          snap.root() + "/var/lib/dkms/amdgpu/6.12.12$(reboot)");
  CHECK(commands(result(report_of(snap), "driver.dkms-build")).front() ==
        "sudo dkms install amdgpu/'6.12.12$(reboot)' -k '6.14.0-24-generic'");
}

TEST_CASE("values from a --rules directory are quoted in commands", "[checks][rules]") {
  Knowledge rules = knowledge();
  for (auto& release : rules.torch_releases) {
    release.torchvision += "$(reboot)";
  }
  for (auto& set : rules.amd_wheels) {
    set.torch += "\"$(reboot)\"";
  }
  for (auto& target : rules.targets) {
    if (target.override_value && target.override_value->verdict == OverrideVerdict::works) {
      target.override_value->value += ";reboot";
    }
  }
  const SnapshotHost cuda(std::string(ROCDOC_FIXTURES_DIR) + "/cuda-wheel-pytorch-org");
  CHECK(commands(result(run_report(cuda, rules, {}), "torch.cuda-wheel")).back() ==
        "'/home/alice/venv/bin/python3' -m pip install torch==2.6.0 "
        "torchvision=='0.21.0$(reboot)' torchaudio==2.6.0 --index-url "
        "https://download.pytorch.org/whl/rocm6.2.4");
  const SnapshotHost gfx1031(std::string(ROCDOC_FIXTURES_DIR) + "/rx6700xt-no-override");
  CHECK(commands(result(run_report(gfx1031, rules, {}), "arch.unsupported")) ==
        Commands{"'/home/alice/venv/bin/python3' -m pip install --index-url "
                 "https://repo.amd.com/rocm/whl-multi-arch/ "
                 "'torch[device-gfx1031]==2.12.0+rocm7.14.1\"$(reboot)\"' "
                 "\"torchvision[device-gfx1031]==0.27.0+rocm7.14.1\" "
                 "\"torchaudio==2.11.0+rocm7.14.1\"",
                 "export HSA_OVERRIDE_GFX_VERSION='10.3.0;reboot'"});
}

// ---- issue 9: one cause, one finding; structured fixes; fixes that agree -------------------

namespace {

using Ids = std::vector<std::string>;

}  // namespace

TEST_CASE("findings name their cause on the fixtures where one cause gave several errors",
          "[checks][root-causes]") {
  const Report relogin = fixture("user-needs-relogin");
  CHECK(result(relogin, "perm.kfd").caused_by == Ids{"perm.relogin"});
  CHECK(result(relogin, "perm.render").caused_by == Ids{"perm.relogin"});
  CHECK(result(relogin, "perm.relogin").caused_by.empty());
  CHECK(relogin.summary().errors == 3);
  CHECK(relogin.summary().root_causes == 1);

  const Report container = fixture("container-groups-missing");
  CHECK(result(container, "perm.kfd").caused_by == Ids{"perm.container-groups"});
  CHECK(result(container, "perm.render").caused_by == Ids{"perm.container-groups"});
  CHECK(container.summary().root_causes == 2);  // and shm.small

  const Report blacklisted = fixture("amdgpu-blacklisted");
  CHECK(result(blacklisted, "gpu.not-bound").caused_by == Ids{"driver.amdgpu-missing"});
  CHECK(blacklisted.summary().root_causes == 1);

  const Report torch26 = fixture("rx7600-torch26");
  CHECK(result(torch26, "torch.arch-missing").caused_by == Ids{"arch.unsupported"});
  CHECK(torch26.summary().root_causes == 1);

  const Report mixed = fixture("igpu-dgpu-global-override");
  CHECK(result(mixed, "arch.override-wrong").caused_by == Ids{"gpu.igpu-visible"});
  CHECK(result(mixed, "arch.override-mixed").caused_by == Ids{"arch.override-unneeded"});
  CHECK(mixed.summary().root_causes == 2);

  // Not linked: the GPU held by vfio-pci has nothing to do with the iGPU's missing code.
  const Report vfio = fixture("gpu-vfio-pci");
  CHECK(result(vfio, "gpu.not-bound").caused_by.empty());
  CHECK(result(vfio, "arch.unsupported").caused_by.empty());
}

TEST_CASE("fixes say their kind, and what they need", "[checks][fix-kinds]") {
  const CheckResult shm = result_of("container-groups-missing", "shm.small");
  CHECK(shm.fix_order == FixOrder::alternatives);
  REQUIRE(shm.fix.size() == 2);
  for (const auto& fix : shm.fix) {
    CHECK(fix.kind == FixKind::container_flag);
    CHECK(fix.description.rfind("Or ", 0) == std::string::npos);
  }
  const CheckResult groups = result_of("container-groups-missing", "perm.container-groups");
  REQUIRE(groups.fix.size() == 1);
  CHECK(groups.fix.front().kind == FixKind::container_flag);
  CHECK(groups.fix.front().command == "--group-add 110");

  const CheckResult usermod = result_of("user-not-in-render", "perm.kfd");
  CHECK(usermod.fix.front().needs_relogin);
  CHECK(usermod.fix.front().needs_root);
  CHECK_FALSE(usermod.fix.front().needs_reboot);
  CHECK(result_of("user-needs-relogin", "perm.relogin").fix.front().needs_relogin);

  const CheckResult blacklist = result_of("amdgpu-blacklisted", "driver.amdgpu-missing");
  REQUIRE(blacklist.fix.size() >= 3);
  CHECK(blacklist.fix.front().kind == FixKind::file_edit);
  CHECK(blacklist.fix.front().command.rfind("sudo sed -i ", 0) == 0);
  const auto initramfs = std::find_if(blacklist.fix.begin(), blacklist.fix.end(), [](const Fix& f) {
    return f.command == "sudo update-initramfs -u";
  });
  REQUIRE(initramfs != blacklist.fix.end());
  CHECK(initramfs->needs_reboot);
  CHECK(blacklist.fix_order == FixOrder::steps);

  const CheckResult torch26 = result_of("rx7600-torch26", "arch.unsupported");
  CHECK(torch26.fix_order == FixOrder::alternatives);
  CHECK(torch26.fix.at(1).description.rfind("Keep this torch and override", 0) == 0);

  const CheckResult igpu = result_of("igpu-and-dgpu", "gpu.igpu-visible");
  CHECK(igpu.fix_order == FixOrder::alternatives);
  CHECK(igpu.fix.back().kind == FixKind::manual);
  CHECK(igpu.fix.back().needs_reboot);
}

TEST_CASE("a kernel argument is a kernel_argument fix that needs a reboot", "[checks][fix-kinds]") {
  test::TempSnapshot snap;
  copy_fixture("amdgpu-blacklisted", snap);
  replace_in(snap, "/root/proc/cmdline", "quiet", "quiet nomodeset");
  const Report report = report_of(snap);
  const CheckResult& r = result(report, "driver.amdgpu-missing");
  const auto cmdline = std::find_if(r.fix.begin(), r.fix.end(), [](const Fix& f) {
    return f.description.find("nomodeset") != std::string::npos;
  });
  REQUIRE(cmdline != r.fix.end());
  CHECK(cmdline->kind == FixKind::kernel_argument);
  CHECK(cmdline->needs_reboot);
  CHECK(cmdline->needs_root);
}

TEST_CASE("a pip line suits the kernel driver that was found", "[checks][driver-agree]") {
  // The DKMS driver of ROCm 6.0 supports ROCm 6.2 user space at most: no rocm7 wheel.
  const CheckResult r = result_of("dkms-driver-too-old", "torch.not-found");
  REQUIRE(r.fix.size() == 1);
  CHECK(r.fix.front().command ==
        "python3 -m pip install torch==2.7.1 torchvision==0.22.1 torchaudio==2.7.1 --index-url "
        "https://download.pytorch.org/whl/rocm6.2.4");
  CHECK_THAT(r.fix.front().description,
             Catch::Matchers::Contains("suit the loaded amdgpu driver (of ROCm 6.0)"));
  CHECK(result_of("dkms-driver-too-old", "driver.version").fix.front().needs_reboot);
}

TEST_CASE("when no wheel suits the driver, the pip fix says the driver moves first",
          "[checks][driver-agree]") {
  // gfx950 has code only in wheels of ROCm 7.1 and later; a DKMS driver of ROCm 6.0 is loaded.
  test::TempSnapshot snap;
  copy_fixture("mi355x-torch29-no-gfx950", snap);
  std::ofstream(snap.root() + "/sys/module/amdgpu/version") << "6.3.6\n";
  const Report report = report_of(snap);
  const CheckResult& r = result(report, "arch.unsupported");
  REQUIRE_FALSE(r.fix.empty());
  CHECK_THAT(r.fix.front().command, Catch::Matchers::Contains("whl/rocm7.1"));
  CHECK_THAT(r.fix.front().description,
             Catch::Matchers::Contains("which the loaded amdgpu driver (of ROCm 6.0) does not "
                                       "support: first install a driver that does"));
}

TEST_CASE("a wrong override's GPU is judged by the target its fix leads to", "[checks][env]") {
  // Issue 22: env.rocm-arch never asks for the code of a wrong override's target. The override
  // is 11.0.0 (gfx1100) on a gfx1031, whose fix is 10.3.0: the build needs gfx1030.
  test::TempSnapshot rdna2;
  copy_fixture("rdna2-override-11", rdna2);
  replace_in(rdna2, "/rocdoc-snapshot.json", "\"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\"",
             "\"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\", \"PYTORCH_ROCM_ARCH\": \"gfx1100\"");
  const Report rdna2_report = report_of(rdna2);
  CHECK(commands(result(rdna2_report, "env.rocm-arch")) ==
        std::vector<std::string>{"export PYTORCH_ROCM_ARCH=\"gfx1100;gfx1030\""});
  CHECK(commands(result(rdna2_report, "arch.override-wrong")) ==
        std::vector<std::string>{"export HSA_OVERRIDE_GFX_VERSION=10.3.0"});
  // 9.0.0 on a Strix Halo (gfx1151): no value is safe, the fix removes it, so gfx1151 is built.
  test::TempSnapshot strix;
  copy_fixture("strix-halo-mes-0x80-ubuntu", strix);
  replace_in(
      strix, "/rocdoc-snapshot.json", "\"env\": {",
      "\"env\": {\"HSA_OVERRIDE_GFX_VERSION\": \"9.0.0\", \"PYTORCH_ROCM_ARCH\": \"gfx90a\", ");
  const Report strix_report = report_of(strix);
  CHECK(commands(result(strix_report, "env.rocm-arch")) ==
        std::vector<std::string>{"export PYTORCH_ROCM_ARCH=\"gfx90a;gfx1151\""});
}

TEST_CASE("the iGPU is not given a torch while the discrete GPU is parked on vfio-pci",
          "[checks][arch]") {
  // Issue 22, N16: after the rebind the RX 7900 (gfx1100) is the GPU ROCm is for.
  const CheckResult r = result_of("gpu-vfio-pci", "arch.unsupported");
  CHECK(r.status == Status::fail);
  CHECK(commands(r) == std::vector<std::string>{"", ""});
  REQUIRE_FALSE(r.fix.empty());
  CHECK(r.fix.front().description.find("back to amdgpu first (gpu.not-bound's fix)") !=
        std::string::npos);
  CHECK(r.fix.front().description.find("choose torch for its gfx1100") != std::string::npos);
  CHECK(r.fix_order == FixOrder::alternatives);
}

TEST_CASE("a Phoenix APU with the TTM limit raised is silent; at the default it is told the limit",
          "[checks][memory]") {
  // phoenix-780m-2g-uma-ttm-raised: ollama/ollama#2637's 780M (2048M of VRAM, 81920M of GTT,
  // pages_limit 20971520): apu.memory passes.
  const CheckResult raised = result_of("phoenix-780m-2g-uma-ttm-raised", "apu.memory");
  CHECK(raised.status == Status::pass);
  // The same machine left at the default limit (half of the RAM): the limit that uses 90 % of it.
  namespace fs = std::filesystem;
  const fs::path copy =
      fs::temp_directory_path() / ("rocdoc-phoenix-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(std::string(ROCDOC_FIXTURES_DIR) + "/phoenix-780m-2g-uma-ttm-raised", copy,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::ofstream(copy / "root/sys/module/ttm/parameters/pages_limit") << "12276265\n";
  std::ofstream(copy / "root/sys/bus/pci/devices/0000:c5:00.0/mem_info_gtt_total")
      << "50283581440\n";
  std::ofstream(copy / "root/proc/cmdline")
      << "BOOT_IMAGE=/boot/vmlinuz-6.8.0-87-generic root=UUID=5f3a8b1e-2c47-4d0a-9b6e-7c1d2e3f4a5b "
         "ro quiet splash vt.handoff=7\n";
  const SnapshotHost host(copy.string());
  const Report report = run_report(host, knowledge(), {});
  const CheckResult fallen = result(report, "apu.memory");
  fs::remove_all(copy);
  CHECK(fallen.status == Status::warn);
  CHECK(fallen.message ==
        "The GPU may use only 46.8 GiB of this APU's 93.7 GiB of RAM: the TTM limit is at its "
        "default, half of the RAM");
  CHECK(commands(fallen) ==
        Commands{"sudo sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&ttm.pages_limit=22020096 /' "
                 "/etc/default/grub && sudo update-grub"});
}
