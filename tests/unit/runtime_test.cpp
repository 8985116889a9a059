// --deep: the children's result lines (src/runtime/protocol.h), the children run by
// util::run_forked, and runtime.hip-init / runtime.smi over hand-built facts.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "probes/runtime.h"
#include "rocdoc/knowledge_loader.h"
#include "src/checks/checks.h"
#include "src/checks/pcie_slot.h"
#include "src/checks/runtime_causes.h"
#include "src/commands/arguments.h"
#include "src/hosts/snapshot_root.h"
#include "src/runtime/abi.h"
#include "src/runtime/descendants.h"
#include "src/runtime/json.h"
#include "src/runtime/protocol.h"
#include "src/runtime/runner.h"
#include "src/util/subprocess.h"

using namespace rocdoc;

namespace {

const Knowledge& knowledge() {
  static const Knowledge k = load_embedded_knowledge();
  return k;
}

// What Debian 12's libamdhip64 5.2.3 answers on a machine without a GPU (its real lines).
constexpr std::string_view k_debian_hip =
    "tried\tlibamdhip64.so.7\tlibamdhip64.so.7: cannot open shared object file: No such file or "
    "directory\n"
    "loaded\tlibamdhip64.so.5\t/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153\n"
    "call\thipRuntimeGetVersion\n"
    "status\thipRuntimeGetVersion\t0\thipSuccess\n"
    "value\truntime_version\t50221153\n"
    "call\thipGetDeviceCount\n"
    "status\thipGetDeviceCount\t100\thipErrorNoDevice\n"
    "end\n";

std::string two_devices(std::string_view first, std::string_view second) {
  std::string text =
      "loaded\tlibamdhip64.so.6\t/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.41133\n"
      "status\thipRuntimeGetVersion\t0\thipSuccess\n"
      "value\truntime_version\t60241133\n"
      "status\thipGetDeviceCount\t0\thipSuccess\n"
      "value\tdevice_count\t2\n";
  for (const auto& [index, arch] : {std::pair{0, first}, std::pair{1, second}}) {
    text += "status\thipGetDeviceProperties\t0\thipSuccess\n";
    text += "device\t" + std::to_string(index) + "\tgcn_arch_name\t" + std::string(arch) + "\n";
  }
  text += "status\thipMalloc\t0\thipSuccess\nvalue\tround_trip\tok\nend\n";
  return text;
}

KfdNode gpu_node(int index, const std::string& bdf, std::uint64_t unique_id) {
  KfdNode node;
  node.index = index;
  node.simd_count = 104;
  node.gfx_target = "gfx90a";
  node.gfx_target_version = 90010;
  node.target_source = TargetSource::gfx_target_version;
  node.vendor_id = 0x1002;
  node.device_id = 0x740f;
  node.unique_id = unique_id;
  node.bdf = bdf;
  return node;
}

/// A host with two MI210 (gfx90a) joined by XGMI, as KFD shows them.
Facts two_mi210(std::map<std::string, std::string> env = {}) {
  Facts facts;
  facts.pci = PciFacts{};
  facts.kfd = KfdFacts{};
  facts.kfd->topology_present = true;
  KfdNode cpu;
  cpu.index = 0;
  facts.kfd->nodes.push_back(cpu);
  facts.kfd->nodes.push_back(gpu_node(1, "0000:03:00.0", 0x5b2c1a7b72a5b4c7ull));
  facts.kfd->nodes.push_back(gpu_node(2, "0000:43:00.0", 0x5b2c1a7b72a5b4d1ull));
  facts.kfd->nodes[1].io_links.push_back({0, 11, 1, 2, 0, 15, 50000, 50000});
  facts.kfd->nodes[2].io_links.push_back({0, 11, 2, 1, 0, 15, 50000, 50000});
  facts.env = EnvFacts{};
  facts.env->variables = std::move(env);
  return facts;
}

RuntimeRun exited(std::string result) {
  RuntimeRun run;
  run.ending = ChildEnding::exited;
  run.exit_status = 0;
  run.result = std::move(result);
  return run;
}

CheckResult judge(Facts facts, CheckResult (*check)(const CheckContext&)) {
  GpuInventory inventory = build_gpu_inventory(facts, knowledge());
  const CheckContext context{facts, knowledge(), std::move(inventory.gpus),
                             std::move(inventory.withheld)};
  return check(context);
}

CheckResult hip_init(Facts facts, RuntimeRun run) {
  RuntimeReport report;
  report.hip = std::move(run);
  facts.runtime = runtime_facts(report);
  return judge(std::move(facts), checks::runtime_hip_init);
}

CheckResult compute(Facts facts, RuntimeRun run) {
  RuntimeReport report;
  report.hip = std::move(run);
  facts.runtime = runtime_facts(report);
  return judge(std::move(facts), checks::runtime_compute);
}

/// Device 0's properties and compute test as the HIP child writes them (MI210 at 03:00.0),
/// `middle` in place of the fill and the read-back.
std::string computed(std::string_view middle, std::string_view tail = "end\n") {
  return "loaded\tlibamdhip64.so.6\t/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.41133\n"
         "status\thipGetDeviceCount\t0\thipSuccess\n"
         "value\tdevice_count\t1\n"
         "status\thipGetDeviceProperties\t0\thipSuccess\n"
         "device\t0\tname\tAMD Instinct MI210\n"
         "device\t0\tgcn_arch_name\tgfx90a:sramecc+:xnack-\n"
         "device\t0\tpci_domain\t0\ndevice\t0\tpci_bus\t3\ndevice\t0\tpci_device\t0\n"
         "compute\t0\tbegin\t268435456\n"
         "call\thipSetDevice\nstatus\thipSetDevice\t0\thipSuccess\n"
         "call\thipHostMalloc\nstatus\thipHostMalloc\t0\thipSuccess\n"
         "compute\t0\tpinned\t1\n"
         "call\thipMalloc\nstatus\thipMalloc\t0\thipSuccess\n" +
         std::string(middle) + std::string(tail);
}

/// The fill, read-back and copies of a GPU that works, copying at `bytes_per_second`.
std::string fill_and_copies(double bytes_per_second) {
  const std::uint64_t bytes = 15ull << 24;
  const auto ns = static_cast<std::uint64_t>(static_cast<double>(bytes) / bytes_per_second * 1e9);
  return "call\thipMemsetD32\nstatus\thipMemsetD32\t0\thipSuccess\n"
         "call\thipDeviceSynchronize\nstatus\thipDeviceSynchronize\t0\thipSuccess\n"
         "call\thipMemcpy\nstatus\thipMemcpy\t0\thipSuccess\n"
         "compute\t0\tcopy\td2h\t" +
         std::to_string(bytes) + "\t" + std::to_string(ns) +
         "\n"
         "compute\t0\tchecked\t268435456\t0\n"
         "call\thipMemcpy\nstatus\thipMemcpy\t0\thipSuccess\n"
         "compute\t0\tcopy\th2d\t" +
         std::to_string(bytes) + "\t" + std::to_string(ns) +
         "\n"
         "call\thipFree\nstatus\thipFree\t0\thipSuccess\n"
         "compute\t0\tend\n";
}

/// An MI210 at 03:00.0 in a 16 GT/s x16 slot (its own function is the slot end), CPU node 0.
Facts one_mi210_on_pcie() {
  Facts facts = two_mi210();
  facts.kfd->nodes.pop_back();
  facts.kfd->nodes[1].io_links = {{0, 2, 1, 0, 0, 20, std::nullopt, std::nullopt}};
  PciDevice port;
  port.bdf = "0000:00:01.1";
  port.vendor = 0x1022;
  port.class_code = 0x060400;
  port.link.max_speed = "16.0 GT/s PCIe";
  port.link.max_width = 16;
  PciDevice gpu;
  gpu.bdf = "0000:03:00.0";
  gpu.vendor = 0x1002;
  gpu.device = 0x740f;
  gpu.class_code = 0x038000;
  gpu.gpu = GpuVendor::amd;
  gpu.driver = "amdgpu";
  gpu.link = {"16.0 GT/s PCIe", "16.0 GT/s PCIe", 16, 16};
  gpu.upstream = {"0000:00:01.1"};
  facts.pci->devices = {port, gpu};
  facts.system = SystemFacts{};
  facts.system->numa_nodes = 2;
  return facts;
}

/// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

CheckResult smi(Facts facts, std::string result) {
  RuntimeReport report;
  report.smi = exited(std::move(result));
  facts.runtime = runtime_facts(report);
  return judge(std::move(facts), checks::runtime_smi);
}

}  // namespace

