// The knowledge base: rules/*.yaml, embedded at build time, overridable with --rules DIR.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check_result.h"

namespace rocdoc {

enum class GpuKind { radeon, instinct, apu };

/// What the community HSA_OVERRIDE_GFX_VERSION value does for a target.
enum class OverrideVerdict { works, unneeded, dangerous, none };

struct GfxOverride {
  std::string value;  ///< "10.3.0"; empty when no value is in use (verdict none)
  OverrideVerdict verdict = OverrideVerdict::none;
  std::string unneeded_since_torch;  ///< with unneeded: first torch whose wheels have the target
  std::optional<OverrideVerdict> older_torch;  ///< with unneeded: the verdict for older wheels
  /// The sentence users read in findings and fixes (`says:`); empty: a generic text is used.
  std::string says;
  std::string
      note;  ///< for the rules' maintainers (evidence, doubts, safe choices): never in a report
  std::string source;
};

/// A fix for broken firmware on one family of distributions.
struct FirmwareFix {
  std::vector<std::string> os;  ///< os-release IDs it is for (ID or ID_LIKE); empty: every OS
  std::string description;
  std::string command;  ///< empty when the step is not a command
  bool needs_root = false;
};

/// A firmware release known to be broken on a target (driver.firmware).
struct BrokenFirmware {
  std::string firmware;  ///< the fw_version file's prefix: "mes" for mes_fw_version
  std::vector<std::uint32_t> versions;
  std::string problem;  ///< what it does, for users
  std::vector<FirmwareFix> fixes;
  std::string source;
};

/// The kernel an APU needs for HIP to get the memory the machine gives it (apu.memory).
struct MemoryKernel {
  std::string version;  ///< mainline, "6.18.4"
  std::string says;     ///< for users: what older kernels do, and the distributions' builds
  std::string source;
};

enum class Fp16Support { packed, basic };       ///< packed: v_pk_* math on two halves (gfx9 and up)
enum class Bf16Support { hardware, emulated };  ///< emulated: converted to fp32, slower than fp16
enum class Fp8Format { none, fnuz, ocp };       ///< fnuz: MI300's formats; ocp: E4M3/E5M2
enum class Int8Support { matrix, dot, none };   ///< int8 in matrix cores, or dot instructions only
enum class MatrixCores { mfma, wmma, none };
/// torch's scaled_dot_product_attention flash/memory-efficient kernels (AOTriton) on a target.
enum class SdpaSupport { none, experimental, tech_preview, stable };
enum class Availability { yes, no, unknown };

/// torch uses hipBLASLt on this target (its supported-architecture list).
struct HipBlasLtSupport {
  std::string torch_since;  ///< first torch release that lists it; "" when not verified
  std::string rocm_since;   ///< under that ROCm version guard ("6.3"); "" when none
  bool preferred = false;   ///< torch picks hipBLASLt by default (else rocBLAS unless asked)
};

struct FlashAttention {
  SdpaSupport sdpa = SdpaSupport::none;
  std::string torch_since;  ///< first torch release with that support; "" when none or unknown
  Availability ck = Availability::unknown;      ///< ROCm/flash-attention's CK backend
  Availability triton = Availability::unknown;  ///< ROCm/flash-attention's Triton backend
};

/// What a target's hardware and the libraries built for it can do (rules show, the JSON
/// inventory, env.tuning).
struct TargetCompute {
  std::vector<int> wavefronts;  ///< the sizes it runs, the compilers' default first: {32, 64}
  Fp16Support fp16 = Fp16Support::packed;
  Bf16Support bf16 = Bf16Support::emulated;
  std::string bf16_how;  ///< the instructions that do it (or why none do)
  Fp8Format fp8 = Fp8Format::none;
  Int8Support int8 = Int8Support::none;
  MatrixCores matrix = MatrixCores::none;
  std::optional<HipBlasLtSupport> hipblaslt;  ///< nullopt: torch never uses hipBLASLt here
  FlashAttention flash_attention;
  std::string note;
  std::string source;
};

std::string_view to_string(Fp16Support value);
std::string_view to_string(Bf16Support value);
std::string_view to_string(Fp8Format value);
std::string_view to_string(Int8Support value);
std::string_view to_string(MatrixCores value);
std::string_view to_string(SdpaSupport value);
std::string_view to_string(Availability value);

struct GfxTarget {
  std::string name;       ///< "gfx1031"
  std::uint32_t kfd = 0;  ///< 100301
  std::string family;     ///< "RDNA2"
  GpuKind kind = GpuKind::radeon;
  std::vector<std::string> products;
  /// APU models whose integrated GPU this is ("Ryzen AI 9 HX 370"), as AMD's GPU list names them
  std::vector<std::string> processors;
  std::string source;
  std::map<std::string, std::string> rocm;  ///< "6.4" → supported | deprecated | unsupported
  std::string rocm_since;                   ///< first point release when support began mid-minor
  std::string generic;  ///< LLVM's generic family target whose code runs here ("gfx10-3-generic")
  std::optional<GfxOverride> override_value;
  std::vector<BrokenFirmware> broken_firmware;
  std::optional<MemoryKernel> memory_kernel;  ///< APUs whose memory an older kernel misreports
  std::optional<TargetCompute> compute;

