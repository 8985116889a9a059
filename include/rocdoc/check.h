// Checks: small functions over facts and the knowledge base, each with a stable id. What a
// check returns (CheckResult, Fix) and its table entry (CheckInfo) are in check_result.h.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check_result.h"
#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/report.h"

namespace rocdoc {

/// How a KFD node was found to be a PCI function.
enum class KfdMatch {
  location,     ///< domain + location_id name the function
  render_node,  ///< /sys/class/drm/renderD<drm_render_minor>/device is the function
  device_id,    ///< the only unmatched node and function with that device id
  position,     ///< nothing else matched: unmatched nodes and functions paired in order
  kfd_only,     ///< no PCI function (the bus is not visible)
  none,         ///< KFD does not list this function
};

/// An AMD GPU as the checks see it: PCI function, KFD node and knowledge joined.
struct AmdGpu {
  const PciDevice* pci = nullptr;         ///< null when only KFD knows it
  const KfdNode* kfd = nullptr;           ///< null when KFD does not list it (the first partition)
  std::vector<const KfdNode*> kfd_nodes;  ///< every KFD node of it (MI300 partitions: several)
  KfdMatch matched_by = KfdMatch::none;
  const GfxTarget* target = nullptr;  ///< the knowledge base's entry for gfx_target()
  std::string name;                   ///< product name for messages
  std::string bdf;
  /// Declared with --gpu (GPU-less mode), not found: no PCI function, no KFD node.
  bool declared = false;

  /// The gfx target: KFD's (from gfx_target_version, or its device id on older kernels),
  /// else the PCI id table's; empty when neither knows it. KFD is believed even when the
  /// knowledge base does not know its target (target is null then).
  std::string gfx_target() const;
  bool integrated() const;  ///< an APU's iGPU
  bool instinct() const;
};

/// The AMD GPUs of the inspected machine, one entry per GPU (never twice).
struct GpuInventory {
  std::vector<AmdGpu> gpus;  ///< the GPUs this process is given
  /// GPUs of the host that this container (or device cgroup) was not given: their KFD node
  /// refused to be read (EPERM), or their render node is not in /dev/dri.
  std::vector<AmdGpu> withheld;
};

struct CheckContext {
  const Facts& facts;
  const Knowledge& knowledge;
  std::vector<AmdGpu> amd_gpus;       ///< built once by build_gpu_inventory()
  std::vector<AmdGpu> withheld_gpus;  ///< GpuInventory::withheld

  /// ROCm can reach the GPU: KFD lists it, or it is bound to amdgpu while KFD lists no GPU at
  /// all (the topology says nothing then). A GPU KFD left out beside others it lists is not.
  bool reachable(const AmdGpu& gpu) const;
};

GpuInventory build_gpu_inventory(const Facts& facts, const Knowledge& knowledge);
/// GPU-less mode: one GPU per declared target, known to the rules, with no PCI function or KFD
/// node; the checks treat it as a GPU that ROCm reaches.
GpuInventory declared_gpu_inventory(const std::vector<DeclaredGpu>& declared,
                                    const Knowledge& knowledge);

/// Every check, in report order.
std::span<const CheckInfo> check_table();
const CheckInfo* find_check(std::string_view id);

// Constructors for results, so checks read as sentences.
CheckResult pass(std::string message, std::vector<std::string> evidence = {});
CheckResult skip(std::string reason);
CheckResult finding(Severity severity, std::string message, std::vector<std::string> evidence = {},
                    std::vector<Fix> fix = {});

}  // namespace rocdoc