TEST_CASE("result fields survive escaping", "[runtime]") {
  const std::vector<std::string> fields = {"plain",       "tab\there", "new\nline",
                                           "back\\slash", "\x1b[31m",  std::string("nul\0byte", 8),
                                           "caf\xc3\xa9"};
  for (const auto& field : fields) {
    const auto lines = runtime::split_result("value\tk\t" + runtime::escape_field(field) + "\n");
    REQUIRE(!lines.unreadable);
    REQUIRE(lines.lines.size() == 1);
    CHECK(lines.lines[0][2] == field);
  }
}

TEST_CASE("Debian's HIP on a machine without a GPU as its child writes it", "[runtime]") {
  const HipRuntimeFacts hip = runtime::parse_hip_result(k_debian_hip);
  CHECK(hip.load.complete);
  CHECK_FALSE(hip.load.unreadable);
  CHECK(hip.load.failed.size() == 1);
  CHECK(hip.load.loaded == "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153");
  CHECK(hip.runtime_version == 50221153);
  CHECK(runtime::hip_version_text(*hip.runtime_version) == "5.2.21153");
  REQUIRE(hip.load.call("hipGetDeviceCount") != nullptr);
  CHECK(hip.load.call("hipGetDeviceCount")->name == "hipErrorNoDevice");
  CHECK_FALSE(hip.device_count);
}