  bool is_mi300_class() const { return family == "CDNA3" || family == "CDNA4"; }
};

struct PciIdEntry {
  std::uint16_t device = 0;  ///< vendor is always 0x1002
  std::string name;  ///< every product of the id: "Radeon RX 6700 / Radeon RX 6700 XT / …"
  std::string gfx;
  std::string source;
  /// The one product of each PCI revision (libdrm's amdgpu.ids, rocminfo's marketing name).
  std::vector<std::pair<std::uint8_t, std::string>> products;

  /// The product this revision is ("Radeon RX 6700 XT"; "Phoenix1 iGPU (Radeon 780M Graphics)"
  /// where `name` is a chip with its products in parentheses, "Radeon 8060S Graphics (Strix
  /// Halo)" where the chip follows them); when it is not known, `name` with the words each
  /// product shares with the first left out, as pci.ids writes a list ("Radeon RX 6700 /
  /// 6700 XT / 6750 XT / 6800M / 6850M XT").
  std::string name_for(std::optional<std::uint8_t> revision) const;
};

/// One torch release and its official pytorch.org ROCm wheels.
struct TorchRelease {
  std::string torch;        ///< "2.6.0"
  std::string torchvision;  ///< "0.21.0"
  std::string torchaudio;   ///< empty when none was published (see torchaudio_pair)
  std::string torchaudio_pair;
  std::string triton_rocm;                ///< pytorch-triton-rocm pin; empty when not verified
  std::vector<std::string> rocm_indexes;  ///< "rocm6.2.4"
  std::vector<std::string> gfx;           ///< targets compiled into the wheels
  std::map<std::string, std::vector<std::string>> gfx_exceptions;  ///< index → targets
  std::string source;
  /// CPython versions ("3.9" … "3.13") with Linux x86_64 wheels on its ROCm indexes.
  std::vector<std::string> python;
  std::map<std::string, std::vector<std::string>> python_exceptions;  ///< index → versions

