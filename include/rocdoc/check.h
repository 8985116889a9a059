// Checks: small functions over facts and the knowledge base, each with a stable id.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"

namespace rocdoc {

enum class Severity { info, warning, error };
enum class Status { pass, warn, fail, skip };

/// A command to run by hand; rocdoc never runs it.
struct Fix {
  std::string description;
  std::string
      command;  ///< exact and copy-pasteable; empty when the fix is an action, not a command
  bool needs_root = false;
};

struct CheckResult {
  Status status = Status::pass;
  Severity severity = Severity::info;  ///< of this finding; meaningful for warn and fail
  std::string message;
  std::vector<std::string> evidence;
  std::vector<Fix> fix;
};

/// An AMD GPU as the checks see it: PCI function, KFD node and knowledge joined by BDF.
struct AmdGpu {
  const PciDevice* pci = nullptr;     ///< null when only KFD knows it
  const KfdNode* kfd = nullptr;       ///< null when KFD does not list it
  const GfxTarget* target = nullptr;  ///< from KFD's gfx_target_version, else the PCI id table
  std::string name;                   ///< product name for messages
  std::string bdf;

  bool integrated() const;  ///< an APU's iGPU
  bool instinct() const;
};

struct CheckContext {
  const Facts& facts;
  const Knowledge& knowledge;
  std::vector<AmdGpu> amd_gpus;  ///< built once by build_gpu_inventory()
};

std::vector<AmdGpu> build_gpu_inventory(const Facts& facts, const Knowledge& knowledge);

/// Where a check applies: bare-metal checks are skipped on WSL, where the GPU is reached
/// through /dev/dxg instead of amdgpu, /dev/kfd and the PCI bus.
enum class Scope { anywhere, bare_metal };

struct CheckInfo {
  std::string_view id;
  std::string_view area;
  std::string_view title;
  Severity severity;  ///< default severity from CHECKS.md
  Scope scope;
  std::vector<std::string_view> needs;  ///< probe names whose facts the check reads
  CheckResult (*run)(const CheckContext&);
};

/// Every check, in report order.
std::span<const CheckInfo> check_table();
const CheckInfo* find_check(std::string_view id);

// Constructors for results, so checks read as sentences.
CheckResult pass(std::string message, std::vector<std::string> evidence = {});
CheckResult skip(std::string reason);
CheckResult finding(Severity severity, std::string message, std::vector<std::string> evidence = {},
                    std::vector<Fix> fix = {});

std::string_view to_string(Severity severity);
std::string_view to_string(Status status);

}  // namespace rocdoc