TEST_CASE("a result cut short says which call was running", "[runtime]") {
  const HipRuntimeFacts hip =
      runtime::parse_hip_result("loaded\ta\t/a\ncall\thipGetDeviceCount\nstatus\thipGe");
  CHECK(hip.load.running == "hipGetDeviceCount");  // the cut line is not read
  CHECK_FALSE(hip.load.complete);
  CHECK_FALSE(hip.load.unreadable);
}

TEST_CASE("garbage in a result is unreadable and never a value", "[runtime]") {
  for (const std::string_view garbage :
       {"hello world\n", "value\truntime_version\tfive\n", "device\t999\tname\tx\n",
        "device\t-1\tname\tx\n", "status\thipX\t1e9\thipErrorX\n", "tried\tonly-one\n",
        "value\tk\tbad\\q\n", "raw\x01control\n", "\n", "end\nend\n",
        "link\t0\t1\t99999999999\t1\n"}) {
    CAPTURE(garbage);
    const SmiRuntimeFacts smi = runtime::parse_smi_result(garbage);
    CHECK(smi.load.unreadable);
    CHECK(smi.links.empty());
  }
  CHECK(runtime::parse_hsa_result("agent\tgpu\tgfx90a\nend\n").agents.size() == 1);
}

TEST_CASE("runtime.hip-init: no device on a machine without GPUs passes", "[runtime]") {
  Facts facts;
  facts.pci = PciFacts{};
  facts.kfd = KfdFacts{};
  facts.env = EnvFacts{};
  const CheckResult result = hip_init(facts, exited(std::string(k_debian_hip)));
  CHECK(result.status == Status::pass);
  CHECK(result.message ==
        "HIP 5.2.21153 loaded from /usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153: no device "
        "(hipErrorNoDevice), as the kernel shows none");
}