  /// Targets of the wheels of one index (gfx_exceptions, else gfx).
  const std::vector<std::string>& targets_for(const std::string& index) const;
  /// CPython versions of the wheels of one index (python_exceptions, else python).
  const std::vector<std::string>& python_for(const std::string& index) const;
  /// The torchaudio version to install with it.
  const std::string& audio() const { return torchaudio.empty() ? torchaudio_pair : torchaudio; }
};

/// One of AMD's per-target wheel sets: torch[device-gfxNNNN] from AMD's own index.
struct AmdWheelSet {
  std::string rocm;       ///< "7.14"
  std::string index_url;  ///< "https://repo.amd.com/rocm/whl-multi-arch/"
  std::string torch;      ///< "2.12.0+rocm7.14.0"
  std::string torchvision;
  std::string torchaudio;
  std::vector<std::string> devices;  ///< targets with a [device-gfxNNNN] extra
  std::string source;
  std::vector<std::string> python;  ///< CPython versions it has wheels for; empty: unknown
};

/// Whether wheels listed for `versions` (CPython "3.N") exist for `python`: true when either is
/// unknown (nullopt, empty).
bool has_python(const std::vector<std::string>& versions, const std::optional<std::string>& python);

/// AMD's torch of one ROCm point release as wheel files on repo.radeon.com (no index: AMD's
/// Radeon and Ryzen pages download the files and install them), rules/torch.yaml `radeon_wheels`.
struct RadeonWheelSet {
  std::string rocm;         ///< "6.4.1"
  std::string url;          ///< "https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/"
  std::string torch;        ///< "2.6.0+rocm6.4.1.git1ded221d"
  std::string torchvision;  ///< "0.21.0+rocm6.4.1.git4040d51f"
  std::string torchaudio;   ///< "2.6.0+rocm6.4.1.gitd8831425"
  std::string triton;  ///< the Triton wheel's version (pytorch_triton_rocm, `triton` from 7.0.2)
  std::vector<std::string> python;  ///< CPython versions the files are named for ("3.12")
  std::string source;
};

/// A wheel file's name: torchvision, "0.21.0+rocm6.4.1.git4040d51f", "3.12" →
/// "torchvision-0.21.0%2Brocm6.4.1.git4040d51f-cp312-cp312-linux_x86_64.whl" (the version as a
/// URI path: its '+' written as %2B, as AMD's pages have it).
std::string radeon_wheel_file(std::string_view distribution, std::string_view version,
                              std::string_view python);

struct OsSupport {
  std::string id;                     ///< os-release ID
  std::vector<std::string> versions;  ///< VERSION_ID prefixes
  std::string since;  ///< first point release of the ROCm minor that lists them ("6.4.2"); "" all
};

struct RocmRelease {
  std::string rocm;  ///< "6.3"
  std::vector<OsSupport> os;
  std::string source;
  /// Targets the release's math libraries have code for (AMD's rocBLAS package); empty when
  /// unknown. AMD's official list is GfxTarget::rocm; code and list can differ both ways.
  std::vector<std::string> library_targets;
  /// The HIP major.minor it ships where it differs from the ROCm number ("7.15" for ROCm 10.0);
  /// "" when HIP is numbered as ROCm (every release up to 7.14).
  std::string hip;
  /// Components AMD no longer builds or installs from this release on ("rocm-smi" from 10.1).
  std::vector<std::string> without;
};

/// How ROCm gets onto one distribution release when AMD's installer is not there yet:
/// AMD's amdgpu-install package (then `amdgpu-install --usecase=…`), or the distribution's own
/// packages where those are the supported path.
enum class InstallMethod { amdgpu_install, distribution };

struct RocmInstaller {
  std::string os;                     ///< os-release ID ("ubuntu"); also matched against ID_LIKE
  std::vector<std::string> versions;  ///< VERSION_ID values; empty: every release
  InstallMethod method = InstallMethod::amdgpu_install;
  std::string rocm;                ///< the ROCm release the steps install ("7.2.3"); "" unknown
  std::vector<std::string> steps;  ///< commands, in order, each a whole shell line
  std::string source;
};

enum class EnvVarKind { real, misspelling };

/// When a debugging or serialising variable counts as left on (env.debug-left-on).
enum class LeftOnWhen {
  set,       ///< any value
  nonzero,   ///< any value but empty, 0, false, no, off
  at_least,  ///< a number at least `at_least`
  off,       ///< a switch turned off: 0, no, false, off, disable, disabled (MIOpen's words)
  one,       ///< a number equal to 1 (RCCL's test: strtol(value, NULL, 0) == 1)
};

/// A debugging setting that, left set, makes every run slow or changes what runs.
struct LeftOn {
  LeftOnWhen when = LeftOnWhen::set;
  int at_least = 0;
  std::string effect;  ///< what it does to every run, for users
  /// Counts as left on only where every pair of GPUs has a direct peer path (XGMI, or one PCIe
  /// switch): across CPU root ports it is RCCL's workaround, not a leftover (`peers: direct`).
  bool only_with_direct_peers = false;
};

/// The values a program accepts for a variable (env.tuning judges the others).
struct AcceptedValues {
  std::vector<std::string> values;
  bool ignore_case = false;
  bool any_number = false;  ///< any whole number too (`numbers: any`)
  std::string says;         ///< what the program does with any other value, for users
};

/// Where a variable that names a place (a directory, a file) points by default, and the place a
/// fix gives a user instead (env.tuning), rules/env_vars.yaml `place`.
struct PlaceRule {
  std::string default_place;    ///< "~/.config/miopen"; "" when the default is not judged
  std::string per_user;         ///< a shell word for one's own place: "$HOME/.config/miopen"
  std::string on_network_home;  ///< where to point it when the home is networked; "" none
  std::string source;
};

struct EnvVariable {
  std::string name;
  EnvVarKind kind = EnvVarKind::real;
  std::string real;                 ///< with misspelling: the real name
  std::string per_node_since_rocm;  ///< "6.3": first ROCm that reads NAME_<node>; empty if none
  std::string description;
  std::string source;
  std::optional<LeftOn> left_on;          ///< a debugging setting (env.debug-left-on)
  std::optional<AcceptedValues> accepts;  ///< the values it takes, where they are a closed set
  std::optional<PlaceRule> place;         ///< for a variable that names a place
};

/// A key of PyTorch's allocator settings (PYTORCH_ALLOC_CONF and its older names).
struct AllocatorKey {
  std::vector<std::string> names;  ///< the key and its aliases ("release_lock_on_hipmalloc")
  std::string since_torch;         ///< first torch release that accepts it; "" when not verified
  /// On ROCm builds: the first torch release where it takes effect ("2.11"); "" when it does
  /// wherever it is accepted.
  std::string rocm_works_since_torch;
  std::string rocm_says;  ///< what older ROCm builds do with it, for users
  std::string source;
};

/// PyTorch's allocator settings: which variables hold them and the keys they take.
struct AllocatorConfig {
  std::vector<std::string> variables;  ///< in the order torch reads them: the first set wins
  std::string unknown_key_says;        ///< what torch does with a key it does not know
  std::vector<AllocatorKey> keys;
  std::string source;

