// Typed facts returned by the probes. Unknown is std::nullopt, never zero.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/code_scan.h"
#include "rocdoc/host_answers.h"
#include "rocdoc/runtime.h"
#include "rocdoc/smoke.h"

namespace rocdoc {

// ---- pci -------------------------------------------------------------------------------

/// What a display/accelerator-class PCI function is, for GPU accounting.
enum class GpuVendor { amd, nvidia, intel, virtual_display, other };

struct PciLink {
  std::optional<std::string> current_speed;  ///< "16.0 GT/s PCIe"
  std::optional<std::string> max_speed;
  std::optional<int> current_width;
  std::optional<int> max_width;
};

/// One RAS block's error counts ("ue: 1\nce: 0" in ras/umc_err_count).
struct RasCount {
  std::uint64_t uncorrectable = 0;
  std::uint64_t correctable = 0;
};

/// What amdgpu says a GPU's memory is (mem_info_*_total under the PCI device), in bytes.
struct GpuMemory {
  std::optional<std::uint64_t> vram_total;      ///< VRAM; on an APU the BIOS carve-out
  std::optional<std::uint64_t> vis_vram_total;  ///< the part of VRAM the CPU can map (the BAR)
  std::optional<std::uint64_t> gtt_total;       ///< system memory the GPU can map (GTT)
};

/// One memory BAR of a PCI function (a line of its sysfs `resource` file).
struct PciBar {
  int index = 0;  ///< 0..5
  std::uint64_t size = 0;
  bool prefetchable = false;
  bool is_64bit = false;
};

/// A bridge's Access Control Services (PCIe extended capability 0x0d in its config space).
struct PciAcs {
  bool present = false;       ///< the bridge has the capability
  std::uint16_t control = 0;  ///< ACS Control: what is on
  static constexpr std::uint16_t request_redirect = 1u << 2;
  static constexpr std::uint16_t completion_redirect = 1u << 3;
  static constexpr std::uint16_t egress_control = 1u << 5;
  /// Peer traffic is sent up to the root complex instead of straight to the peer (RR, CR or
  /// EC: the kernel's test in drivers/pci/p2pdma.c).
  bool redirects() const {
    return present && (control & (request_redirect | completion_redirect | egress_control)) != 0;
  }
};

struct PciDevice {
  std::string bdf;  ///< "0000:03:00.0"
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  std::uint32_t class_code = 0;  ///< 24-bit: base, sub, prog-if
  std::optional<std::uint16_t> subsystem_vendor;
  std::optional<std::uint16_t> subsystem_device;
  std::optional<std::uint8_t> revision;
  std::optional<std::string> driver;  ///< name of the bound driver
  std::optional<int> render_minor;    ///< N of the renderD<N> under the function's drm/
  /// Loaded firmware from fw_version/<name>_fw_version, by name ("mes" → 0x83); AMD GPUs only.
  std::map<std::string, std::uint32_t> firmware;
  /// RAS error counts from ras/<block>_err_count, by block ("umc"); AMD GPUs with RAS only.
  std::map<std::string, RasCount> ras;
  /// VRAM pages retired for errors (ras/gpu_vram_bad_pages, one line each); nullopt without it.
  std::optional<std::size_t> bad_pages;
  GpuMemory memory;  ///< AMD GPUs only
  PciLink link;
  /// BDFs above this function, from the root port down (from its sysfs path); empty if unknown.
  std::vector<std::string> upstream;
  /// Where the function sits (GPUs): its NUMA node (nullopt for the kernel's -1: none) and the
  /// CPUs near it (local_cpulist, "0-47,96-143").
  std::optional<int> numa_node;
  std::optional<std::string> local_cpus;
  std::vector<PciBar> bars;  ///< AMD GPUs: the memory BARs of `resource`, by index
  /// The IOMMU group (GPUs): its number and its default domain's type ("identity": DMA passes
  /// through; "DMA", "DMA-FQ": translated). nullopt: no group (no IOMMU) or not readable.
  std::optional<std::string> iommu_group;
  std::optional<std::string> iommu_domain;
  /// Bridges above two or more AMD GPUs: ACS from the config space. nullopt: unknown (past the
  /// first 64 bytes, only root may read a function's config space).
  std::optional<PciAcs> acs;
  std::string vendor_name;  ///< may be empty when no name source knows it
  std::string device_name;
  std::optional<GpuVendor>
      gpu;  ///< set for display (0x03) and processing-accelerator (0x12) functions

