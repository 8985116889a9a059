// Parsers take strings: each is tested on text as the machine prints it.
#include <catch2/catch.hpp>

#include <cstdio>

#include "probes/access.h"
#include "probes/driver.h"
#include "probes/kfd_topology.h"
#include "probes/pci.h"
#include "probes/pci_names.h"
#include "probes/python.h"
#include "probes/python_locations.h"
#include "probes/rocm_sdk.h"
#include "probes/system.h"
#include "rocdoc/knowledge_loader.h"
#include "src/hosts/kernel_log.h"
#include "src/util/strings.h"

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

TEST_CASE("a GPU node of a kernel before 5.15 has no gfx_target_version", "[parser][kfd]") {
  // ROCm/k8s-device-plugin testdata (2018, MI25): no gfx_target_version, no domain line.
  const auto properties = parse_kfd_properties(
      "cpu_cores_count 0\nsimd_count 256\nmem_banks_count 1\ncaches_count 0\n"
      "io_links_count 1\ncpu_core_id_base 0\nsimd_id_base 2147487744\nmax_waves_per_simd 10\n"
      "lds_size_in_kb 64\ngds_size_in_kb 0\nwave_front_size 64\narray_count 4\n"
      "simd_arrays_per_engine 1\ncu_per_simd_array 16\nsimd_per_cu 4\nmax_slots_scratch_cu 32\n"
      "vendor_id 4098\ndevice_id 26720\nlocation_id 6400\ndrm_render_minor 128\n"
      "max_engine_clk_fcompute 1500\nlocal_mem_size 17163091968\nfw_version 405\n"
      "capability 8832\nmax_engine_clk_ccompute 2100\n");
  KfdNode node = kfd_node_from_properties(1, properties);
  CHECK(node.is_gpu());  // simd_count > 0: a GPU, whatever else is missing
  CHECK_FALSE(node.gfx_target_version.has_value());
  CHECK(node.gfx_target.empty());
  CHECK(node.bdf == "0000:19:00.0");
  const Knowledge knowledge = load_embedded_knowledge();
  target_from_device_id(node, knowledge);
  CHECK(node.gfx_target == "gfx900");
  CHECK(node.target_source == TargetSource::device_id);
}

TEST_CASE("KFD values out of their type's range are unknown, never wrapped", "[parser][kfd]") {
  const KfdNode node = kfd_node_from_properties(
      1, parse_kfd_properties("simd_count 60\nvendor_id 69634\ndevice_id 29772\n"
                              "gfx_target_version 110000\nunique_id 16404946649897475633\n"));
  CHECK(node.vendor_id == 0);  // 0x11002 does not fit 16 bits: not AMD's 0x1002
  CHECK(node.unique_id == 16404946649897475633ull);
}

TEST_CASE("a render node's device link names its PCI function", "[parser][kfd]") {
  CHECK(bdf_of_device_link("../../../0000:c5:00.0") == "0000:c5:00.0");
  CHECK_FALSE(bdf_of_device_link("../../../amdgpu_xcp.3").has_value());
}

TEST_CASE("KFD properties skip malformed lines", "[parser][kfd]") {
  const auto properties = parse_kfd_properties("a 1\nbroken\nb x\nc 2 3\nd 18446744073709551615\n");
  CHECK(properties.size() == 2);
  CHECK(properties.at("d") == 18446744073709551615ull);
  CHECK(bdf_from_location(1, (0xc1 << 8) | (2 << 3) | 1) == "0001:c1:02.1");
}

TEST_CASE("the mount that holds /dev/kfd and its options", "[parser][system]") {
  // /proc/mounts of an Ubuntu 20.04 host whose devtmpfs is noexec (kfd-unusable on APUs).
  const auto mounts = parse_mounts(
      "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
      "udev /dev devtmpfs rw,nosuid,noexec,relatime,size=2999468k,nr_inodes=749867,mode=755 0 0\n"
      "devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0\n"
      "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n");
  const auto kfd = mount_holding(mounts, "/dev/kfd");
  REQUIRE(kfd.has_value());
  CHECK(kfd->point == "/dev");
  CHECK(kfd->has("noexec"));
  CHECK(mount_holding(mounts, "/dev/pts/0")->point == "/dev/pts");
  CHECK(mount_holding(mounts, "/devices")->point == "/");
  const auto lines = fstab_lines_for(
      "# /etc/fstab\nUUID=1 / ext4 defaults 0 1\nudev /dev devtmpfs defaults,noexec 0 0\n", "/dev");
  REQUIRE(lines.size() == 1);
  CHECK(lines.front().line == 3);
}