  const AllocatorKey* key(std::string_view name) const;
};

/// The size /dev/shm needs (shm.small).
struct ShmFloor {
  std::uint64_t container_bytes = 0;  ///< below this in a container: DataLoader workers fail
  std::uint64_t multi_gpu_bytes = 0;  ///< below this on a multi-GPU host: RCCL cannot start
  std::uint64_t suggested_bytes = 0;  ///< what the fix sets
  std::string source;
};

struct WslRelease {
  std::string rocm;  ///< "6.4.2"
  std::string windows_driver;
  std::string runtime_library;
  bool supported = true;
  std::string source;
  std::vector<std::string> requires_env;  ///< "HSA_ENABLE_DXG_DETECTION=1": must hold to see a GPU

  bool uses_rocdxg() const { return runtime_library.find("librocdxg") != std::string::npos; }
};

/// What a Python package's CUDA build does on ROCm (rules/cuda_packages.yaml `breaks`).
enum class CudaPackageBreaks {
  cuda_torch,    ///< installing it pulls a CUDA torch over the ROCm one
  fails,         ///< it fails on the GPU: at import (a CUDA library is missing) or first use
  cpu_fallback,  ///< it runs without the GPU, silently: only acceleration is lost
  leftover,      ///< nothing loads it beside a ROCm torch: what a CUDA torch left behind
};

/// How a file of a package tells its build (rules/cuda_packages.yaml `evidence`).
enum class PackageEvidence {
  cuda,    ///< the file exists only in the CUDA build (libbitsandbytes_cuda121.so)
  rocm,    ///< the file exists only in the ROCm build (libggml-hip.so)
  linked,  ///< an extension module: the libraries it links (DT_NEEDED) tell
};

struct PackageEvidenceFile {
  /// A path under site-packages; `*` in its last part matches any run of characters
  /// ("flash_attn_2_cuda*.so", "bitsandbytes/libbitsandbytes_cuda*.so").
  std::string pattern;
  PackageEvidence says = PackageEvidence::linked;
};

/// A Python distribution built for CUDA that does not run on ROCm as it is, and what does.
struct CudaPackage {
  std::string name;  ///< normalised distribution name; `*` matches any run ("nvidia-*-cu12")
  std::vector<std::string> also;  ///< more names of the same kind ("nvidia-*-cu11")
  std::string what;           ///< a few words for messages ("vLLM", "NVIDIA's CUDA runtime wheels")
  bool name_is_cuda = false;  ///< the name alone says CUDA (cupy-cuda12x, onnxruntime-gpu)
  /// The untagged build without other evidence is CUDA's (PyPI's vllm); else it is unknown.
  bool untagged_is_cuda = false;
  /// Pulled in by a CUDA torch: torch.cuda-wheel's finding when torch itself is CUDA's.
  bool comes_with_cuda_torch = false;
  std::vector<PackageEvidenceFile> evidence;
  CudaPackageBreaks breaks = CudaPackageBreaks::fails;
  std::string breaks_how;  ///< what happens on ROCm, in words
  /// Where the ROCm build or fork is; empty when none exists.
  std::string rocm_build;
  /// The pip line of the ROCm build: {python} is the environment's interpreter, {cp} its
  /// CPython tag ("cp312"), {torch_index} the pytorch.org index of its ROCm torch
  /// ("rocm6.2.4"); empty when no line installs it.
  std::string install;
  /// The CPython versions the ROCm build has wheels for ("3.12"); empty: any.
  std::vector<std::string> pythons;
  /// The pytorch.org indexes that serve its ROCm build ("rocm7.1"), for {torch_index}.
  std::vector<std::string> torch_indexes;
  std::string source;
  std::string note;