  bool is_bridge() const { return (class_code >> 8) == 0x0604; }
  bool is_amd_gpu() const { return gpu == GpuVendor::amd; }
};

struct PciFacts {
  std::vector<PciDevice> devices;            ///< sorted by BDF
  std::string names_from;                    ///< "pci.ids", "libpci" or "rules only"
  std::optional<std::string> names_problem;  ///< why libpci names are missing

  const PciDevice* find(const std::string& bdf) const;
};

// ---- driver ----------------------------------------------------------------------------

struct ModprobeLine {
  std::string file;
  int line = 0;
  std::string text;
};

/// AMD's amdgpu-dkms driver as DKMS left it (/var/lib/dkms/amdgpu).
struct DkmsAmdgpu {
  std::vector<std::string> versions;  ///< /var/lib/dkms/amdgpu/<version> trees with their source
  std::string kernel;                 ///< the running kernel (uname -r)
  /// Where a module built for the running kernel is: the kernel-<R>-<arch> link, a
  /// <version>/<R>/<arch>/module directory, or amdgpu.ko* under /lib/modules/<R>/
  /// updates/dkms, updates or extra; nullopt when DKMS built none for it.
  std::optional<std::string> built_module;
  std::optional<std::string> make_log;  ///< a build/make.log whose header names this kernel
};

/// A memory module's parameter on the kernel command line ("ttm.pages_limit=29360128") or in an
/// `options` line of modprobe.d.
struct ModuleParameterSetting {
  std::string module;  ///< "amdgpu", "ttm" or "amdttm"
  std::string name;    ///< "pages_limit"
  std::string value;
  std::optional<ModprobeLine> file;  ///< the modprobe.d line; nullopt: the kernel command line
};

/// A loaded module's parameters under /sys/module/<module>/parameters/: every name, and the
/// values of those rocdoc judges (the ones set somewhere, and the memory limits).
struct ModuleParameters {
  std::vector<std::string> names;  ///< sorted
  std::map<std::string, std::string> values;
};

struct DriverFacts {
  bool amdgpu_loaded = false;               ///< /sys/module/amdgpu exists
  std::optional<std::string> initstate;     ///< "live", "coming", "going"
  std::optional<std::string> dkms_version;  ///< /sys/module/amdgpu/version (DKMS driver only)
  std::vector<ModprobeLine> blacklist;      ///< "blacklist amdgpu" / "install amdgpu /bin/false"
  bool cmdline_nomodeset = false;
  bool cmdline_blacklists_amdgpu = false;          ///< modprobe.blacklist=...amdgpu...
  std::vector<std::string> cmdline_amdgpu_params;  ///< amdgpu.* on the kernel command line
  /// amdgpu.*, ttm.* and amdttm.* on the kernel command line and in modprobe.d options lines.
  std::vector<ModuleParameterSetting> memory_module_settings;
  /// The parameters of amdgpu, ttm and amdttm, by module; a module that is not loaded is absent.
  std::map<std::string, ModuleParameters> module_parameters;
  bool efi = false;
  std::optional<bool> secure_boot;
  std::optional<DkmsAmdgpu> dkms;  ///< nullopt when amdgpu-dkms left no tree

  /// A loaded module's parameter value as sysfs shows it ("Y", "29360128"); null when the
  /// module is not loaded or the value was not read.
  const std::string* parameter(const std::string& module, const std::string& name) const;
};

// ---- access ----------------------------------------------------------------------------

struct DeviceNode {
  std::string path;
  FileStat stat;
  OpenResult open;
  std::optional<std::string> group_name;  ///< name of stat.gid from /etc/group
};

struct GroupEntry {
  std::string name;
  std::uint32_t gid = 0;
  std::vector<std::string> members;
};

struct AccessFacts {
  Identity identity;
  /// When rocdoc runs as root through sudo: the invoking user (SUDO_USER, SUDO_UID, SUDO_GID,
  /// groups from /etc/group), for whom permissions are judged instead of root.
  std::optional<Identity> sudo_user;
  std::optional<DeviceNode> kfd;
  std::vector<DeviceNode> render_nodes;              ///< /dev/dri/renderD*
  std::optional<std::vector<GroupEntry>> etc_group;  ///< nullopt when /etc/group is unreadable

