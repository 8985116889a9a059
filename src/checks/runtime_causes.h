// The causes rocdoc gives for the runtimes' error names (runtime.hip-init, runtime.smi): one
// table in src/checks/runtime.cpp, each row with its source.
#pragma once

#include <span>
#include <string_view>

namespace rocdoc::checks {

struct RuntimeCause {
  std::string_view name;    ///< "hipErrorNoDevice", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
  std::string_view cause;   ///< what it means for the user
  std::string_view source;  ///< where the name and its meaning are documented
};

/// The row for an error name, or null.
const RuntimeCause* runtime_cause(std::string_view name);
std::span<const RuntimeCause> runtime_causes();

}  // namespace rocdoc::checks