  bool matches(std::string_view distribution) const;
};

/// The shared libraries that tell a CUDA build from a ROCm build, as name prefixes
/// ("libcudart.so" matches libcudart.so.12).
struct BuildLibraries {
  std::vector<std::string> cuda;
  std::vector<std::string> rocm;
  std::string source;
};

/// Where in a C/C++ file's preprocessor branches a code pattern applies
/// (rules/code_patterns.yaml `branch`).
enum class CodeBranch {
  code,      ///< everywhere but a branch only CUDA builds compile (the default)
  rocm,      ///< only in a branch only ROCm/HIP builds compile
  anywhere,  ///< every line, whatever the branch (the kinds without a preprocessor)
};

/// A CUDA-only assumption in source code, as a regular expression over one line
/// (rules/code_patterns.yaml; `rocdoc scan`, `check --scan`).
struct CodePattern {
  std::string id;    ///< the code.* check it is evidence for ("code.warp-size")
  std::string name;  ///< unique among the patterns ("sync-mask-32-bit")
  /// The file kinds it applies to ("cxx", "python", "cmake", "make", "shell", "dockerfile",
  /// "compose", "kubernetes", "pyproject"), as src/scan/file_kind.h names them.
  std::vector<std::string> kinds;
  Severity severity = Severity::warning;
  std::string match;           ///< RE2, multi-line mode, never across a line end
  std::string unless_line;     ///< RE2: no finding when the line (or a context line) matches
  unsigned context_lines = 0;  ///< lines above the match that unless_line also reads
  std::string unless_file;     ///< RE2: no finding when the file matches anywhere
  /// No finding when a C/C++ file of the tree defines the name the match starts with as a
  /// function-like macro (a table mapping the CUDA name to HIP: ggml's vendors/hip.h).
  bool unless_mapped = false;
  CodeBranch branch = CodeBranch::code;
  /// RE2 over the conditions of the enclosing #if branches (C/C++ only): no finding when it
  /// matches (the architecture tests that make a hard-coded wave size right).
  std::string unless_branch;
  std::string what;                  ///< what happens on ROCm
  std::string replacement;           ///< what to write instead
  std::vector<std::string> sources;  ///< the citations, resolved from the file's `sources`
};

/// The preprocessor macros that tell a ROCm/HIP build from a CUDA build
/// (rules/code_patterns.yaml `platform_macros`).
/// Files only a CUDA build compiles, by their path (rules/code_patterns.yaml
/// `cuda_only_paths`): the scan does not judge them.
struct CodeCudaOnlyPaths {
  std::vector<std::string> match;  ///< RE2 over the path from the tree's root
  std::vector<std::string> sources;
};

struct CodePlatformMacros {
  std::vector<std::string> rocm;  ///< defined by ROCm/HIP builds only (USE_ROCM, __HIPCC__…)
  std::vector<std::string> cuda;  ///< defined by CUDA builds only (__CUDA_ARCH__, __NVCC__…)
  std::vector<std::string> sources;
};

/// An amdgpu DKMS module version and the ROCm release it ships with.
struct DriverVersion {
  std::string module;  ///< "6.8.5", as /sys/module/amdgpu/version reads
  std::string rocm;    ///< "6.2"
  std::string source;
  std::string package;  ///< the AMD GPU Driver release it belongs to ("31.40"); "" unknown
};

/// A fix a triage signature names, for when the log lacks the facts `check` would compute it from.
struct TriageFix {
  std::string description;
  std::string command;  ///< empty when the step is not a command
  bool needs_root = false;
  /// "shell" (default), "container_flag" (a docker/podman run flag), "file_edit"; "manual" when
  /// there is no command.
  std::string kind;
};

/// A known error line of a pasted log (rules/triage.yaml), and the check it is evidence for.
struct TriageSignature {
  std::string id;                  ///< "hip-no-binary-for-gpu"
  std::vector<std::string> match;  ///< any one of these, as plain text, ASCII case ignored
  std::vector<std::string> with;   ///< and every one of these, on the same line
  std::string check;               ///< a check id of the check table ("arch.unsupported")
  std::string severity;            ///< "error", "warning" or "info"
  std::string message;
  std::vector<TriageFix> fixes;
  /// "steps" (the default: each after the other) or "alternatives" (one of them, each under the
  /// condition its description names: "In a container: …", "On a host: …").
  std::string fix_order = "steps";
  std::string source;
};

/// The parts of the knowledge base a command builds. Building the embedded rules costs a default
/// check more than any probe; check reads neither the triage signatures nor, without --scan, the
/// code patterns, which are a third of the rules.
enum class KnowledgeParts : unsigned {
  machine = 1U << 0,  ///< every rule but the two below
  triage = 1U << 1,   ///< rules/triage.yaml
  code = 1U << 2,     ///< rules/code_patterns.yaml
  all = machine | triage | code,
};

constexpr KnowledgeParts operator|(KnowledgeParts a, KnowledgeParts b) {
  return static_cast<KnowledgeParts>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

/// Whether `set` holds every part of `parts`.
constexpr bool holds(KnowledgeParts set, KnowledgeParts parts) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(parts)) ==
         static_cast<unsigned>(parts);
}