TEST_CASE("a DKMS make.log header names the kernel it was built for", "[parser][driver]") {
  CHECK(make_log_kernel("DKMS (dkms-3.0.11) make.log for amdgpu/6.12.12-2147987.24.04 for kernel "
                        "6.14.0-24-generic (x86_64)") == "6.14.0-24-generic");
  CHECK(make_log_kernel("DKMS make.log for amdgpu-6.3.6-1718217.22.04 for kernel 6.8.0-44-generic "
                        "(x86_64)") == "6.8.0-44-generic");
  CHECK_FALSE(make_log_kernel("make: *** [Makefile:1903: /var/lib/dkms] Error 2").has_value());
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

TEST_CASE("a pod under a cgroup namespace is known by its mounts", "[parser][system]") {
  // A real pod's lines (containerd's snapshotter root, the service-account token).
  const std::string containerd_root =
      "overlay / overlay rw,relatime,lowerdir=/var/lib/containerd/"
      "io.containerd.snapshotter.v1.overlayfs/snapshots/1001/fs,upperdir=/var/lib/containerd/"
      "io.containerd.snapshotter.v1.overlayfs/snapshots/1543/fs 0 0\n";
  const std::string token =
      "tmpfs /run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime,size=131072k 0 0\n";
  CHECK(pod_from_mounts(parse_mounts(containerd_root + token)) == "kubernetes");
  CHECK(pod_from_mounts(parse_mounts(containerd_root)) == "containerd");
  CHECK(pod_from_mounts(parse_mounts(
            "overlay / overlay rw,lowerdir=/var/lib/kubelet/pods/x/fs,upperdir=/u 0 0\n")) ==
        "kubernetes");
  // docker's overlay2 root, and a host's own root, are not pods
  CHECK_FALSE(pod_from_mounts(parse_mounts("overlay / overlay rw,lowerdir=/var/lib/docker/"
                                           "overlay2/l/3PKW,upperdir=/var/lib/docker/x 0 0\n"))
                  .has_value());
  CHECK_FALSE(pod_from_mounts(parse_mounts("/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n")).has_value());
}

TEST_CASE("podman's /run/.containerenv", "[parser][system]") {
  const auto values = parse_containerenv(
      "engine=\"podman-4.9.3\"\nname=\"llama-rocm-7.2\"\nimage=\"docker.io/kyuz0/x:rocm-7.2\"\n"
      "rootless=1\n");
  CHECK(values.at("name") == "llama-rocm-7.2");
  CHECK(values.at("image") == "docker.io/kyuz0/x:rocm-7.2");
  CHECK(values.at("rootless") == "1");
  CHECK(parse_containerenv("name=\"a\x1b[31m\"\n").at("name") == "a\\x1b[31m");  // printable
  CHECK(parse_containerenv("").empty());
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
  // amdgpu_ras_sysfs_read: "ue: %lu\nce: %lu\n".
  const auto ras = parse_ras_count("ue: 2\nce: 17\n");
  REQUIRE(ras);
  CHECK(ras->uncorrectable == 2);
  CHECK(ras->correctable == 17);
  CHECK_FALSE(parse_ras_count("ue: 2\n"));
  CHECK_FALSE(parse_ras_count("ue: x\nce: 0\n"));
  CHECK_FALSE(parse_ras_count(""));
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

namespace {

/// rocm_sdk_of() of a site directory's entries, each read as the python probe reads it.
std::optional<RocmSdk> rocm_sdk_of_entries(std::initializer_list<std::string_view> entries) {
  std::vector<PythonPackage> packages;
  for (const std::string_view entry : entries) {
    if (auto package = package_from_metadata_dir(entry)) {
      packages.push_back(std::move(*package));
    }
  }
  return rocm_sdk_of(packages);
}

}  // namespace

TEST_CASE("AMD's ROCm pip packages are read from their dist-info names", "[parser][python]") {
  // 7.14 multi-arch: the libraries without GPU code, one device package per target
  // (the strix-halo-therock-rocm714 fixture's site-packages).
  const auto multi = rocm_sdk_of_entries({"rocm-7.14.1.dist-info", "rocm_sdk_core-7.14.1.dist-info",
                                          "rocm_sdk_libraries-7.14.1.dist-info",
                                          "rocm_sdk_device_gfx1151-7.14.1.dist-info",
                                          "torch-2.14.1+rocm7.14.dist-info", "torch"});
  REQUIRE(multi);
  CHECK(multi->version == "7.14.1");
  CHECK(multi->libraries);
  CHECK_FALSE(multi->libraries_family.has_value());
  CHECK(multi->devices == std::vector<std::string>{"gfx1151"});
  CHECK_FALSE(multi->devel);
  CHECK(multi->packages == std::vector<std::string>{"rocm 7.14.1", "rocm-sdk-core 7.14.1",
                                                    "rocm-sdk-libraries 7.14.1",
                                                    "rocm-sdk-device-gfx1151 7.14.1"});
  // Up to 7.13 and in the per-family nightlies: one libraries package per GPU family
  // (ROCm/TheRock#2249: gfx110x-dgpu on a Radeon 780M).
  const auto family = rocm_sdk_of_entries(
      {"rocm-7.11.0a20260106.dist-info", "rocm_sdk_devel-7.11.0a20260106.dist-info",
       "rocm_sdk_libraries_gfx110x_dgpu-7.11.0a20260106.dist-info"});
  REQUIRE(family);
  CHECK(family->version == "7.11.0a20260106");  // the rocm package's, without rocm-sdk-core
  CHECK(family->libraries_family == "gfx110x-dgpu");
  CHECK(family->devel);
  // AMD's torch device packages.
  const auto torch = rocm_sdk_of_entries(
      {"amd_torch_device_gfx1250-2.11.0+rocm7.14.0.dist-info", "rocm_sdk_core-7.14.0.dist-info"});
  REQUIRE(torch);
  CHECK(torch->torch_devices == std::vector<std::string>{"gfx1250"});
  CHECK_FALSE(torch->libraries);
  CHECK_FALSE(rocm_sdk_of_entries({"torch-2.6.0+rocm6.2.4.dist-info", "rocmsmi-1.0.dist-info"}));
}

TEST_CASE("home directories come from /etc/passwd", "[parser][python]") {
  const char* passwd =
      "root:x:0:0:root:/root:/bin/bash\n"
      "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
      "svc:x:998:998::/srv/svc:/usr/sbin/nologin\n";
  CHECK(home_from_passwd(passwd, "alice") == "/home/alice");
  CHECK(home_from_passwd(passwd, "svc") == "/srv/svc");
  CHECK_FALSE(home_from_passwd(passwd, "bob").has_value());
}

TEST_CASE("pyenv's version file: first word per line, comments skipped", "[parser][python]") {
  CHECK(parse_pyenv_version_file("3.11.7\n") == std::vector<std::string>{"3.11.7"});
  CHECK(parse_pyenv_version_file("# pinned\n3.12.4 extra\n\nsystem\n") ==
        std::vector<std::string>{"3.12.4", "system"});
}

// A few lines of pci.ids as the pci.ids package writes it, and the forms libpci's parser accepts.
constexpr std::string_view k_pci_ids =
    "#\tList of PCI ID's\n"
    "# 10de  Not a vendor: a comment\n"
    "\n"
    "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
    "\t74a1  Aqua Vanjaram [Instinct MI300X]\n"
    "\t\t1002 74a1  MI300X subsystem\n"
    "10de  NVIDIA Corporation\n"
    "\t0020  NV4 [Riva TNT]\n"
    "# a comment inside the block\n"
    "\t2335  GH100 [H200 SXM 141GB]\n"
    "\t\t10de 18be  H200 SXM 141GB subsystem\n"
    "\t2684  AD102 [GeForce RTX 4090] \n"
    "\t26B9  AD102GL [L40S]\r\n"
    "10DF  Emulex Corporation\n"
    "\t2335  Not NVIDIA's device\n"
    "C 03  Display controller\n"
    "\t00  VGA compatible controller\n";

TEST_CASE("pci.ids: a vendor's block names the vendor and the device as libpci does",
          "[parser][pci]") {
  const auto h200 = pci_ids_lookup(k_pci_ids, 0x10de, 0x2335);
  CHECK(h200.vendor == "NVIDIA Corporation");
  CHECK(h200.device == "GH100 [H200 SXM 141GB]");
  // One trailing blank and a CR are not part of the name; hex digits may be upper case.
  CHECK(pci_ids_lookup(k_pci_ids, 0x10de, 0x2684).device == "AD102 [GeForce RTX 4090]");
  CHECK(pci_ids_lookup(k_pci_ids, 0x10de, 0x26b9).device == "AD102GL [L40S]");
  CHECK(pci_ids_lookup(k_pci_ids, 0x10df, 0x2335).vendor == "Emulex Corporation");
  CHECK(pci_ids_lookup(k_pci_ids, 0x10df, 0x2335).device == "Not NVIDIA's device");
  // A subsystem line is not a device; an unknown device leaves its vendor named.
  const auto unknown = pci_ids_lookup(k_pci_ids, 0x1002, 0x1002);
  CHECK(unknown.vendor == "Advanced Micro Devices, Inc. [AMD/ATI]");
  CHECK(unknown.device.empty());
  // An unknown vendor; a class is not a vendor; the last line has no line end.
  CHECK(pci_ids_lookup(k_pci_ids, 0x8086, 0x0d57).vendor.empty());
  CHECK(pci_ids_lookup(k_pci_ids, 0xc003, 0x0000).vendor.empty());
  CHECK(pci_ids_lookup("8086  Intel Corporation", 0x8086, 0x0d57).vendor == "Intel Corporation");
  CHECK(pci_ids_lookup("", 0x8086, 0x0d57).vendor.empty());
}

namespace {

struct TestRecord {
  int priority;
  std::uint64_t usec;
  std::string text;  // as the kernel stores it: raw bytes, '\n' between the lines of one message
};

// The record as /dev/kmsg gives it (devkmsg_read: info_print_ext_header, msg_add_ext_text, keys).
std::string as_kmsg(const TestRecord& record, std::size_t seq) {
  std::string escaped;
  for (const char c : record.text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < ' ' || byte >= 127 || c == '\\') {
      static constexpr char k_hex[] = "0123456789abcdef";
      escaped += "\\x";
      escaped += k_hex[byte >> 4];
      escaped += k_hex[byte & 0xf];
    } else {
      escaped += c;
    }
  }
  return std::to_string(record.priority) + "," + std::to_string(seq) + "," +
         std::to_string(record.usec) + ",-;" + escaped + "\n SUBSYSTEM=pci\n DEVICE=+pci:0\n";
}

// The records as klogctl(SYSLOG_ACTION_READ_ALL) prints them (record_print_text): a prefix on
// each line of a message.
std::string as_syslog(const std::vector<TestRecord>& records) {
  std::string text;
  for (const auto& record : records) {
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "<%d>[%5llu.%06llu] ", record.priority,
                  static_cast<unsigned long long>(record.usec / 1000000),
                  static_cast<unsigned long long>(record.usec % 1000000));
    for (const auto line : util::split(record.text, '\n')) {
      text += prefix;
      text += line;
      text += '\n';
    }
  }
  return text;
}

std::vector<std::string> kmsg_gpu_lines(const std::vector<TestRecord>& records) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (auto line = gpu_kernel_line(as_kmsg(records[i], i + 17))) {
      lines.push_back(*line);
    }
  }
  return lines;
}

}  // namespace