TEST_CASE("runtime.hip-init: no device while KFD shows GPUs names hsa_init's cause", "[runtime]") {
  Facts facts = two_mi210();
  RuntimeReport report;
  report.hip = exited(std::string(k_debian_hip));
  report.hsa = exited(
      "loaded\tlibhsa-runtime64.so.1\t/opt/rocm/lib/libhsa-runtime64.so.1\n"
      "status\thsa_init\t4104\tHSA_STATUS_ERROR_OUT_OF_RESOURCES\tHSA_STATUS_ERROR_OUT_OF_"
      "RESOURCES: The runtime failed to allocate the necessary resources.\nend\n");
  facts.runtime = runtime_facts(report);
  const CheckResult result = judge(facts, checks::runtime_hip_init);
  CHECK(result.status == Status::fail);
  CHECK(result.message.find("hipGetDeviceCount failed with hipErrorNoDevice, while KFD shows 2 "
                            "GPU(s): hsa_init could not open /dev/kfd") != std::string::npos);
  CHECK(std::find(result.evidence.begin(), result.evidence.end(),
                  "HSA runtime: hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008): The "
                  "runtime failed to allocate the necessary resources.") != result.evidence.end());
}

TEST_CASE("runtime.hip-init compares the devices with KFD after the masks", "[runtime]") {
  CHECK(hip_init(two_mi210(), exited(two_devices("gfx90a:sramecc+:xnack-", "gfx90a"))).status ==
        Status::pass);
  const CheckResult other = hip_init(two_mi210(), exited(two_devices("gfx90a", "gfx1100")));
  CHECK(other.status == Status::fail);
  CHECK(other.message.find("reports other GPU targets than KFD: HIP gfx90a, gfx1100; KFD gfx90a, "
                           "gfx90a") != std::string::npos);
  // HIP_VISIBLE_DEVICES=0: HIP should see one; two is more than KFD leaves it.
  const CheckResult masked =
      hip_init(two_mi210({{"HIP_VISIBLE_DEVICES", "0"}}), exited(two_devices("gfx90a", "gfx90a")));
  CHECK(masked.status == Status::fail);
  CHECK(masked.message.find("sees 2 device(s), more than the 1 KFD shows") != std::string::npos);
  std::string one =
      "loaded\tx\t/x\nstatus\thipGetDeviceCount\t0\thipSuccess\nvalue\tdevice_count\t1\n"
      "device\t0\tgcn_arch_name\tgfx90a\nend\n";
  CHECK(hip_init(two_mi210({{"ROCR_VISIBLE_DEVICES", "1"}}), exited(one)).status == Status::pass);
  const CheckResult fewer = hip_init(two_mi210(), exited(one));
  CHECK(fewer.status == Status::fail);
  CHECK(fewer.message.find("sees 1 device(s), fewer than the 2 KFD shows: HIP gfx90a; KFD gfx90a, "
                           "gfx90a") != std::string::npos);
}

TEST_CASE("runtime.hip-init: hangs and crashes and errors are findings", "[runtime]") {
  RuntimeRun hang = exited("loaded\tx\t/x\ncall\thipGetDeviceCount\n");
  hang.ending = ChildEnding::timed_out;
  const CheckResult timed_out = hip_init(two_mi210(), hang);
  CHECK(timed_out.status == Status::fail);
  CHECK(timed_out.message ==
        "the HIP runtime did not answer: timed out after 10 s in hipGetDeviceCount; its process "
        "group was killed");
  RuntimeRun crash = hang;
  crash.ending = ChildEnding::signaled;
  crash.signal = "SIGSEGV";
  CHECK(hip_init(two_mi210(), crash).message ==
        "the HIP runtime crashed: the child was killed by SIGSEGV in hipGetDeviceCount");
  const CheckResult no_binary = hip_init(
      two_mi210(), exited("loaded\tx\t/x\nstatus\thipGetDeviceCount\t209\thipErrorNoBinaryForGpu\n"
                          "end\n"));
  CHECK(no_binary.status == Status::fail);
  CHECK(no_binary.message.find("no binary for this GPU's gfx target") != std::string::npos);
  CHECK(no_binary.fix.front().command == "rocdoc check --only torch.arch-missing");
  Facts plain;
  CHECK(judge(plain, checks::runtime_hip_init).status == Status::skip);
  CHECK(judge(plain, checks::runtime_hip_init).message ==
        "run with --deep to load the HIP runtime");
}

