// Visible-device masks composed as the ROCm runtimes compose them (docs/checks.md,
// env.visible-devices): libhsakmt's GPU nodes → ROCR_VISIBLE_DEVICES (ROCr) → the HSA agents →
// HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES (HIP) → HIP devices. GPU_DEVICE_ORDINAL is read
// by OpenCL only; HIP ignores it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc::checks {

/// What the runtime made of one token of a mask.
enum class TokenVerdict {
  selected,        ///< names a device, which becomes visible
  duplicate,       ///< names a device already selected
  out_of_range,    ///< an index with no device behind it (negative ones too)
  malformed,       ///< neither an index nor a UUID the runtime accepts
  unknown_uuid,    ///< a UUID (or prefix) that matches no device
  ambiguous_uuid,  ///< a UUID prefix that matches several devices (ROCr)
  empty,           ///< an empty token between commas: ROCr's initialisation fails
  not_read,        ///< after the token that stopped parsing, or past ROCr's token limit
};

struct MaskToken {
  std::string text;
  TokenVerdict verdict = TokenVerdict::not_read;
  std::optional<int> device;  ///< the position it selects in the input list
};

/// One mask applied to a list of devices.
struct MaskResult {
  std::vector<MaskToken> tokens;
  std::vector<int> selected;  ///< positions in the input list, in the order the mask lists them
  bool init_fails = false;    ///< the runtime fails to start (ROCr: an empty token)
};

/// ROCR_VISIBLE_DEVICES (ROCr's RvdFilter) over the KFD GPUs whose KFD unique_id are given
/// (nullopt or 0: no UUID). Set but empty selects nothing; tokens are upper-cased and trimmed;
/// indices are C integers of any base (strtol base 0); UUID tokens start with G, are 5-20
/// characters and match GPU-%016llX by case-insensitive prefix; the first bad token stops
/// parsing and only min(devices, tokens) tokens are read.
MaskResult apply_rocr_visible_devices(std::string_view value,
                                      const std::vector<std::optional<std::uint64_t>>& uuids);

/// HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (and GPU_DEVICE_ORDINAL for OpenCL) as HIP's
/// CLR applies them to the HSA agents: exact decimal indices or a token found inside an agent's
/// lower-case GPU-%016lx UUID; the first bad token stops parsing; duplicates are skipped.
MaskResult apply_hip_visible_devices(std::string_view value,
                                     const std::vector<std::optional<std::uint64_t>>& uuids);

/// ROCr's and HIP's spelling of a KFD unique_id.
std::string rocr_uuid(std::uint64_t unique_id);
std::string hip_uuid(std::uint64_t unique_id);

/// A KFD GPU node as the runtimes enumerate it, with the GPU it belongs to.
struct RuntimeDevice {
  const KfdNode* node = nullptr;
  const AmdGpu* gpu = nullptr;
};

/// One mask as it was set and what it did.
struct AppliedMask {
  std::string variable;
  std::string value;
  MaskResult result;
};

/// The whole composition for this machine.
struct DeviceView {
  std::vector<RuntimeDevice> kfd_gpus;     ///< what ROCR_VISIBLE_DEVICES indexes
  std::optional<AppliedMask> rocr;         ///< ROCR_VISIBLE_DEVICES
  std::vector<RuntimeDevice> agents;       ///< the HSA GPU agents: what HIP's masks index
  std::optional<AppliedMask> hip;          ///< HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES
  std::optional<std::string> shadowed;     ///< CUDA_VISIBLE_DEVICES when HIP's variable wins
  std::vector<RuntimeDevice> hip_devices;  ///< HIP device 0, 1, ...
  std::optional<AppliedMask> ordinal;      ///< GPU_DEVICE_ORDINAL (OpenCL)
  std::vector<RuntimeDevice> opencl_devices;

  /// HIP enumerates this GPU (some node of it survives every mask).
  bool hip_sees(const AmdGpu& gpu) const;
  /// The index a HIP_VISIBLE_DEVICES value must use for this GPU (its position among the
  /// agents); nullopt when ROCR_VISIBLE_DEVICES hides it or KFD does not list it.
  std::optional<int> agent_index(const AmdGpu& gpu) const;
};

/// Composes the masks of this machine's environment. CUDA_VISIBLE_DEVICES is left out on a
/// host with NVIDIA GPUs, where it numbers those.
DeviceView compose_visible_devices(const CheckContext& context);

}  // namespace rocdoc::checks