TEST_CASE("kernel log: klogctl's READ_ALL text gives /dev/kmsg's GPU lines", "[parser][kernel]") {
  const std::vector<TestRecord> records = {
      {5, 0, "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)"},
      {6, 0, "Command line: BOOT_IMAGE=/vmlinuz amdgpu.ppfeaturemask=0xfff7bfff iommu=pt"},
      {6, 74, "ACPI: RSDP 0x00000000000F05B0 000014 (v00 BOCHS )"},
      {6, 74, "ACPI: XSDT 0x000000007FFE1A3D 00003C (v01 BOCHS )"},  // the same microsecond
      {4, 2'417'032, "[drm] amdgpu kernel modesetting enabled."},
      {6, 7'026'427, "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0"},
      {6, 7'100'000, "usb 1-1: new high-speed USB device number 2 using xhci_hcd"},
      {3, 12'500'001, "amdgpu 0000:03:00.0: amdgpu:\tring gfx timeout \\ signaled seq=1, ü"},
      {6, 13'000'000, "a message of\ntwo lines, neither about the GPU"},
      {6, 99'999'999'000'123, "amdgpu: a long-running host"},
  };
  const std::string syslog = as_syslog(records);
  const auto lines = gpu_kernel_lines_of_syslog(syslog, as_kmsg(records[0], 17));
  REQUIRE(lines);
  CHECK(*lines == kmsg_gpu_lines(records));
  CHECK(lines->size() == 5);
  CHECK((*lines)[3] ==
        "[   12.500001] amdgpu 0000:03:00.0: amdgpu:\\x09ring gfx timeout \\x5c signaled seq=1, "
        "\\xc3\\xbc");
  CHECK(lines->back() == "[99999999.000123] amdgpu: a long-running host");

  // Each record once, as /dev/kmsg gives it; lines of one prefix are one record.
  std::vector<std::string> seen;
  CHECK(for_each_syslog_record(syslog, [&](std::string_view record, std::size_t line_count) {
    seen.emplace_back(record);
    CHECK(line_count == (seen.size() == 3 || seen.size() == 8 ? 2u : 1u));
  }));
  REQUIRE(seen.size() == 9);
  CHECK(seen[2] ==
        "6,0,74,-;ACPI: RSDP 0x00000000000F05B0 000014 (v00 BOCHS )\\x0aACPI: XSDT "
        "0x000000007FFE1A3D 00003C (v01 BOCHS )");
  CHECK(seen[7] == "6,0,13000000,-;a message of\\x0atwo lines, neither about the GPU");

  // CONFIG_PRINTK_CALLER's "[  T123]" after the time.
  CHECK(gpu_kernel_lines_of_syslog("<6>[    7.026427][  T123] kfd kfd: amdgpu: ok\n",
                                   "6,0,7026427,-;kfd kfd: amdgpu: ok\n caller=T123\n") ==
        std::vector<std::string>{"[    7.026427] kfd kfd: amdgpu: ok"});
  CHECK(gpu_kernel_lines_of_syslog("", "6,0,1,-;x\n") == std::nullopt);
}