TEST_CASE("a GPU's compute test is read into its device, its calls kept apart", "[runtime]") {
  const HipRuntimeFacts hip = runtime::parse_hip_result(computed(fill_and_copies(25e9)));
  CHECK_FALSE(hip.load.unreadable);
  CHECK(hip.load.complete);
  CHECK_FALSE(hip.computing);
  REQUIRE(hip.devices.size() == 1);
  REQUIRE(hip.devices[0].compute);
  const HipCompute& compute = *hip.devices[0].compute;
  CHECK(compute.complete);
  CHECK(compute.bytes == 256u << 20);
  CHECK(compute.pinned == true);
  CHECK(compute.checked_bytes == 256u << 20);
  CHECK(compute.wrong_words == 0u);
  CHECK(compute.calls.size() == 8);
  CHECK(compute.failed_call() == nullptr);
  REQUIRE(compute.host_to_device);
  CHECK(compute.host_to_device->bytes_per_second().value() == Approx(25e9).epsilon(1e-6));
  // The compute calls are the device's, not the load's: runtime.hip-init never judges them.
  CHECK(hip.load.call("hipMalloc") == nullptr);
  CHECK(hip.load.call("hipGetDeviceCount") != nullptr);
}

TEST_CASE("a compute test cut short names the call, and bad compute lines are unreadable",
          "[runtime]") {
  const HipRuntimeFacts hung = runtime::parse_hip_result(computed("call\thipMemsetD32\n", ""));
  CHECK(hung.computing == 0);
  CHECK(hung.load.running == "hipMemsetD32");
  REQUIRE(hung.devices[0].compute);
  CHECK(hung.devices[0].compute->running == "hipMemsetD32");
  CHECK_FALSE(hung.devices[0].compute->complete);
  for (const std::string_view bad : {"compute\t0\tbegin\t1\n",   // nested in device 0's own test
                                     "compute\t1\tpinned\t1\n",  // another device's line inside it
                                     "compute\t0\tcopy\tsideways\t1\t1\n",      // no such direction
                                     "compute\t0\tchecked\tmany\t0\n",          // not a number
                                     "compute\t0\twrong\t1\t2\t99999999999\n",  // not a 32-bit word
                                     "compute\t999\tend\n"}) {
    CAPTURE(bad);
    CHECK(runtime::parse_hip_result(computed(bad)).load.unreadable);
  }
  CHECK(runtime::parse_hip_result("compute\t0\tend\n").load.unreadable);  // never begun
}

TEST_CASE("PCIe lanes: GT/s from sysfs and bytes per second after the line code", "[runtime]") {
  CHECK(checks::lane_gigatransfers("16.0 GT/s PCIe") == 16.0);
  CHECK(checks::lane_gigatransfers("2.5 GT/s") == 2.5);
  CHECK(checks::lane_gigatransfers("8 GT/s") == 8.0);
  CHECK_FALSE(checks::lane_gigatransfers("Unknown"));
  CHECK_FALSE(checks::lane_gigatransfers("-1 GT/s"));
  CHECK_FALSE(checks::lane_gigatransfers("1.23456 GT/s"));
  CHECK(checks::lane_bytes_per_second(2.5) == Approx(250e6));                   // 8b/10b
  CHECK(checks::lane_bytes_per_second(16.0) == Approx(1.969e9).epsilon(1e-3));  // 128b/130b
  CHECK(16 * checks::lane_bytes_per_second(16.0) == Approx(31.5e9).epsilon(1e-3));
}

