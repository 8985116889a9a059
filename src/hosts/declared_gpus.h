// The GPUs named with `check --gpu` (GPU-less mode): a gfx target, a PCI device id or a product
// name, each turned into the gfx target the rules know (docs/gpu-less.md).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/knowledge.h"
#include "rocdoc/report.h"

namespace rocdoc {

/// A --gpu value that names no GPU the rules know: the message says which and what is near.
class DeclaredGpuError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// More GPUs than any machine has: a bound on the list, like the other bounds of rocdoc.
inline constexpr std::size_t k_max_declared_gpus = 64;

/// Parses the --gpu values ("gfx942,gfx1100", repeated flags too). Each comma-separated item is
/// a gfx target ("gfx1100"), with target features if any ("gfx942:sramecc+:xnack-": checked,
/// then dropped: rocdoc judges the target), a PCI device id ("744c", "1002:744c") or a product
/// name ("MI300X", "RX 7900 XTX") that names one target. Throws DeclaredGpuError.
std::vector<DeclaredGpu> parse_declared_gpus(const Knowledge& knowledge,
                                             const std::vector<std::string>& values);

}  // namespace rocdoc
