// Shared reasoning of the software checks: torch wheels, their targets, overrides, remedies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

/// "2.6.0+rocm6.2.4" → "rocm6.2.4"; "" without a local version.
std::string local_tag(const std::string& version);
/// "2.6.0+rocm6.2.4" → "2.6.0".
std::string base_version(const std::string& version);
/// "6.2.41134-65d174c3e" → "6.2"; nullopt when it does not start with major.minor.
std::optional<std::string> major_minor(const std::string& version);

/// A ROCm torch that is not a pytorch.org wheel (AMD's repo.radeon.com builds, local builds):
/// the knowledge base's wheel matrix does not describe it.
bool is_other_rocm_build(const TorchInstall& torch);
/// The pytorch.org index a ROCm wheel came from ("rocm6.2.4"); nullopt for other builds.
std::optional<std::string> wheel_index(const TorchInstall& torch);
/// The ROCm major.minor a ROCm wheel was built with: its version.py's rocm, its +rocm tag, else
/// its torch.version.hip read through the rules' HIP table (HIP 7.15 is ROCm 10.0).
std::optional<std::string> wheel_rocm(const TorchInstall& torch, const Knowledge& knowledge);
/// The ROCm release a ROCm torch was built with, patch level included where its tag or its
/// version.py says it ("rocm6.2.4" → "6.2.4"; pytorch.org's "rocm6.0" is ROCm 6.0.0).
std::optional<std::string> wheel_rocm_release(const TorchInstall& torch,
                                              const Knowledge& knowledge);
/// "6.0.1-98" (.info/version) → "6.0.1"; nullopt without major.minor.
std::optional<std::string> rocm_release_of(const std::string& version);
/// Two releases are the same build: equal major.minor.patch (a missing patch is 0).
bool same_rocm(const std::string& a, const std::string& b);

/// The first environment (in search order) whose torch is a ROCm build; null when none.
const PythonEnvironment* first_rocm_torch(const Facts& facts);

/// What one judge (a torch wheel, or the installed ROCm) supports.
/// What a judge measures, for the fix its missing target gets.
enum class JudgeOf {
  torch_or_rocm,  ///< a torch, the installed ROCm release or the newest torch: remedy_for()
  rocm_sdk,       ///< an environment's pip ROCm (its family, its rocm-sdk-device-* packages)
  torch_devices,  ///< AMD torch's amd-torch-device-* packages
};

struct Judge {
  std::string what;                  ///< "torch 2.6.0+rocm6.2.4 in /home/alice/venv/..."
  std::vector<std::string> targets;  ///< targets it has code for
  /// Targets torch has kernels for but its bundled ROCm's libraries do not, and which ROCm.
  std::vector<std::string> library_gaps;
  std::string bundled_rocm;
  const PythonEnvironment* environment = nullptr;
  JudgeOf of = JudgeOf::torch_or_rocm;
  /// AMD's official support list for the ROCm release behind it; nullopt when unknown.
  std::optional<std::vector<std::string>> official;
  std::string official_what;  ///< "AMD's ROCm 6.2 support list"
};

/// AMD's official support list of a ROCm release (supported or deprecated); nullopt when the
/// knowledge base does not know the release.
std::optional<std::vector<std::string>> official_targets(const Knowledge& knowledge,
                                                         const std::string& rocm);

/// The judges a GPU is measured against: every ROCm torch found and every pip ROCm SDK (its
/// libraries family and device packages); else the installed ROCm release; else the newest torch
/// release of the knowledge base.
std::vector<Judge> support_judges(const CheckContext& context);
/// The judge of an environment's pip ROCm SDK: the targets its libraries family and its
/// rocm-sdk-device-* packages have code for; nullopt when the family is unknown to the rules.
std::optional<Judge> rocm_sdk_judge(const Knowledge& knowledge,
                                    const PythonEnvironment& environment);