TEST_CASE("runtime.compute: work that fails, comes back wrong, hangs or crawls", "[runtime]") {
  const CheckResult ok = compute(one_mi210_on_pcie(), exited(computed(fill_and_copies(25e9))));
  CHECK(ok.status == Status::pass);
  CHECK(ok.message ==
        "1 GPU did real work: memory filled by the runtime's own kernel and read back intact");
  REQUIRE(ok.evidence.size() == 1);
  CHECK(ok.evidence[0].find("host→device 25.0 GB/s, device→host 25.0 GB/s (page-locked); the "
                            "link (PCIe 16.0 GT/s x16 at 0000:03:00.0) carries 31.5 GB/s") !=
        std::string::npos);

  const CheckResult slow = compute(one_mi210_on_pcie(), exited(computed(fill_and_copies(9e9))));
  CHECK(slow.status == Status::warn);
  CHECK(slow.severity == Severity::warning);
  CHECK(slow.message.find("copies to and from the host at 9.0 GB/s, 29 % of the 31.5 GB/s its "
                          "link (PCIe 16.0 GT/s x16) carries") != std::string::npos);
  REQUIRE(slow.fix.size() == 3);
  CHECK(slow.fix[0].command == "sudo lspci -vv -s 0000:03:00.0 | grep -E 'LnkCap|LnkSta'");
  CHECK(slow.fix[1].kind == FixKind::kernel_argument);
  CHECK(slow.fix[2].command ==
        "numactl --cpunodebind=0 --membind=0 rocdoc check --deep --only runtime.compute");

  const CheckResult oom =
      compute(one_mi210_on_pcie(),
              exited(replaced(computed("compute\t0\tend\n"), "status\thipMalloc\t0\thipSuccess",
                              "status\thipMalloc\t2\thipErrorOutOfMemory")));
  CHECK(oom.status == Status::fail);
  CHECK(oom.message.find("hipMalloc returned hipErrorOutOfMemory (2) — the GPU has not that much "
                         "free memory") != std::string::npos);
  CHECK(oom.fix.front().command == "amd-smi process");

  const std::string wrong =
      replaced(fill_and_copies(25e9), "checked\t268435456\t0",
               "checked\t268435456\t3\ncompute\t0\twrong\t17284\t1592590336\t1592524800");
  const CheckResult corrupt = compute(one_mi210_on_pcie(), exited(computed(wrong)));
  CHECK(corrupt.status == Status::fail);
  CHECK(corrupt.message.find("256 MiB filled on the GPU came back wrong: 3 of 67108864 words read "
                             "back differ, the first at byte 17284 (0x5eec0000 where 0x5eed0000 "
                             "was written)") != std::string::npos);

  RuntimeRun hang = exited(computed("call\thipMemsetD32\n", ""));
  hang.ending = ChildEnding::timed_out;
  const CheckResult hung = compute(one_mi210_on_pcie(), hang);
  CHECK(hung.status == Status::fail);
  CHECK(hung.message.find("hipMemsetD32 did not return: the GPU hung (timed out after 10 s") !=
        std::string::npos);
  // runtime.hip-init had every answer it reads: the hang is runtime.compute's alone.
  CHECK(hip_init(one_mi210_on_pcie(), hang).status == Status::pass);

  Facts plain;
  CHECK(judge(plain, checks::runtime_compute).message == "run with --deep to run work on the GPUs");
  CHECK(compute(one_mi210_on_pcie(), exited(std::string(k_debian_hip))).status == Status::skip);
}

TEST_CASE("runtime.smi compares its count and links with KFD", "[runtime]") {
  const std::string base =
      "loaded\tlibrocm_smi64.so.7\t/opt/rocm/lib/librocm_smi64.so.7.3\n"
      "status\trsmi_init\t0\tRSMI_STATUS_SUCCESS\n"
      "value\tdevice_count\t2\n"
      "device\t0\tpci_id\t768\n"     // 0000:03:00.0
      "device\t1\tpci_id\t17152\n";  // 0000:43:00.0
  CHECK(smi(two_mi210(), base + "link\t0\t1\t2\t1\nend\n").status == Status::pass);
  const CheckResult pcie = smi(two_mi210(), base + "link\t0\t1\t1\t2\nend\n");
  CHECK(pcie.status == Status::warn);
  CHECK(pcie.message.find("devices 0 and 1 (0000:03:00.0 and 0000:43:00.0): rocm_smi says PCIe (2 "
                          "hops), KFD's io_links say XGMI") != std::string::npos);
  const CheckResult init =
      smi(two_mi210(), "loaded\ta\t/a\nstatus\trsmi_init\t8\tRSMI_STATUS_INIT_ERROR\nend\n");
  CHECK(init.status == Status::warn);
  Facts none;
  none.kfd = KfdFacts{};
  CHECK(smi(none, "loaded\ta\t/a\nstatus\trsmi_init\t8\tRSMI_STATUS_INIT_ERROR\nend\n").status ==
        Status::pass);
}

