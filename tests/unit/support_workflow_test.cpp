// Issue 10: the pieces behind rocdoc snapshot, check --snapshot, --redact and the kernel log,
// on plain strings and in memory.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "probes/kernel_log.h"
#include "rocdoc/env_allowlist.h"
#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "src/hosts/kernel_log.h"
#include "src/hosts/live.h"
#include "src/hosts/recording.h"
#include "src/hosts/redacting.h"
#include "src/hosts/snapshot.h"
#include "src/snapshot/memory_tree.h"
#include "src/snapshot/provenance.h"
#include "src/snapshot/writer.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace rocdoc {
namespace {

TEST_CASE("MemoryTree lists children, not grandchildren, and never follows a link") {
  MemoryTree tree;
  tree.add("/sys/bus/pci/devices/0000:03:00.0/vendor", {MemoryTree::Type::regular, "0x1002\n"});
  tree.add("/sys/bus/pci/devices/0000:03:00.0-x", {MemoryTree::Type::regular, ""});
  tree.add("/opt/rocm", {MemoryTree::Type::symlink, "/opt/rocm-6.2.0"});
  const auto devices = tree.list("/sys/bus/pci/devices", 100);
  REQUIRE(devices);
  CHECK(*devices == std::vector<std::string>{"0000:03:00.0", "0000:03:00.0-x"});
  CHECK(tree.list("/", 100) == std::vector<std::string>{"opt", "sys"});
  CHECK(tree.read_regular("/sys/bus/pci/devices/0000:03:00.0/vendor", 4).content == "0x10");
  CHECK(tree.read_regular("/opt/rocm", 100).error == "ELOOP");
  CHECK(tree.read_regular("/sys", 100).error == "EISDIR");
  CHECK(tree.read_regular("/missing", 100).error == "ENOENT");
  CHECK(tree.read_link("/opt/rocm") == "/opt/rocm-6.2.0");
  CHECK_THROWS_AS(tree.list("/sys/bus/pci/devices", 1), HostLimitError);
}

TEST_CASE("Tokens in allow-listed values are taken out whatever the flags") {
  CHECK(looks_like_secret("ghp_abcdefghijklmnop0123"));
  CHECK(looks_like_secret("hf_ENVsecretTOKEN0123456789"));
  CHECK(looks_like_secret("AKIAIOSFODNN7EXAMPLE"));
  CHECK(looks_like_secret("Q2xhdWRlU2VjcmV0VG9rZW4xMjM0"));
  CHECK_FALSE(looks_like_secret("hf_cache"));
  CHECK_FALSE(looks_like_secret("rocm-6.2.0"));
  CHECK_FALSE(looks_like_secret("Miniforge3-Linux-x86_64-2024"));
  CHECK_FALSE(looks_like_secret("python3.12"));
  CHECK(without_secrets("/opt/ghp_abcdefghijklmnop0123/bin:/usr/bin") ==
        "/opt/REDACTED-SECRET/bin:/usr/bin");
  CHECK(without_secrets("http://user:hunter2@proxy:3128/") ==
        "http://user:REDACTED-SECRET@proxy:3128/");
  CHECK(without_secrets("/opt/rocm/lib:/usr/lib") == "/opt/rocm/lib:/usr/lib");
  CHECK(without_secrets("GPU-4c1a2b3d4e5f6071") == "GPU-4c1a2b3d4e5f6071");
}

TEST_CASE("Redaction: kernel command line, group names, unique ids") {
  Redactions redactions;
  CHECK(redact_cmdline("BOOT_IMAGE=/boot/vmlinuz root=UUID=abc ro amdgpu.ppfeaturemask=0xffffffff "
                       "iommu=pt loglevel=3",
                       redactions) ==
        "BOOT_IMAGE=redacted-value-1 root=redacted-value-2 ro "
        "amdgpu.ppfeaturemask=0xffffffff iommu=pt loglevel=redacted-value-3\n");
  redactions.add_word("alice", "user");
  redactions.kept_groups = {"video", "render"};
  CHECK(redact_group_file("render:x:110:alice\nlxd:x:135:alice\nalice:x:1000:\n", redactions) ==
        "render:x:110:alice\nredacted-group-1:x:135:alice\nredacted-user-1:x:1000:\n");
  CHECK(redactions.forward("/home/alice/venv and malice") ==
        "/home/redacted-user-1/venv and malice");
  CHECK(redactions.backward("/home/redacted-user-1/venv") == "/home/alice/venv");
  CHECK(redactions.backward("/home/redacted-user-10/venv") == "/home/redacted-user-10/venv");
  const std::string properties = "cpu_cores_count 0\nunique_id 11673270660693242239\n";
  const std::string redacted = redact_unique_id_lines(properties, redactions);
  CHECK(redacted.find("11673270660693242239") == std::string::npos);
  CHECK(redact_unique_id_lines(properties, redactions) == redacted);  // stable
  // The same id in a visible-devices mask maps to the same placeholder.
  const auto placeholder = redactions.unique_id(11673270660693242239ull);
  CHECK(redact_gpu_uuids("GPU-A1FFC9D1799C317F,1", redactions) ==
        fmt::format("GPU-{:016X},1", placeholder));
}

TEST_CASE("Kernel log records: only GPU lines, as dmesg prints them") {
  CHECK(gpu_kernel_line("6,1234,7026427,-;kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects "
                        "atomics\n SUBSYSTEM=pci\n") ==
        "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics");
  CHECK_FALSE(gpu_kernel_line("6,1235,7026500,-;usb 1-1: new high-speed USB device\n"));
  CHECK_FALSE(gpu_kernel_line("garbage without a separator"));
  CHECK(classify_kernel_line("kfd kfd: amdgpu: skipped device 1002:699f, PCI rejects atomics "
                             "730<0") == KernelEventKind::atomics_rejected);
  CHECK(classify_kernel_line("kfd kfd: amdgpu: VERDE  not supported in kfd") ==
        KernelEventKind::not_supported_in_kfd);
  CHECK(classify_kernel_line("Lockdown: modprobe: unsigned module loading is restricted; see man "
                             "kernel_lockdown.7") == KernelEventKind::module_refused);
  CHECK(classify_kernel_line("amdgpu 0000:03:00.0: Direct firmware load for "
                             "amdgpu/gc_11_0_0_mes.bin failed with error -2") ==
        KernelEventKind::firmware_failed);
  CHECK(classify_kernel_line("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout") ==
        KernelEventKind::gpu_reset);
  CHECK_FALSE(classify_kernel_line("[drm] amdgpu kernel modesetting enabled."));
  // GPU faults, as real logs print them (ROCm/legacy-rocm-build#6273, #5997; rocm-arch#829;
  // freebsd/drm-kmod#78).
  CHECK(classify_kernel_line("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to "
                             "msg=REMOVE_QUEUE") == KernelEventKind::scheduler_hang);
  CHECK(classify_kernel_line("[drm:gfx_v11_0_cp_gfx_enable.isra.0 [amdgpu]] *ERROR* failed to "
                             "halt cp gfx") == KernelEventKind::scheduler_hang);
  CHECK(classify_kernel_line("amdgpu 0000:0c:00.0: [drm:amdgpu_ring_test_helper [amdgpu]] "
                             "*ERROR* ring kiq_2.1.0 test failed (-110)") ==
        KernelEventKind::scheduler_hang);
  CHECK(classify_kernel_line("amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 "
                             "ring:32 vmid:0 pasid:0)") == KernelEventKind::vm_fault);
  CHECK(classify_kernel_line("amdgpu 0000:03:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:"
                             "0x00040A40") == KernelEventKind::vm_fault);
  CHECK(classify_kernel_line("amdgpu 0000:03:00.0: amdgpu: ring comp_1.1.1 timeout, signaled "
                             "seq=151, emitted seq=153") == KernelEventKind::gpu_reset);
  CHECK(classify_kernel_line("amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!") ==
        KernelEventKind::gpu_reset);
  CHECK(classify_kernel_line("amdgpu 0000:41:00.0: amdgpu: 1 uncorrectable hardware errors "
                             "detected in UMC block") == KernelEventKind::ras_error);
  // A real line (dri-devel, Shuai Xue, 2024-12-30: an injected UMC error).
  CHECK(classify_kernel_line("[424443.174154] amdgpu 0000:0a:00.0: amdgpu: Error "
                             "Address(PA):0x27f5d43080 Row:0x1fd7 Col:0x0  Bank:0xa "
                             "Channel:0x30") == KernelEventKind::ras_error);
  // A correctable error is no fault of this boot to count (the data stayed intact).
  CHECK(classify_kernel_line("16:32:32 amdgpu 0000:08:00.0: {1}1 correctable hardware errors "
                             "detected in umc block") == std::nullopt);
  CHECK(classify_kernel_line("AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d "
                             "address=0x7f3a0000 flags=0x0020]") == KernelEventKind::iommu_fault);
  // The live /dev/kmsg (when this process may read it) never blocks and keeps only GPU lines.
  const KernelLog log = read_kernel_log();
  if (log.lines) {
    for (const auto& line : *log.lines) {
      CHECK(is_gpu_kernel_message(line));
    }
  } else {
    CHECK_FALSE(log.error.empty());
  }
  CHECK(read_kernel_log("/nonexistent/kmsg").error == "ENOENT");
  CHECK(read_kernel_log("/nonexistent/kmsg", KernelLogRead::kmsg_records).error == "ENOENT");
}

namespace {

/// A /dev/kmsg record (or one of for_each_syslog_record's) as "priority,usec;text".
std::string kmsg_key_and_text(std::string_view record) {
  const auto semicolon = record.find(';');
  const auto fields = util::split(record.substr(0, semicolon), ',');
  std::string_view text = record.substr(semicolon + 1);
  return std::string(fields.at(0)) + "," + std::string(fields.at(2)) + ";" +
         std::string(text.substr(0, text.find('\n')));
}

}  // namespace

TEST_CASE("kernel log live: klogctl's whole buffer and /dev/kmsg give the same records and lines",
          "[kernel][live]") {
  util::UniqueFd fd(::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    WARN("SKIPPED: /dev/kmsg: " << errno_name(errno));
    return;
  }
  std::vector<std::string> kmsg;
  std::array<char, 8192> record{};
  for (;;) {
    const ssize_t n = ::read(fd.get(), record.data(), record.size());
    if (n < 0 && (errno == EINTR || errno == EPIPE)) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    kmsg.emplace_back(record.data(), static_cast<std::size_t>(n));
  }
  const auto syslog = read_syslog_buffer();
  if (!syslog) {
    WARN("SKIPPED: klogctl(SYSLOG_ACTION_READ_ALL): " << errno_name(errno));
    return;
  }
  REQUIRE_FALSE(kmsg.empty());
  // /dev/kmsg's records, those of one priority and microsecond joined as READ_ALL's text
  // joins them, against every record of READ_ALL's text.
  std::vector<std::string> expected;
  std::string last_key;
  for (const auto& one : kmsg) {
    const std::string keyed = kmsg_key_and_text(one);
    const std::string key = keyed.substr(0, keyed.find(';'));
    if (!expected.empty() && key == last_key) {
      expected.back() += "\\x0a" + keyed.substr(keyed.find(';') + 1);
    } else {
      expected.push_back(keyed);
      last_key = key;
    }
  }
  std::vector<std::string> got;
  REQUIRE(for_each_syslog_record(
      *syslog, [&](std::string_view one, std::size_t) { got.push_back(kmsg_key_and_text(one)); }));
  // Records may arrive between the two reads (and, on a busy host, push out the oldest).
  REQUIRE_FALSE(got.empty());
  if (got.front() != expected.front()) {
    WARN("SKIPPED: the kernel log moved on between the two reads");
    return;
  }
  const std::size_t common = std::min(got.size(), expected.size());
  CHECK(std::vector<std::string>(got.begin(), got.begin() + static_cast<long>(common)) ==
        std::vector<std::string>(expected.begin(), expected.begin() + static_cast<long>(common)));

  // The GPU lines: READ_ALL's text as read_kernel_log uses it, and /dev/kmsg alone.
  const KernelLog by_record = read_kernel_log("/dev/kmsg", KernelLogRead::kmsg_records);
  REQUIRE(by_record.lines);
  if (const auto lines = gpu_kernel_lines_of_syslog(*syslog, kmsg.front())) {
    CHECK(*lines == *by_record.lines);
  } else {
    WARN("klogctl's text is not used on this machine (a GPU message of several lines?)");
  }
  CHECK(read_kernel_log().lines == by_record.lines);
}

TEST_CASE("A recording of a fixture, written and read back, gives the same findings") {
  const Knowledge knowledge = load_embedded_knowledge();
  const SnapshotHost source(std::string(ROCDOC_FIXTURES_DIR) + "/user-not-in-render");
  const RecordingHost recorder(source);
  const Report before = run_report(recorder, knowledge, {});
  const SnapshotImage image = make_snapshot_image(recorder.recording(), CaptureInfo{}, "");
  auto tree = std::make_unique<MemoryTree>();
  for (const auto& dir : image.dirs) {
    if (dir.rfind("root", 0) == 0) {
      tree->add(dir == "root" ? "/" : dir.substr(4), {MemoryTree::Type::directory, {}});
    }
  }
  for (const auto& [path, content] : image.files) {
    if (path.rfind("root/", 0) == 0) {
      tree->add(path.substr(4), {MemoryTree::Type::regular, content});
    }
  }
  const SnapshotHost replay("in memory", image.files.at("rocdoc-snapshot.json"), std::move(tree));
  const Report after = run_report(replay, knowledge, {});
  REQUIRE(before.checks.size() == after.checks.size());
  for (std::size_t i = 0; i < before.checks.size(); ++i) {
    CHECK(before.checks[i].result.status == after.checks[i].result.status);
    CHECK(before.checks[i].result.message == after.checks[i].result.message);
  }
  // Only what was read: /etc/os-release yes; the fixture's expect.json is no machine file.
  CHECK(image.files.count("root/etc/os-release") == 1);
  CHECK(image.files.count("root/expect.json") == 0);
}

TEST_CASE("Capture provenance names the findings that changed") {
  SnapshotManifest manifest;
  manifest.rules_revision = "2026-01-01";
  manifest.created = "2026-01-02T00:00:00Z";
  Report now;
  static const CheckInfo info{"perm.kfd",      "Permissions",   "", Severity::error,
                              Scope::anywhere, Judges::machine, {}, nullptr};
  CheckRecord record;
  record.info = &info;
  record.result.status = Status::pass;
  record.result.message = "ok";
  now.checks.push_back(record);
  const std::string then =
      R"({"schema":"rocdoc-report/1","checks":[{"id":"perm.kfd","status":"fail","message":"no",)"
      R"("fix":[]},{"id":"gone.check","status":"pass","message":"","fix":[]}]})";
  const auto capture = capture_provenance(manifest, then, now);
  REQUIRE(capture);
  REQUIRE(capture->changes.size() == 2);
  CHECK(capture->changes[0].id == "perm.kfd");
  CHECK(capture->changes[0].then == "fail");
  CHECK(capture->changes[0].now == "pass");
  CHECK(capture->changes[1].now == "absent");
  const auto notes = capture_notes(*capture, "2026-11-26");
  CHECK(notes.front() ==
        "snapshot made 2026-01-02T00:00:00Z by rocdoc (not recorded) with rules revision "
        "2026-01-01; judged now with rules revision 2026-11-26");
  // A pass that is a skip now (or the other way round) was no finding then and is none now.
  const std::string passed_then =
      R"({"schema":"rocdoc-report/1","checks":[{"id":"perm.kfd","status":"skip","message":"x",)"
      R"("fix":[]}]})";
  CHECK(capture_provenance(manifest, passed_then, now)->changes.empty());
  // A check newer than the capture that passes now changes no finding; one that fires does.
  const std::string before_the_check =
      R"({"schema":"rocdoc-report/1","checks":[{"id":"perm.render","status":"pass",)"
      R"("message":"","fix":[]}]})";
  CHECK(capture_provenance(manifest, before_the_check, now)->changes.empty());
  Report firing = now;
  firing.checks.front().result.status = Status::fail;
  const auto fired = capture_provenance(manifest, before_the_check, firing);
  REQUIRE(fired->changes.size() == 1);
  CHECK(fired->changes.front().then == "absent");
  CHECK(fired->changes.front().now == "fail");
  // A report.json that is not a rocdoc report (or hostile JSON) compares nothing.
  CHECK(capture_provenance(manifest, std::string("[[[[[[[["), now)->changes.empty());
  CHECK_FALSE(capture_provenance(SnapshotManifest{}, std::nullopt, now));
}

}  // namespace
}  // namespace rocdoc
