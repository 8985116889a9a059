// `rocdoc targets FILE...`: the GPU targets compiled into HIP binaries (shared objects, fat
// objects, bare offload bundles, code objects) and rocBLAS Tensile directories.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

struct TargetsOptions {
  std::vector<std::string> files;
  bool json = false;
  std::string has;  ///< --has gfxNNNN: does each FILE have code that runs on this target?
};

inline constexpr std::string_view k_targets_exit_codes =
    "Exit codes:\n"
    "  0  every FILE was read and holds GPU code (with --has: code that runs on that target)\n"
    "  1  a FILE holds no GPU code (with --has: none for that target), or its offload bundles\n"
    "     are damaged or of an unknown kind\n"
    "  2  a FILE cannot be opened, bad arguments, or the output could not be written\n";

/// Scans each file and writes what it holds; returns the exit code.
int run_targets(const TargetsOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rocdoc