struct Knowledge {
  /// What was built: a --rules DIR is always loaded whole. Code that reads a part calls
  /// require() first, so that a command that built too little fails loudly, never with an
  /// empty list.
  KnowledgeParts built = KnowledgeParts::all;
  std::vector<GfxTarget> targets;
  std::vector<PciIdEntry> pci_ids;
  std::vector<RocmRelease> rocm_releases;  ///< oldest first
  std::vector<DriverVersion> driver_versions;
  /// TheRock's GPU families ("gfx110x-all", lower case as pip names them) → their targets: what a
  /// rocm-sdk-libraries-<family> package has code for (rocm_releases.yaml `sdk_families`).
  std::map<std::string, std::vector<std::string>> sdk_families;
  std::vector<RocmInstaller> installers;     ///< rocm_releases.yaml `installers`, in file order
  std::vector<TorchRelease> torch_releases;  ///< oldest first
  std::vector<EnvVariable> env_variables;
  std::vector<WslRelease> wsl_releases;
  std::vector<AmdWheelSet> amd_wheels;        ///< oldest first
  std::vector<RadeonWheelSet> radeon_wheels;  ///< oldest first
  std::vector<std::string> nightly_indexes;   ///< pytorch.org nightly ROCm indexes ("rocm10.1")
  std::vector<TriageSignature> triage_signatures;  ///< rules/triage.yaml, in file order
  std::vector<CudaPackage> cuda_packages;          ///< rules/cuda_packages.yaml, in file order
  BuildLibraries build_libraries;                  ///< rules/cuda_packages.yaml
  std::vector<CodePattern> code_patterns;          ///< rules/code_patterns.yaml, in file order
  CodePlatformMacros code_platform_macros;         ///< rules/code_patterns.yaml
  CodeCudaOnlyPaths code_cuda_only_paths;          ///< rules/code_patterns.yaml
  AllocatorConfig allocator;                       ///< rules/tuning.yaml
  ShmFloor shm;                                    ///< rules/tuning.yaml
  std::string revision;  ///< date of the newest source the rules encode ("2026-11-26")
  std::string origin;    ///< "embedded" or the --rules directory

