// The GPU targets of a rocBLAS (or hipBLASLt) Tensile library directory, read from its file
// names: rocBLAS loads TensileLibrary_lazy_<gfx>.dat, TensileLibrary_<gfx>.dat and the code
// objects matching *<gfx>*co (ROCm/rocBLAS library/src/tensile_host.cpp); per-target
// subdirectories are named after the target ("gfx942/"). The names are the evidence: a torch
// wheel copies only the files of its own targets (pytorch .ci/manywheel/build_rocm.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

/// The target ids a file or directory name carries ("Kernels.so-000-gfx90a-xnack+.hsaco" ->
/// "gfx90a:xnack+"; "TensileLibrary_lazy_gfx1100.dat" -> "gfx1100"; "gfx942" -> "gfx942").
std::vector<std::string> targets_in_name(std::string_view name);

/// Every target of a Tensile directory listing, sorted, each once; names without a gfx
/// target (TensileLibrary.dat, fallback files) add none.
std::vector<std::string> tensile_targets(const std::vector<std::string>& names);

}  // namespace rocdoc