  const GroupEntry* group_by_gid(std::uint32_t gid) const;
  /// Whose access is judged: the sudo user when there is one, else this process.
  const Identity& subject() const { return sudo_user ? *sudo_user : identity; }
  bool process_has_gid(std::uint32_t gid) const;
  /// /etc/group lists the user as a member of the group.
  bool group_file_lists_user(std::uint32_t gid) const;
};

// ---- kfd_topology ----------------------------------------------------------------------

/// One of a KFD node's memory banks (mem_banks/<n>/properties).
struct KfdMemBank {
  std::uint32_t heap_type = 0;  ///< 0 system memory, 1 public and 2 private frame buffer
  std::uint64_t size = 0;       ///< size_in_bytes
};

struct KfdIoLink {
  int index = 0;
  std::uint32_t type = 0;  ///< 2 = PCIe, 11 = XGMI
  int node_from = 0;
  int node_to = 0;
  std::uint32_t flags = 0;
  std::optional<std::uint32_t> weight;         ///< KFD's distance (XGMI: 15 per hop)
  std::optional<std::uint32_t> min_bandwidth;  ///< MB/s, as KFD reports it
  std::optional<std::uint32_t> max_bandwidth;

  static constexpr std::uint32_t pcie = 2;
  static constexpr std::uint32_t xgmi = 11;

  static constexpr std::uint32_t no_atomics_32 = 1u << 2;
  static constexpr std::uint32_t no_atomics_64 = 1u << 3;
  bool lacks_atomics() const { return (flags & (no_atomics_32 | no_atomics_64)) != 0; }
};

/// Where a KFD GPU node's gfx target came from.
enum class TargetSource {
  gfx_target_version,  ///< the node's gfx_target_version (kernels from 5.15, current DKMS)
  device_id,           ///< older kernels print none: from the device id, as libhsakmt does
  unknown,             ///< neither gives one
};

struct KfdNode {
  int index = 0;
  std::string name;  ///< the node's `name` file
  std::optional<std::uint32_t> gpu_id;
  /// errno name when `properties` could not be read (EPERM: the device cgroup withholds the
  /// GPU); the node's other facts are then unknown.
  std::optional<std::string> unreadable;
  std::uint32_t simd_count = 0;
  std::optional<std::uint32_t> wave_front_size;     ///< 64 (GCN, CDNA) or 32 (RDNA); GPU nodes
  std::optional<std::uint32_t> gfx_target_version;  ///< absent on older kernels
  std::string gfx_target;                           ///< decoded, "gfx90a"; empty if unknown
  TargetSource target_source = TargetSource::unknown;
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::optional<std::uint64_t> unique_id;  ///< ROCR_VISIBLE_DEVICES UUIDs are GPU-<hex of it>
  std::optional<int> drm_render_minor;
  std::optional<std::string> bdf;         ///< from domain + location_id
  std::optional<std::string> render_bdf;  ///< from /sys/class/drm/renderD<minor>/device
  std::vector<KfdIoLink> io_links;
  /// Peer links (p2p_links/, kernels from 6.0): a link here to a GPU node is the kernel's
  /// verdict that the two can reach each other by PCIe peer-to-peer (made only where amdgpu
  /// has CONFIG_HSA_AMD_P2P, for pairs outside one XGMI hive); links to CPU nodes are indirect.
  std::vector<KfdIoLink> p2p_links;
  std::optional<std::uint32_t> io_links_count;   ///< as the node's properties count them
  std::optional<std::uint32_t> p2p_links_count;  ///< absent before p2p_links existed
  std::optional<std::uint64_t> hive_id;          ///< the XGMI hive; 0: in none
  std::vector<KfdMemBank> mem_banks;             ///< GPU nodes; the memory HIP sees as the GPU's