  /// Throws std::logic_error (a defect of rocdoc, never of the input) when `needed` was not
  /// built.
  void require(KnowledgeParts needed) const;
  const GfxTarget* target(std::string_view name) const;
  const PciIdEntry* amd_pci_id(std::uint16_t device) const;
  const DriverVersion* driver_version(std::string_view module) const;
  /// How ROCm gets onto a distribution release (os-release ID, ID_LIKE and VERSION_ID): the
  /// first installer whose os is the ID (else one of ID_LIKE's words) and whose versions hold
  /// VERSION_ID (or are empty); null when the rules know none.
  const RocmInstaller* installer_for(std::string_view id, std::string_view id_like,
                                     std::string_view version_id) const;
  /// Position of a major.minor release in rocm_releases; nullopt when unknown.
  std::optional<int> rocm_release_index(std::string_view major_minor) const;
  const RocmRelease* rocm_release(std::string_view major_minor) const;
  /// The targets of a TheRock GPU family ("gfx110X-all", any case; a target name is a family of
  /// its own); nullopt when unknown.
  std::optional<std::vector<std::string>> sdk_family(std::string_view family) const;
  /// The driver row of an AMD GPU Driver release ("31.40", "31.40.1"); nullptr if none.
  const DriverVersion* driver_package(std::string_view package) const;
  /// The ROCm major.minor whose HIP a version such as torch.version.hip names ("7.15.26333" →
  /// "10.0"; "6.2.41134" → "6.2"); nullopt when it is newer than every HIP the rules know or not
  /// a version.
  std::optional<std::string> rocm_of_hip(std::string_view hip) const;
  /// The release row of a torch version ("2.6.0", "2.6.0+rocm6.2.4" → 2.6.0); null if unknown.
  const TorchRelease* torch_release(std::string_view version) const;
  /// Whether a torch version ("2.15.0", "2.15", "2.15.0+rocm7.14") is newer than every release
  /// these rules know (its local tag is ignored).
  bool torch_newer_than_rules(std::string_view version) const;
  /// The newest of AMD's wheel sets with a [device-<target>] extra and, when `python` ("3.12")
  /// is known and the set lists its CPython versions, wheels for it; null if none.
  const AmdWheelSet* amd_wheels_for(std::string_view target,
                                    const std::optional<std::string>& python = std::nullopt) const;
  /// AMD's wheel set whose torch is exactly `version` ("2.12.0+rocm7.14.0"); null if none.
  const AmdWheelSet* amd_wheels_with_torch(std::string_view version) const;
  /// The repo.radeon.com wheel set whose torch is exactly `version`; nullptr if none.
  const RadeonWheelSet* radeon_wheels_with_torch(std::string_view version) const;
  /// The newest of AMD's wheel sets of one ROCm release ("7.14"), with a [device-*] extra for
  /// `target` when one is named; nullptr if none.
  const AmdWheelSet* amd_wheels_of_release(std::string_view rocm,
                                           std::string_view target = {}) const;
  const EnvVariable* env_variable(std::string_view name) const;
  /// The `place` of a variable that names one (env_vars.yaml); nullptr when it has none.
  const PlaceRule* place(std::string_view variable) const;
  /// The WSL row for a ROCm version ("6.4.2"), or the newest row of that major.minor.
  const WslRelease* wsl_release(std::string_view rocm_version) const;
  /// The first rules/cuda_packages.yaml row naming a distribution (normalised); null if none.
  const CudaPackage* cuda_package(std::string_view distribution) const;
};

/// A rules file that cannot be used: where (file:line:column) and what.
class RulesError : public std::runtime_error {
 public:
  RulesError(std::string file, int line, int column, const std::string& what);
  const std::string& file() const { return m_file; }
  int line() const { return m_line; }
  int column() const { return m_column; }

 private:
  std::string m_file;
  int m_line;
  int m_column;
};

}  // namespace rocdoc
