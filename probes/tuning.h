// Probe "tuning": the directories MIOpen and PyTorch TunableOp write their tuning results to,
// for the user the report judges, and what stands in the way of writing there.
#pragma once

#include <string>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/probes.h"

namespace rocdoc {

TuningFacts probe_tuning(const ProbeContext& context);

/// The directory a setting.kind, as the program that reads it resolves it: a leading "~/"
/// (MIOpen expands it; PyTorch does not: expand_home is false) becomes `home`; a relative
/// path depends on the working directory of the run and gives "". For a file setting the
/// directory that holds the file.
enum class PathKind { directory, file };
enum class HomeExpansion { expanded, literal };
std::string tuning_directory(std::string_view value, PathKind kind, HomeExpansion expansion,
                             const std::string& home);

}  // namespace rocdoc