  /// A GPU agent: KFD gives GPU nodes SIMDs, CPU nodes none (libhsakmt's test).
  bool is_gpu() const { return !unreadable && simd_count > 0; }
};

struct KfdFacts {
  bool topology_present = false;
  std::vector<KfdNode> nodes;  ///< sorted by index

  int gpu_count() const;
  /// Nodes whose properties the device cgroup refused (EPERM): GPUs withheld from this process.
  int withheld_count() const;
};

// ---- system ----------------------------------------------------------------------------

enum class WslKind { none, wsl1, wsl2 };

/// One line of /proc/mounts.
struct Mount {
  std::string device;
  std::string point;
  std::string type;
  std::vector<std::string> options;

  bool has(std::string_view option) const;
};

/// A line of /etc/fstab.
struct FstabLine {
  int line = 0;
  std::string text;
};

struct SystemFacts {
  std::map<std::string, std::string> os_release;
  Uname uname;
  std::optional<int> numa_balancing;
  std::optional<int> numa_nodes;
  std::string cmdline;
  std::vector<std::string> iommu_params;  ///< iommu=, amd_iommu=, intel_iommu= on the command line
  std::optional<std::string> container;   ///< "docker", "podman", "kubernetes", ...
  std::optional<std::string> container_name;  ///< podman's name for it (/run/.containerenv)
  bool toolbox = false;                       ///< a toolbx container (/run/.toolboxenv)
  WslKind wsl = WslKind::none;
  bool dxg_present = false;
  std::optional<std::uint64_t> shm_bytes;  ///< size of /dev/shm
  std::optional<std::uint64_t> mem_total;  ///< MemTotal of /proc/meminfo, in bytes
  std::optional<Mount> kfd_mount;          ///< the mount that holds /dev/kfd (from /proc/mounts)
  std::vector<FstabLine> fstab_dev;        ///< /etc/fstab lines that mount /dev
  /// Where the kernel command line is configured: /etc/default/grub (GRUB) and
  /// /etc/kernel/cmdline (kernel-install, for systemd-boot and unified kernel images).
  bool grub_defaults = false;
  bool kernel_cmdline_file = false;
  /// /sys/class/net and /sys/class/infiniband, listed only when NCCL_SOCKET_IFNAME or
  /// NCCL_IB_HCA names some (RCCL's settings are judged against them); nullopt: not listed.
  std::optional<std::vector<std::string>> net_interfaces;
  std::optional<std::vector<std::string>> infiniband_devices;
};

// ---- rocm ------------------------------------------------------------------------------

struct RocmInstall {
  std::string path;                    ///< "/opt/rocm-6.2.0"
  std::optional<std::string> version;  ///< from .info/version, "6.2.0-66"
};

/// A shared library found on disk, with its size (following links) when stat could tell.
struct LibraryFile {
  std::string path;
  std::optional<std::uint64_t> size;
};

/// GPU code on disk and the targets it was compiled for: a HIP library's offload bundles
/// (src/binaries/offload_bundle.h), or a rocBLAS Tensile directory's file names (tensile_names.h).
struct GpuCode {
  std::string path;                  ///< the library, or the rocblas/library directory
  std::vector<std::string> targets;  ///< target ids, sorted: "gfx1030", "gfx90a:xnack-"
};

/// A directory on LD_LIBRARY_PATH that holds libamdhip64.so*: it wins over a wheel's copy.
struct HipLibraryDir {
  std::string dir;
  std::optional<std::string> version;  ///< of the ROCm it belongs to (<dir>/../.info/version)
};

/// How ROCm is laid out under /opt.
enum class RocmLayout {
  none,     ///< no ROCm under /opt
  classic,  ///< /opt/rocm-X.Y.Z, /opt/rocm linking to one of them (ROCm up to 7.2)
  therock,  ///< /opt/rocm/core-X.Y with /opt/rocm/core and /opt/rocm/{bin,lib,...} as
            ///< alternatives links (TheRock: ROCm 7.14 and later)
};

struct RocmFacts {
  RocmLayout layout = RocmLayout::none;
  std::vector<RocmInstall> installs;            ///< /opt/rocm-* (or /opt/rocm/core-*) directories
  std::optional<std::string> opt_rocm_target;   ///< where the /opt/rocm link points
  std::optional<std::string> opt_rocm_version;  ///< version of what /opt/rocm is
  std::optional<std::string> rocm_path;         ///< ROCM_PATH
  std::optional<std::string> rocm_path_version;
  std::optional<std::string> hip_path;        ///< HIP_PATH
  std::optional<bool> rocm_path_holds_rocm;   ///< ROCM_PATH has libamdhip64, .info/version or hipcc
  std::optional<bool> hip_path_holds_hip;     ///< HIP_PATH has libamdhip64, hipcc or HIP headers
  std::vector<HipLibraryDir> ld_library_hip;  ///< LD_LIBRARY_PATH entries with libamdhip64
  bool amdgpu_install = false;                ///< /usr/bin/amdgpu-install (AMD's installer) exists
  bool wsl_dxcore = false;                    ///< /usr/lib/wsl/lib/libdxcore.so exists
  bool rocdxg = false;                        ///< librocdxg.so in the active ROCm's lib/
  std::vector<LibraryFile> hsa_runtime;       ///< libhsa-runtime64.so* in the active ROCm's lib/
  std::optional<GpuCode> rocblas_library;     ///< the active ROCm's lib/rocblas/library (Tensile)

