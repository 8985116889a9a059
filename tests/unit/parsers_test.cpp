// Parsers take strings: each is tested on text as the machine prints it.
#include <catch2/catch.hpp>

#include "probes/access.h"
#include "probes/driver.h"
#include "probes/kfd_topology.h"
#include "probes/pci.h"
#include "probes/python.h"
#include "probes/system.h"

using namespace rocdoc;

TEST_CASE("KFD properties of a real gfx90a node decode to target, BDF and render node",
          "[parser][kfd]") {
  // From an MI210 (ROCm/rocm_smi_lib issue output); location_id 0x0300 = 03:00.0.
  const auto properties = parse_kfd_properties(
      "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\ngfx_target_version 90010\n"
      "vendor_id 4098\ndevice_id 29711\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n"
      "hive_id 0\nnum_sdma_engines 2\n");
  const KfdNode node = kfd_node_from_properties(1, properties);
  CHECK(node.is_gpu());
  CHECK(node.gfx_target == "gfx90a");
  CHECK(node.vendor_id == 0x1002);
  CHECK(node.device_id == 0x740f);
  CHECK(node.bdf == "0000:03:00.0");
  CHECK(node.drm_render_minor == 128);
}

TEST_CASE("a KFD CPU node is not a GPU", "[parser][kfd]") {
  const KfdNode node = kfd_node_from_properties(
      0, parse_kfd_properties("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n"));
  CHECK_FALSE(node.is_gpu());
  CHECK(node.gfx_target.empty());
  CHECK_FALSE(node.bdf.has_value());
}

TEST_CASE("KFD properties skip malformed lines", "[parser][kfd]") {
  const auto properties = parse_kfd_properties("a 1\nbroken\nb x\nc 2 3\nd 18446744073709551615\n");
  CHECK(properties.size() == 2);
  CHECK(properties.at("d") == 18446744073709551615ull);
  CHECK(bdf_from_location(1, (0xc1 << 8) | (2 << 3) | 1) == "0001:c1:02.1");
}

TEST_CASE("os-release values lose their quotes", "[parser][system]") {
  const auto os = parse_os_release(
      "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME='Ubuntu'\nVERSION_ID=\"24.04\"\nID=ubuntu\n# "
      "c\n\nID_LIKE=debian\n");
  CHECK(os.at("PRETTY_NAME") == "Ubuntu 24.04.1 LTS");
  CHECK(os.at("NAME") == "Ubuntu");
  CHECK(os.at("VERSION_ID") == "24.04");
  CHECK(os.at("ID_LIKE") == "debian");
  CHECK(os.count("# c") == 0);
}

TEST_CASE("/etc/group gives names, gids and members", "[parser][access]") {
  const auto groups = parse_group_file(
      "root:x:0:\nvideo:x:44:alice,bob\nrender:x:110:alice\nbroken line\nbad:x:notanumber:\n");
  REQUIRE(groups.size() == 3);
  CHECK(groups[1].name == "video");
  CHECK(groups[1].gid == 44);
  CHECK(groups[1].members == std::vector<std::string>{"alice", "bob"});
  CHECK(groups[2].members == std::vector<std::string>{"alice"});
  CHECK(groups[0].members.empty());
}

TEST_CASE("kernel command line: nomodeset, blacklist and amdgpu parameters", "[parser][driver]") {
  DriverFacts facts;
  parse_cmdline_for_driver(
      "BOOT_IMAGE=/vmlinuz ro quiet splash nomodeset modprobe.blacklist=nouveau,amdgpu "
      "amdgpu.ppfeaturemask=0xffffffff iommu=pt\n",
      facts);
  CHECK(facts.cmdline_nomodeset);
  CHECK(facts.cmdline_blacklists_amdgpu);
  CHECK(facts.cmdline_amdgpu_params == std::vector<std::string>{"amdgpu.ppfeaturemask=0xffffffff"});
  DriverFacts clean;
  parse_cmdline_for_driver("ro modprobe.blacklist=nouveau", clean);
  CHECK_FALSE(clean.cmdline_blacklists_amdgpu);
  CHECK(parse_iommu_params("ro iommu=pt amd_iommu=on quiet") ==
        std::vector<std::string>{"iommu=pt", "amd_iommu=on"});
}

TEST_CASE("modprobe.d blacklists of amdgpu are found with their line numbers", "[parser][driver]") {
  const auto lines = find_amdgpu_blacklist(
      "# blacklist amdgpu\nblacklist radeon\n  blacklist   amdgpu  \ninstall amdgpu /bin/false\n",
      "/etc/modprobe.d/x.conf");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].line == 3);
  CHECK(lines[0].text == "blacklist   amdgpu");
  CHECK(lines[1].line == 4);
}

TEST_CASE("Secure Boot efivar: attribute bytes then the value", "[parser][driver]") {
  CHECK(parse_secure_boot_var(std::string("\x06\x00\x00\x00\x01", 5)) == true);
  CHECK(parse_secure_boot_var(std::string("\x06\x00\x00\x00\x00", 5)) == false);
  CHECK_FALSE(parse_secure_boot_var("ab").has_value());
}

