// Issue 20: what --redact and every snapshot keep of the mount tables, the kernel command line,
// the kernel log, host names and allow-listed values (REPORT.md D3, D5, D6, D13).
#include <catch2/catch.hpp>

#include "probes/system.h"
#include "rocdoc/env_allowlist.h"
#include "src/hosts/redacting.h"

namespace rocdoc {
namespace {

TEST_CASE("A snapshot keeps of fstab only the /dev lines, without credentials") {
  const std::string fstab =
      "# /etc/fstab\n"
      "UUID=6f1c / ext4 defaults 0 1\n"
      "//files.corp.example/share /mnt/share cifs username=zelda,password=Hunter2SecretPw 0 0\n"
      "tmpfs /dev/shm tmpfs defaults,size=1G 0 0\n"
      "udev  /dev  devtmpfs  noexec,credentials=/root/.smb,nosuid 0 0\n"
      "nas:/export /dev/nfs nfs sec=krb5,pass=x 0 0\n";
  const std::string kept = mount_table_to_record(fstab, MountTable::fstab);
  CHECK(kept ==
        "\n\n\ntmpfs /dev/shm tmpfs defaults,size=1G 0 0\n"
        "udev /dev devtmpfs noexec,nosuid 0 0\n"
        "redacted-remote-source /dev/nfs nfs sec=krb5 0 0\n");
  // The probe reads the same lines, under the same numbers.
  const auto before = fstab_lines_for(fstab, "/dev");
  const auto after = fstab_lines_for(kept, "/dev");
  REQUIRE(after.size() == 1);
  CHECK(after.front().line == before.front().line);
  CHECK(mount_table_to_record("/dev/sda1 / ext4 rw 0 0\n//srv/x /mnt cifs rw,pass=1 0 0\n"
                              "tmpfs /dev/shm tmpfs rw,size=65536k 0 0\n",
                              MountTable::proc_mounts) ==
        "/dev/sda1 / ext4 rw 0 0\ntmpfs /dev/shm tmpfs rw,size=65536k 0 0\n");
  // A credential handed on inside another option's value goes too (a fuzzer's find).
  CHECK(mount_table_to_record("x /dev/y tmpfs noexec,opts=Password=1 0 0\n", MountTable::fstab) ==
        "x /dev/y tmpfs noexec 0 0\n");
  // A pod's service-account mount point is kept (it tells a pod); other secrets mounts are not.
  CHECK(mount_table_to_record(
            "tmpfs /run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime 0 0\n"
            "tmpfs /run/secrets/db tmpfs ro 0 0\n",
            MountTable::proc_mounts) ==
        "tmpfs /run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime 0 0\n");
}

TEST_CASE("The kernel command line is split as the kernel splits it") {
  const auto params = split_cmdline(" a=\"x y\" \"b=c d\" \"e f\" g \"h\"=i =j=k l=\"");
  REQUIRE(params.size() == 7);
  CHECK(params[0].key == "a");
  CHECK(params[0].value == "x y");
  CHECK(params[1].key == "b");
  CHECK(params[1].value == "c d");
  CHECK(params[2].key == "e f");
  CHECK_FALSE(params[2].value);
  CHECK(params[3].raw == "g");
  CHECK(params[4].key == "h\"");  // next_arg() keeps a quote it does not open
  CHECK(params[5].key == "=j");
  CHECK(params[5].value == "k");
  CHECK(params[6].value == "");
}

TEST_CASE("The line end is not part of the command line, even inside an unclosed quote") {
  // Found by fuzz_cmdline: the "\n" redact_cmdline appends joined a kept parameter whose quote
  // was never closed, so the redacted line split into a parameter the input did not have.
  const auto params = split_cmdline("amdgpu.ppfeaturemask=\"0x1 \n");
  REQUIRE(params.size() == 1);
  CHECK(params[0].raw == "amdgpu.ppfeaturemask=\"0x1");
  Redactions redactions;
  const std::string redacted = redact_cmdline("amdgpu.ppfeaturemask=\"0x1", redactions);
  CHECK(redacted == "amdgpu.ppfeaturemask=\"0x1\n");
  REQUIRE(split_cmdline(redacted).size() == 1);
  CHECK(split_cmdline(redacted)[0].raw == params[0].raw);
}

TEST_CASE("Redaction takes bare words and quoted values of the command line as wholes") {
  Redactions redactions;
  CHECK(redact_cmdline("BOOT_IMAGE=/vmlinuz root=UUID=6f1c-SECRETUUID amd_iommu=on "
                       "secret=\"two words\" --addr 10.0.0.5:2024 ro \"x=a b\"\n",
                       redactions) ==
        "BOOT_IMAGE=redacted-value-1 root=redacted-value-2 amd_iommu=on secret=redacted-value-3 "
        "redacted-value-4 redacted-value-5 ro x=redacted-value-6\n");
}

TEST_CASE("Kernel log lines: the command line in them is redacted, and serials") {
  Redactions redactions;
  const std::string proc = redact_cmdline("root=UUID=6f1c amd_iommu=on", redactions);
  const std::string line = redact_kernel_line(
      "[    0.000000] Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=6f1c ro amd_iommu=on "
      "iommu=pt luks.key=TOPSECRETKEY ip=10.1.2.3::10.1.2.1:255.255.255.0:gpuhost42:eth0:none",
      redactions);
  CHECK(line ==
        "[    0.000000] Kernel command line: BOOT_IMAGE=redacted-value-2 root=redacted-value-1 ro "
        "amd_iommu=on iommu=pt luks.key=redacted-value-3 ip=redacted-value-4");
  CHECK(proc == "root=redacted-value-1 amd_iommu=on\n");  // the same value, the same placeholder
  CHECK(redact_kernel_line("[   12.5] amdgpu 0000:03:00.0: amdgpu: board serial PLANTEDSERIAL42",
                           redactions) ==
        "[   12.5] amdgpu 0000:03:00.0: amdgpu: board serial redacted-serial");
  CHECK(redact_serials("amdgpu: SN: ABC123, unique_id=0x1234 serial number 42 ok") ==
        "amdgpu: SN: redacted-serial unique_id=redacted-serial serial number redacted-serial ok");
  CHECK(redact_kernel_line("Unknown kernel command line parameters \"pw=hunter2 nomodeset\", will "
                           "be passed to user space.",
                           redactions) ==
        "Unknown kernel command line parameters \"pw=redacted-value-5 nomodeset\", will be passed "
        "to user space.");
  CHECK(redact_kernel_line("amdgpu 0000:03:00.0: amdgpu: VRAM: 196592M", redactions) ==
        "amdgpu 0000:03:00.0: amdgpu: VRAM: 196592M");
}

TEST_CASE("Tokens after '-' or '.' in a path component are taken out") {
  CHECK(without_secrets("/home/u/venv-hf_AbCdEfGhIjKlMnOpQrStUvWx12") ==
        "/home/u/venv-REDACTED-SECRET");
  CHECK(without_secrets("/opt/tok-ghp_abcdefghijklmnopqrstuvwxyz0123456789/bin:/usr/bin") ==
        "/opt/tok-REDACTED-SECRET/bin:/usr/bin");
  CHECK(without_secrets("/x/a-sk-proj-abcdefghijklmnop.txt") == "/x/a-REDACTED-SECRET.txt");
  CHECK(without_secrets("/opt/Miniforge3-Linux-x86_64/bin:/opt/rocm-6.2.0/lib:/a/python3.12") ==
        "/opt/Miniforge3-Linux-x86_64/bin:/opt/rocm-6.2.0/lib:/a/python3.12");
  CHECK(without_secrets("/usr/share/my-ASIAN-fonts-collection") ==
        "/usr/share/my-ASIAN-fonts-collection");
}

TEST_CASE("Values of a known shape are kept only in that shape") {
  CHECK(has_expected_shape("HSA_OVERRIDE_GFX_VERSION", "10.3.0"));
  CHECK(has_expected_shape("HSA_OVERRIDE_GFX_VERSION_1", "11.0"));
  CHECK_FALSE(has_expected_shape("HSA_OVERRIDE_GFX_VERSION", "10.3.0 hunter2plainpw"));
  CHECK_FALSE(has_expected_shape("HSA_OVERRIDE_GFX_VERSION", "gfx1030"));
  CHECK(has_expected_shape("AMD_LOG_LEVEL", "4"));
  CHECK(has_expected_shape("MIOPEN_FIND_MODE", "NORMAL"));
  CHECK_FALSE(has_expected_shape("AMD_LOG_LEVEL", "4 my password"));
  CHECK(has_expected_shape("PATH", "/usr/bin:/bin"));
}

}  // namespace
}  // namespace rocdoc