  /// "6.2" from the version of /opt/rocm, else of the only install; nullopt when unknown.
  std::optional<std::string> active_major_minor() const;
};

// ---- packages --------------------------------------------------------------------------

/// A package manager whose database the packages probe reads.
enum class PackageManager { dpkg, rpm, pacman };
/// "dpkg", "rpm", "pacman".
std::string_view to_string(PackageManager manager);

/// An installed package the packages probe keeps (probes/packages.h: ROCm, the amdgpu driver,
/// HIP/HSA/MIOpen/RCCL, the distribution's torch, the kernel).
struct InstalledPackage {
  std::string name;  ///< "rocm-core", "amdgpu-dkms", "kernel-core", "linux-image-6.8.0-45-generic"
  std::string
      version;       ///< as the manager prints it: dpkg's Version ("1:6.8.5.60200-2009582.22.04"),
                     ///< rpm's [epoch:]version-release, pacman's %VERSION% ("6.2.4-1")
  std::string arch;  ///< "amd64", "x86_64", "noarch", "all"; empty when the database has none
  /// dpkg only: the package's state when it is not "installed" ("half-configured",
  /// "unpacked": a maintainer script failed, e.g. amdgpu-dkms's DKMS build); nullopt otherwise.
  std::optional<std::string> state;
};

/// One package database found on the machine.
struct PackageDatabase {
  enum class State {
    read,         ///< read and parsed
    too_large,    ///< larger than rocdoc's cap for it: skipped, never read in part
    unreadable,   ///< present but not readable (`problem` holds the errno name)
    malformed,    ///< read, but not in the format rocdoc reads (`problem` says what broke)
    unsupported,  ///< a format rocdoc does not read (rpm's BerkeleyDB `Packages`, SUSE's ndb)
  };
  PackageManager manager = PackageManager::dpkg;
  std::string path;  ///< /var/lib/dpkg/status, /var/lib/rpm/rpmdb.sqlite, /var/lib/pacman/local
  State state = State::read;
  std::optional<std::uint64_t> size;       ///< bytes (files only)
  std::optional<std::uint64_t> cap;        ///< rocdoc's cap for it, in bytes (files only)
  std::string problem;                     ///< why it was not read; empty when read
  std::string note;                        ///< what may be missing from what was read (rpm's WAL)
  std::vector<InstalledPackage> packages;  ///< the packages kept, sorted by name and version
};

/// A kept package and the database that lists it.
struct FoundPackage {
  const PackageDatabase* database = nullptr;
  const InstalledPackage* package = nullptr;
};

struct PackageFacts {
  std::vector<PackageDatabase> databases;  ///< in the order dpkg, rpm, pacman