TEST_CASE("/proc/mounts gives the /dev/shm size", "[parser][system]") {
  const char* mounts =
      "overlay / overlay rw,relatime 0 0\n"
      "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n";
  CHECK(tmpfs_size_from_mounts(mounts, "/dev/shm") == 64ull << 20);
  CHECK(tmpfs_size_from_mounts("shm /dev/shm tmpfs rw,size=16g 0 0\n", "/dev/shm") == 16ull << 30);
  CHECK_FALSE(tmpfs_size_from_mounts("tmpfs /dev/shm tmpfs rw 0 0\n", "/dev/shm").has_value());
}

TEST_CASE("container runtimes from /proc/1/cgroup", "[parser][system]") {
  CHECK(container_from_cgroup("12:pids:/docker/3f1e2d\n") == "docker");
  CHECK(container_from_cgroup("0::/kubepods.slice/kubepods-burstable.slice\n") == "kubernetes");
  CHECK(container_from_cgroup("0::/machine.slice/libpod-abc.scope\n") == "podman");
  CHECK_FALSE(container_from_cgroup("0::/\n").has_value());
  CHECK_FALSE(container_from_cgroup("0::/init.scope\n").has_value());
}

TEST_CASE("WSL generations from the kernel release", "[parser][system]") {
  CHECK(wsl_from_kernel_release("4.4.0-19041-Microsoft") == WslKind::wsl1);
  CHECK(wsl_from_kernel_release("5.15.153.1-microsoft-standard-WSL2") == WslKind::wsl2);
  CHECK(wsl_from_kernel_release("6.8.0-45-generic") == WslKind::none);
}

TEST_CASE("PCI helpers: BDFs, sysfs paths, link widths and GPU classes", "[parser][pci]") {
  CHECK(is_bdf("0000:03:00.0"));
  CHECK_FALSE(is_bdf("junk"));
  CHECK_FALSE(is_bdf("0000:03:00"));
  CHECK(upstream_from_sysfs_path(
            "../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0") ==
        std::vector<std::string>{"0000:00:01.1", "0000:01:00.0", "0000:02:00.0"});
  CHECK(parse_link_width("16\n") == 16);
  CHECK_FALSE(parse_link_width("0\n").has_value());
  CHECK(classify_gpu(0x1002, 0x030000) == GpuVendor::amd);
  CHECK(classify_gpu(0x1002, 0x120000) ==
        GpuVendor::amd);  // Instinct MI300: processing accelerator
  CHECK(classify_gpu(0x1002, 0x038000) == GpuVendor::amd);
  CHECK_FALSE(classify_gpu(0x1002, 0x040300).has_value());  // the GPU's HDMI audio function
  CHECK(classify_gpu(0x10de, 0x030200) == GpuVendor::nvidia);
  CHECK(classify_gpu(0x1234, 0x030000) == GpuVendor::virtual_display);
  CHECK(classify_gpu(0x8086, 0x030000) == GpuVendor::intel);
}

TEST_CASE("torch/version.py is read as data, never run", "[parser][python]") {
  // A pytorch.org ROCm wheel's version.py (2.6.0+rocm6.2.4), as shipped.
  const auto values = parse_version_py(
      "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', "
      "'hip']\n"
      "__version__ = '2.6.0+rocm6.2.4'\ndebug = False\ncuda: Optional[str] = None\n"
      "git_version = '1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340'\n"
      "hip: Optional[str] = '6.2.41134-65d174c3e'\nimport os; os.system('echo never')\n");
  const TorchInstall torch = torch_from_version_py(values);
  CHECK(torch.version == "2.6.0+rocm6.2.4");
  CHECK(torch.build == TorchBuild::rocm);
  CHECK(torch.hip == "6.2.41134-65d174c3e");
  CHECK_FALSE(torch.cuda.has_value());
  CHECK(values.count("__all__") == 0);  // not a string: ignored
  const TorchInstall cuda = torch_from_version_py(
      parse_version_py("__version__ = \"2.6.0+cu124\"\ncuda = '12.4'\nhip = None\n"));
  CHECK(cuda.build == TorchBuild::cuda);
  const TorchInstall cpu =
      torch_from_version_py(parse_version_py("__version__ = '1.13.0a0'\ndebug = False\ncuda = "
                                             "None\ngit_version = 'Unknown'\nhip = None\n"));
  CHECK(cpu.build == TorchBuild::cpu);
  CHECK(cpu.git_version == "Unknown");
}

TEST_CASE("package names and versions from dist-info and egg-info directories",
          "[parser][python]") {
  const auto vision = package_from_metadata_dir("torchvision-0.21.0+rocm6.2.4.dist-info");
  REQUIRE(vision);
  CHECK(vision->name == "torchvision");
  CHECK(vision->version == "0.21.0+rocm6.2.4");
  const auto triton = package_from_metadata_dir("pytorch_triton_rocm-3.2.0.dist-info");
  REQUIRE(triton);
  CHECK(triton->name == "pytorch-triton-rocm");
  const auto debian = package_from_metadata_dir("torch-1.13.0a0+gitunknown.egg-info");
  REQUIRE(debian);
  CHECK(debian->version == "1.13.0a0+gitunknown");
  CHECK(package_from_metadata_dir("torch-2.0.0-py3.11.egg-info")->version == "2.0.0");
  CHECK_FALSE(package_from_metadata_dir("torch").has_value());
  CHECK(metadata_version(
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+rocm6.2.4\n\nVersion: x\n") ==
        "2.6.0+rocm6.2.4");
  CHECK_FALSE(metadata_version("Name: torch\n").has_value());
}