/// What gives an environment's pip ROCm SDK code for a target: the target's device package
/// from AMD's index of a multi-arch SDK's release, or, for a per-family SDK, AMD's multi-arch
/// build in its place; nullopt when the rules know no AMD index with the target.
std::optional<Fix> rocm_sdk_fix(const Knowledge& knowledge, const PythonEnvironment& environment,
                                const std::string& target);
/// AMD's torch[device-<target>] line for the AMD torch build of an environment, from its set's
/// index; nullopt when the rules know no set with that torch and target.
std::optional<Fix> torch_device_fix(const Knowledge& knowledge,
                                    const PythonEnvironment& environment,
                                    const std::string& target);

/// HSA_OVERRIDE_GFX_VERSION that applies to this GPU (the per-node form wins) and its name.
struct OverrideSetting {
  std::string variable;  ///< "HSA_OVERRIDE_GFX_VERSION" or "..._1"
  std::string value;
};
std::optional<OverrideSetting> override_for(const CheckContext& context, const AmdGpu& gpu);
/// "10.3.0" → "gfx1030"; nullopt when not three decimal integers in range.
std::optional<std::string> override_target(const std::string& value);

/// The ROCm whose libhsakmt reads the variables: a ROCm torch's own, else the system's.
std::optional<std::string> loaded_rocm(const CheckContext& context);
/// Why a per-node override variable is not read by the ROCm in use; nullopt when it is read.
std::optional<std::string> per_node_unread(const CheckContext& context,
                                           const OverrideSetting& setting);

/// Why an override is wrong for a GPU.
struct OverrideProblem {
  enum class Kind {
    unread,          ///< a per-node variable the ROCm in use does not read: own target kept
    malformed,       ///< not major.minor.stepping: ROCm finds no GPU
    unknown_target,  ///< stands for no known gfx target
    cross_family,    ///< another GPU family, whose code does not run on this GPU
    dangerous,       ///< known to hang or corrupt on this target
    known_broken,    ///< known not to work on this target
    no_code,         ///< the target it names has no code in the judge either
  };
  Kind kind;
  std::string text;
  std::string detail;  ///< what the rules say of it, a sentence of its own; may be empty

  /// The value itself is the fault (arch.override-wrong alone reports it); for the others the
  /// GPU still runs some target, which arch.unsupported judges.
  bool left_to_override_check() const;
};
/// The target a GPU's code must be built for: the override's when one applies to it and is
/// not wrong, else the GPU's own (a wrong override's fix removes it: every other check then
/// judges the real target, so no two fixes contradict each other). "" when neither is known.
std::string target_to_build_for(const CheckContext& context, const AmdGpu& gpu);
/// Why an override is wrong for this GPU; nullopt when it is not wrong.
std::optional<OverrideProblem> override_problem(const CheckContext& context, const AmdGpu& gpu,
                                                const OverrideSetting& setting);

/// The torch release to install for a target, nearest to `current` (a version) when given, with
/// wheels for the environment's Python when it is known.
const TorchRelease* release_for_target(const Knowledge& knowledge, const std::string& target,
                                       const std::optional<std::string>& current,
                                       const std::optional<std::string>& python = std::nullopt);
/// The ROCm release (major.minor) the loaded amdgpu DKMS driver ships with; nullopt for the
/// kernel's own amdgpu, no amdgpu, or a DKMS version the rules do not know.
std::optional<std::string> driver_rocm(const CheckContext& context);
/// Whether AMD supports a kernel driver of ROCm `driver` under ROCm `user_space` (both
/// major.minor): two releases apart before 6.4, three from 6.4 on; nullopt when either is
/// unknown to the rules.
std::optional<bool> driver_supports(const Knowledge& knowledge, const std::string& driver,
                                    const std::string& user_space);