TEST_CASE("kernel log: which messages concern the GPU, in any case", "[parser][kernel]") {
  for (const std::string_view message :
       {"[drm] AMDGPU kernel modesetting enabled.", "kfd kfd: amdgpu: added device 1002:744c",
        "AMD-Vi: Interrupt remapping enabled", "DMAR: IOMMU enabled", "[drm] radeon: ring init",
        "Lockdown: modprobe: unsigned module loading is restricted",
        "amdgpu: module verification failed: signature and/or required key missing",
        "secureboot: Secure boot enabled", "x amdgpu"}) {
    CHECK(is_gpu_kernel_message(message));
  }
  for (const std::string_view message :
       {"", "a", "amdgp", "am dgpu", "usb 1-1: new high-speed USB device", "kf d", "se cure boot",
        "iommX", "lockdown without the colon", "modules verified", "radeo"}) {
    CHECK_FALSE(is_gpu_kernel_message(message));
  }
  // Records judged from their printed text (one line, nothing to escape) and records put in
  // /dev/kmsg's form first (a tab, a backslash) give the same lines.
  const std::vector<TestRecord> records = {
      {6, 1, "Linux version 6.8.0"},          {6, 2, "plain line about nothing"},
      {6, 3, "a tab\there, not the GPU"},     {6, 4, "AmdGpu 0000:03:00.0: upper and lower case"},
      {6, 5, "amdgpu:\ta tab in a GPU line"},
  };
  const auto lines = gpu_kernel_lines_of_syslog(as_syslog(records), as_kmsg(records[0], 17));
  REQUIRE(lines);
  CHECK(*lines == kmsg_gpu_lines(records));
  CHECK(*lines ==
        std::vector<std::string>{"[    0.000004] AmdGpu 0000:03:00.0: upper and lower case",
                                 "[    0.000005] amdgpu:\\x09a tab in a GPU line"});
}