  /// Every kept package called `name`, across the databases read.
  std::vector<FoundPackage> named(std::string_view name) const;
  /// The packages that name the installed ROCm release, as each distribution calls them:
  /// rocm-core and AMD's versioned rocm-core<X.Y.Z> (one per release of a multi-version
  /// install); else rocm; else rocm-hip-runtime; else the HIP runtime itself (hip-runtime-amd,
  /// Debian's libamdhip64-*). Empty when none is installed.
  std::vector<FoundPackage> rocm_meta_packages() const;
};

/// The ROCm release a version of AMD's packages names: its last dot-separated part of five
/// digits, major×10000 + minor×100 + patch ("6.2.41134.60204-139.el9" → "6.2.4";
/// "1:6.8.5.60200-2009582.22.04" → "6.2.0"); nullopt when it has none (distributions' own
/// packages, AMD GPU Driver 30.x's amdgpu-dkms).
std::optional<std::string> amd_package_rocm_release(std::string_view version);
/// The AMD GPU Driver release an amdgpu-dkms version of 30.10 and later names: its last part
/// of eight digits ("1:6.16.6.30200000" → "30.20"); nullopt otherwise.
std::optional<std::string> amd_package_driver_release(std::string_view version);
/// The upstream version of a package version: without the epoch and the release
/// ("1:6.8.5.60200-2009582.22.04" → "6.8.5.60200"; "6.2.4-1" → "6.2.4").
std::string_view package_upstream_version(std::string_view version);

// ---- python ----------------------------------------------------------------------------

enum class TorchBuild { rocm, cuda, cpu };
/// "ROCm build", "CUDA build", "CPU-only build": as the reports name a build.
std::string_view build_words(TorchBuild build);
/// "rocm", "cuda", "cpu": a build as every JSON output writes it.
std::string_view to_string(TorchBuild build);

/// Where a torch build comes from (probes/torch_origin.cpp decides it from its files).
enum class TorchOrigin {
  pytorch_org,          ///< a release wheel of download.pytorch.org/whl/<index>
  pytorch_org_nightly,  ///< download.pytorch.org/whl/nightly/<index> (X.Y.Z.devYYYYMMDD)
  amd,                  ///< AMD's own builds (repo.radeon.com: +rocmX.Y.Z.git<hash>, indexes
                        ///< pytorch.org never published for that torch)
  therock,              ///< AMD's TheRock builds and nightlies (+rocm7.11.0a20260106, +rocmsdk…)
  distribution,         ///< a distribution's package (Debian/Ubuntu, Fedora, Arch)
  conda,                ///< a conda package
  pypi,                 ///< PyPI's default wheel (a CUDA build on Linux)
  source,               ///< built from source (+git<hash>, a0 pre-releases)
  unknown,
};

/// torch as its files say (torch/version.py, parsed as data; dist-info or egg-info).
struct TorchInstall {
  std::string version;  ///< torch.__version__, "2.6.0+rocm6.2.4"
  std::optional<std::string> cuda;
  std::optional<std::string> hip;
  std::optional<std::string> rocm;
  std::optional<std::string> git_version;
  TorchBuild build = TorchBuild::cpu;
  std::optional<std::string> metadata_version;  ///< Version: of its dist-info/egg-info
  std::string metadata_path;
  std::vector<LibraryFile> bundled_hsa_runtime;  ///< torch/lib/libhsa-runtime64.so*
  bool bundles_hip = false;  ///< torch/lib has its own libamdhip64.so* (pytorch.org wheels)
  std::optional<std::string> installer;  ///< the INSTALLER file of its dist-info ("pip", "rpm")
  TorchOrigin origin = TorchOrigin::unknown;
  std::string origin_detail;  ///< "pytorch.org wheel (rocm6.2.4 index)", "Debian/Ubuntu package"
  std::optional<std::vector<std::string>> compiled_targets;  ///< of torch/lib/libtorch_hip.so
  /// Every library in torch/lib with GPU code (libtorch_hip.so and the bundled ROCm libraries)
  std::vector<GpuCode> hip_libraries;
  std::optional<GpuCode> rocblas_library;  ///< torch/lib/rocblas/library: its Tensile targets
};

/// A file of a package that rules/cuda_packages.yaml names as evidence of its build.
struct PackageFile {
  std::string path;
  /// The libraries it links (DT_NEEDED), for an extension module the rules read so; nullopt
  /// when not read or unreadable.
  std::optional<std::vector<std::string>> needed;
};

/// A package installed beside torch: torchvision, torchaudio, pytorch-triton-rocm, triton, and
/// the packages of rules/cuda_packages.yaml (vllm, flash-attn, nvidia-cublas-cu12…).
struct PythonPackage {
  std::string name;     ///< normalised: lower case, '-' for '_' ("flash-attn")
  std::string version;  ///< as its dist-info names it, local tag included ("2.6.0+rocm6.2.4")
  std::vector<PackageFile> files;  ///< the evidence files found (rules/cuda_packages.yaml)
};

/// ROCm installed as pip packages in one environment (AMD's TheRock: rocm, rocm-sdk-core,
/// rocm-sdk-libraries[-<family>], rocm-sdk-device-<target>; amd-torch-device-<target> beside an
/// AMD torch), read from their *.dist-info names. No judgement: the families' targets are rules.
struct RocmSdk {
  std::string version;  ///< rocm-sdk-core's ("7.14.1"), else the rocm package's
  /// "gfx110x-all" of rocm-sdk-libraries-gfx110x-all (one GPU family, up to 7.13 and the per-family
  /// nightlies); nullopt for the multi-arch rocm-sdk-libraries (7.14 on) or none installed
  std::optional<std::string> libraries_family;
  bool libraries = false;            ///< a rocm-sdk-libraries* package is installed
  bool devel = false;                ///< rocm-sdk-devel is installed (headers, `rocm-sdk init`)
  std::vector<std::string> devices;  ///< targets of rocm-sdk-device-<target> ("gfx1151")
  std::vector<std::string> torch_devices;  ///< targets of amd-torch-device-<target>
  std::vector<std::string> packages;       ///< "rocm-sdk-core 7.14.1", as found
};

struct PythonEnvironment {
  std::string site_dir;
  std::string prefix;
  std::vector<std::string> found_by;  ///< "VIRTUAL_ENV", "python3 on PATH (/usr/bin)", ...
  std::optional<TorchInstall> torch;
  std::vector<PythonPackage> packages;
  std::optional<RocmSdk> rocm_sdk;  ///< ROCm as pip packages here; nullopt when none
  /// The CPython version its interpreter runs ("3.11"): from the site directory's path, else
  /// (Debian's /usr/lib/python3/dist-packages) from /usr/bin/python3's link; nullopt unknown.
  std::optional<std::string> python_version;
  /// PEP 668: its stdlib directory holds EXTERNALLY-MANAGED (Debian 12+, Ubuntu 23.04+,
  /// Fedora 38+), so `pip install` into it is refused: installs go into a virtual environment.
  bool externally_managed = false;
  /// The environment the first python3 on PATH runs (its site directories): what a user who
  /// types `python3` gets. Others are shadowed. False when PATH has no python3.
  bool runs_as_python3 = false;

