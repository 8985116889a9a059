// The causes rocdoc gives for the runtimes' error names (runtime.hip-init, runtime.smi,
// runtime.compute): one table in src/checks/runtime.cpp, each row with its source; and how the
// deep checks write a call and the HIP runtime that answered.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "rocdoc/runtime.h"

namespace rocdoc::checks {

struct RuntimeCause {
  std::string_view name;    ///< "hipErrorNoDevice", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
  std::string_view cause;   ///< what it means for the user
  std::string_view source;  ///< where the name and its meaning are documented
};

/// The row for an error name, or null.
const RuntimeCause* runtime_cause(std::string_view name);
std::span<const RuntimeCause> runtime_causes();

/// "0000:03:00.0" of rocm_smi's BDFID (domain << 32 | bus << 8 | device << 3 | function).
std::string bdf_of(std::uint64_t pci_id);
/// "PCIe", "XGMI" or "undefined": an RSMI_IO_LINK_TYPE.
std::string_view smi_link_name(std::uint32_t type);

/// "hipMalloc returned hipErrorOutOfMemory (2): out of memory"
std::string describe_call(const RuntimeCall& call);
/// "HIP 6.2.41134 loaded from /opt/rocm/lib/libamdhip64.so.6"
std::string hip_identity(const HipRuntimeFacts& hip);

}  // namespace rocdoc::checks