/// The ROCm user space the wheels of a pytorch.org index bring: "rocm6.2.4" → "6.2".
std::optional<std::string> index_rocm(const std::string& index);
/// The loaded DKMS driver supports the ROCm of an index's wheels (true when either is unknown).
bool driver_supports_index(const CheckContext& context, const std::string& index);
/// The index of a release to propose for a target (any index when `target` is empty): the
/// newest whose wheels have its code and whose ROCm the loaded driver supports, else the newest
/// with its code; nullopt when none has it.
std::optional<std::string> index_to_propose(
    const CheckContext& context, const TorchRelease& release, const std::string& target,
    const std::optional<std::string>& python = std::nullopt);
/// The release to propose (release_for_target; the newest release when `target` is empty),
/// preferring one with an index the loaded DKMS driver supports (issue 9: fixes agree).
const TorchRelease* release_to_propose(const CheckContext& context, const std::string& target,
                                       const std::optional<std::string>& current,
                                       const std::optional<std::string>& python = std::nullopt);
/// A fix installing a release from an index (its newest when empty). When the loaded driver
/// does not support that index's ROCm, the description says the driver must move first; when
/// an older index was chosen for the driver, it says why.
Fix pip_install_fix(const CheckContext& context, std::string description,
                    const TorchRelease& release, const std::string& python,
                    const std::string& index);
/// `<python> -m pip install torch==X torchvision==Y torchaudio==Z --index-url …/<index>`; the
/// release's newest index when `index` is empty.
std::string pip_install_line(const TorchRelease& release, const std::string& python,
                             const std::string& index = "");
/// The targets an index's wheels have code for: torch's kernels (PYTORCH_ROCM_ARCH) and, when
/// the wheels bundle a ROCm whose libraries the rules know, that ROCm's rocBLAS kernels too
/// (torch 2.8+rocm6.4 lists gfx906, but its bundled rocBLAS has no gfx906 kernels).
std::vector<std::string> wheel_targets(const Knowledge& knowledge, const TorchRelease& release,
                                       const std::string& index);
/// The newest of a release's indexes whose wheels have code for the target; nullopt if none.
std::optional<std::string> index_for_target(
    const Knowledge& knowledge, const TorchRelease& release, const std::string& target,
    const std::optional<std::string>& python = std::nullopt);

/// `<python> -m pip install --index-url URL "torchvision[device-gfxN]==V" "torchaudio==V"`: the
/// companions of the set's torch, from its index.
std::string amd_companions_install_line(const AmdWheelSet& set, const std::string& target,
                                        const std::string& python);
/// `<python> -m pip install --index-url URL "torch[device-gfxN]==V" "torchvision[…]==V"
/// "torchaudio==V"`.
std::string amd_wheel_install_line(const AmdWheelSet& set, const std::string& target,
                                   const std::string& python);
/// When nothing else works for a target: a source build of PyTorch, as PyTorch's README gives
/// it, with PYTORCH_ROCM_ARCH set for the build command (never a lone export), and which ROCm
/// it needs (the newest release the rules list the target in).
Fix source_build_fix(const GfxTarget& target, const std::string& python);
/// The interpreter of an environment, for pip commands ("'/home/alice/venv/bin/python3'").
std::string python_of(const PythonEnvironment* environment);

/// The remedy for a GPU that a wheel or ROCm does not support (never a dangerous override).
std::vector<Fix> remedy_for(const CheckContext& context, const AmdGpu& gpu,
                            const PythonEnvironment* environment);

/// The index HIP_VISIBLE_DEVICES uses for a GPU: its place among the GPUs that
/// ROCR_VISIBLE_DEVICES leaves (KFD order when it is unset); nullopt when hidden or not in KFD.
std::optional<int> hip_index(const CheckContext& context, const AmdGpu& gpu);

enum class WhichGpus { all, discrete };
/// HIP indices for HIP_VISIBLE_DEVICES, "0,1"; empty when KFD lists none of them.
std::string hip_index_list(const CheckContext& context, WhichGpus which);

}  // namespace rocdoc::checks