  const PythonPackage* package(const std::string& name) const;
  /// "/home/alice/venv (VIRTUAL_ENV)" for messages.
  std::string describe() const;
};

/// The first python3 on PATH: the interpreter a user gets by typing python3.
struct PathPython {
  std::string path;                   ///< "/home/alice/.pyenv/shims/python3"
  std::optional<std::string> target;  ///< where it leads when it is a link
  bool inspected = false;             ///< one of the environments below is its own
};

struct PythonFacts {
  std::vector<PythonEnvironment> environments;  ///< each site directory once, in search order
  std::optional<PathPython> path_python3;       ///< nullopt when PATH has no python3
};

// ---- env -------------------------------------------------------------------------------

/// Allow-listed environment variables that are set (env_allowlist.h), by name.
struct EnvFacts {
  std::map<std::string, std::string> variables;

  const std::string* find(const std::string& name) const;
};

// ---- tuning ----------------------------------------------------------------------------

/// What a tuning directory holds.
enum class TuningUse {
  miopen_user_db,     ///< MIOpen's user performance database (MIOPEN_USER_DB_PATH)
  miopen_cache,       ///< MIOpen's compiled-kernel cache (MIOPEN_CUSTOM_CACHE_DIR)
  tunableop_results,  ///< PyTorch TunableOp's results file (PYTORCH_TUNABLEOP_FILENAME)
};

/// A directory a tuning setting writes to, and what stands in the way of writing there.
struct TuningDirectory {
  TuningUse use = TuningUse::miopen_user_db;
  std::string variable;     ///< the variable that names it ("MIOPEN_USER_DB_PATH")
  bool is_default = false;  ///< the variable is not set: its default under the user's home
  std::string given;        ///< the value as set ("~/miopen", "results.csv"); empty for a default
  std::string path;         ///< the directory, absolute; empty when it depends on the working
                            ///< directory (a relative file name) or the home is unknown
  std::optional<std::string> existing;  ///< `path` or its nearest ancestor that exists
  std::optional<FileStat> stat;         ///< of `existing`
  std::optional<Mount> mount;           ///< the mount that holds `existing`
};

/// Where tuning results go (probe "tuning"): for the user the report judges (under sudo, the
/// invoking user).
struct TuningFacts {
  std::optional<std::string> home;  ///< that user's home, from /etc/passwd
  std::optional<Mount> home_mount;  ///< the mount that holds it
  std::vector<TuningDirectory> directories;
};

// ---- all of them -----------------------------------------------------------------------

/// What every probe found. A probe that failed leaves its member empty.
/// What a kernel log line says about the GPU (probes/kernel_log.cpp classifies them).
enum class KernelEventKind {
  atomics_rejected,      ///< "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics"
  not_supported_in_kfd,  ///< "… not supported in kfd": KFD does not drive this chip
  kfd_not_added,         ///< "kfd kfd: amdgpu: … NOT added due to errors"
  module_refused,        ///< Secure Boot / lockdown refused an unsigned module
  firmware_failed,       ///< a firmware file did not load
  gpu_reset,             ///< a ring timeout, a GPU reset or hang
  iommu_fault,           ///< an IOMMU page fault (AMD-Vi IO_PAGE_FAULT)
  trap_handler_refused,  ///< "Failure to set tba address": KFD could not map an APU's trap handler
  vm_fault,              ///< a GPU page fault ("[gfxhub] page fault", "VM_L2_PROTECTION_FAULT")
  scheduler_hang,        ///< the MES or KIQ stopped answering ("MES failed to respond")
  ras_error,             ///< an uncorrectable RAS/ECC error, poison, or a retired page
};

std::string_view to_string(KernelEventKind kind);

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::gpu_reset;
  std::string line;  ///< as dmesg prints it, with its timestamp
};