TEST_CASE("kernel log: klogctl's text that could differ from /dev/kmsg is not used",
          "[parser][kernel]") {
  const std::vector<TestRecord> records = {
      {6, 1'000, "pci 0000:03:00.0: Adding to iommu group 12"},
      {6, 2'000, "amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!"},
  };
  const std::string first = as_kmsg(records[0], 0);
  REQUIRE(gpu_kernel_lines_of_syslog(as_syslog(records), first));
  // printk.time=0: READ_ALL prints no time, /dev/kmsg still does.
  CHECK_FALSE(gpu_kernel_lines_of_syslog("<6>pci 0000:03:00.0: Adding to iommu group 12\n", first));
  // After dmesg -C, READ_ALL starts later than /dev/kmsg.
  CHECK_FALSE(gpu_kernel_lines_of_syslog(as_syslog({records[1]}), first));
  // Two GPU lines of one prefix: one message of two lines, or two messages?
  const std::vector<TestRecord> same_time = {records[0], {6, 1'000, "amdgpu: second"}};
  CHECK_FALSE(gpu_kernel_lines_of_syslog(as_syslog(same_time), first));
  // A GPU message close to the kernel's 1 KiB of printed record may have been cut short there.
  const std::vector<TestRecord> long_line = {records[0],
                                             {6, 3'000, "amdgpu: " + std::string(990, 'x')}};
  CHECK_FALSE(gpu_kernel_lines_of_syslog(as_syslog(long_line), first));
  // A line without the prefix ends the text's use.
  CHECK_FALSE(gpu_kernel_lines_of_syslog(as_syslog(records) + "garbage\n", first));
  bool called = false;
  CHECK_FALSE(for_each_syslog_record("<6>[    0.000001] a\n<6>[ 0.000002 b\n",
                                     [&](std::string_view, std::size_t) { called = true; }));
  CHECK(called);
}