TEST_CASE("every runtime cause names its source", "[runtime]") {
  for (const auto& cause : checks::runtime_causes()) {
    CHECK(cause.source.rfind("https://", 0) == 0);
    CHECK(!cause.cause.empty());
  }
  CHECK(checks::runtime_cause("hipErrorNoDevice") != nullptr);
}

TEST_CASE("run_forked bounds output and keeps results and kills hangs and names crashes",
          "[runtime][subprocess]") {
  util::ForkLimits limits{};
  limits.time = std::chrono::milliseconds(1500);
  limits.max_output = 1000;
  const auto outputs = util::run_forked({[](int fd) {
                                           for (int i = 0; i < 10000; ++i) {
                                             (void)!::write(1, "0123456789\n", 11);
                                           }
                                           runtime::ResultWriter(fd).line({"end"});
                                           return 0;
                                         },
                                         [](int) {
                                           while (true) {
                                             ::pause();
                                           }
                                           return 0;
                                         },
                                         [](int) {
                                           ::raise(SIGSEGV);
                                           return 0;
                                         }},
                                        limits);
  REQUIRE(outputs.size() == 3);
  CHECK(outputs[0].exit_status == 0);
  CHECK(outputs[0].out.bytes == 110000);
  CHECK(outputs[0].out.kept.size() == 1000);
  CHECK(outputs[0].result.kept == "end\n");
  CHECK(outputs[1].ending == util::Ending::timed_out);
  CHECK(outputs[2].signal == SIGSEGV);
  const OutputSummary summary = runtime::summarise_output("a\n\x1b[31mb\n", 9);
  CHECK(summary.lines == 2);
  CHECK(summary.first_lines[1] == "\\x1b[31mb");
}