/// The GPU lines of this boot's kernel log (/dev/kmsg), kept only when readable.
struct KernelLogFacts {
  enum class State { read, unreadable, not_available };
  State state = State::not_available;  ///< not_available: a sysroot or an older snapshot
  std::string error;                   ///< errno name when unreadable ("EPERM")
  std::vector<std::string> lines;
  std::vector<KernelEvent> events;
};

struct Facts {
  std::optional<PciFacts> pci;
  std::optional<DriverFacts> driver;
  std::optional<AccessFacts> access;
  std::optional<KfdFacts> kfd;
  std::optional<SystemFacts> system;
  std::optional<EnvFacts> env;
  std::optional<TuningFacts> tuning;
  std::optional<RocmFacts> rocm;
  std::optional<PackageFacts> packages;  ///< the package databases (probes/packages.cpp)
  std::optional<PythonFacts> python;
  std::optional<KernelLogFacts> kernel_log;
  std::optional<RuntimeFacts> runtime;  ///< --deep (rocdoc/runtime.h), or a snapshot's record
  std::optional<SmokeFacts> smoke;      ///< --smoke (rocdoc/smoke.h), or a snapshot's record
  /// `check --scan DIR`: what the source scan found (rocdoc/code_scan.h); the code.* checks
  /// judge it and run only when it is set.
  std::optional<CodeScanFacts> code_scan;
};

}  // namespace rocdoc