TEST_CASE("a manifest's runtime key reads back what was written", "[runtime]") {
  RuntimeReport report;
  report.timeout = std::chrono::milliseconds(2500);
  report.hip = exited(std::string(k_debian_hip));
  report.hip->err = runtime::summarise_output("Failed to open drm root directory\n", 34);
  report.smi = RuntimeRun{};
  report.smi->ending = ChildEnding::signaled;
  report.smi->signal = "SIGSEGV";
  const RuntimeReport back =
      runtime::parse_runtime_report(runtime::runtime_report_json(report), "m.json");
  CHECK(back.timeout == report.timeout);
  REQUIRE(back.hip);
  CHECK(back.hip->result == report.hip->result);
  CHECK(back.hip->err.first_lines == report.hip->err.first_lines);
  REQUIRE(back.smi);
  CHECK(back.smi->signal == "SIGSEGV");
  CHECK_FALSE(back.hsa);
  for (const char* bad : {R"("text")", R"({"timeout_ms": 0})", R"({"hip": {"ending": "ok"}})",
                          R"({"hip": {"ending": "exited", "result": [1]}})",
                          R"({"hip": {"ending": "exited", "exit_status": 300}})"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(runtime::parse_runtime_report(nlohmann::json::parse(bad), "m.json"),
                    SnapshotError);
  }
}

TEST_CASE("the deep timeout takes 0.1 to 600 seconds", "[runtime][cli]") {
  CHECK(parse_deep_timeout("10") == std::chrono::milliseconds(10'000));
  CHECK(parse_deep_timeout("0.5") == std::chrono::milliseconds(500));
  CHECK(parse_deep_timeout("1.25") == std::chrono::milliseconds(1250));
  CHECK(parse_deep_timeout("600") == std::chrono::milliseconds(600'000));
  for (const char* bad :
       {"", "0", "0.05", "600.001", "601", "abc", "1e3", "-1", "1.", ".5", "1.2345", "inf"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_deep_timeout(bad));
  }
}

TEST_CASE("the parent's pid in /proc/PID/stat, whatever the command's name holds") {
  using rocdoc::runtime::parse_stat_parent;
  CHECK(parse_stat_parent("4242 (sleep) S 17 4242 4242 0 -1 4194560 97 0") == 17);
  CHECK(parse_stat_parent("4242 (a) (b) Z 1 4242 4242") == 1);
  CHECK(parse_stat_parent("4242 (x y\n) R 99") == 99);
  CHECK_FALSE(parse_stat_parent(""));
  CHECK_FALSE(parse_stat_parent("4242 (sleep"));
  CHECK_FALSE(parse_stat_parent("4242 (sleep) S"));
  CHECK_FALSE(parse_stat_parent("4242 (sleep) S 99999999999999999999"));
}

TEST_CASE("children_of finds a child of this process, and DescendantReaper ends it") {
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  REQUIRE(child > 0);
  const auto children = rocdoc::runtime::children_of(::getpid());
  if (children) {  // /proc mounted
    CHECK(std::find(children->begin(), children->end(), child) != children->end());
    { const rocdoc::runtime::DescendantReaper reaper; }
    CHECK(::kill(child, 0) != 0);  // killed and reaped: no such process
  } else {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
}

TEST_CASE("amd-smi's uncorrectable ECC errors are GPU faults where ras/ is not readable",
          "[runtime]") {
  Facts facts = one_mi210_on_pcie();
  RuntimeReport report;
  report.amdsmi = exited(
      "loaded\tlibamd_smi.so.26\t/opt/rocm/lib/libamd_smi.so.26.2.0\n"
      "status\tamdsmi_init\t0\tAMDSMI_STATUS_SUCCESS\nvalue\tdevice_count\t1\n"
      "device\t0\tpci_id\t768\ndevice\t0\tmarket_name\tAMD Instinct MI210\n"
      "device\t0\tecc_correctable\t12\ndevice\t0\tecc_uncorrectable\t2\n"
      "device\t0\ttemperature_edge\t41000\nend\n");
  facts.runtime = runtime_facts(report);
  const CheckResult faults = judge(facts, checks::driver_gpu_faults);
  CHECK(faults.status == Status::fail);
  CHECK(faults.message.find("amd-smi counts 2 uncorrectable ECC errors on AMD Instinct MI210") !=
        std::string::npos);
  const CheckResult smi_check = judge(facts, checks::runtime_smi);
  CHECK(smi_check.message.rfind("amd-smi loaded from /opt/rocm/lib/libamd_smi.so.26.2.0", 0) == 0);
  CHECK(std::find(smi_check.evidence.begin(), smi_check.evidence.end(),
                  "device 0 (0000:03:00.0) AMD Instinct MI210: ECC 12 correctable, 2 "
                  "uncorrectable; edge 41 °C") != smi_check.evidence.end());
}

TEST_CASE("amd-smi's firmware blocks are numbered per soname; an unknown soname is not guessed",
          "[runtime]") {
  namespace abi = runtime_abi;
  for (const char* soname :
       {"libamd_smi.so.24", "libamd_smi.so.25", "libamd_smi.so.26", "libamd_smi.so.27"}) {
    const abi::AmdsmiFirmwareIds* ids = abi::amdsmi_firmware_ids(soname);
    REQUIRE(ids != nullptr);
    CHECK(ids->mec == 7);  // AMDSMI_FW_ID_CP_MEC1
    CHECK(ids->pm == 77);  // AMDSMI_FW_ID_PM (FW_ID_SMC, 76, in ROCm 5.7's header)
  }
  for (const char* soname : {"libamd_smi.so.23", "libamd_smi.so.99", "libamd_smi.so", ""}) {
    CHECK(abi::amdsmi_firmware_ids(soname) == nullptr);
  }
}
