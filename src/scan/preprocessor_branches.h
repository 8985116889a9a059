// Which lines of a C/C++ file only a CUDA build compiles, and which only a ROCm/HIP build
// does, from its #if/#ifdef/#ifndef/#elif/#else/#endif lines and the platform macros of
// rules/code_patterns.yaml: code under `#ifndef USE_ROCM`, `#ifdef __CUDA_ARCH__` or the #else
// of `#ifdef __HIP_PLATFORM_AMD__` is no CUDA-only assumption, whatever it holds. The text is
// expected without comments (src/scan/comments.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

struct CodePlatformMacros;

/// What the enclosing branches of a line say.
struct BranchState {
  bool cuda_only = false;  ///< some enclosing branch is compiled by CUDA builds only
  bool rocm_only = false;  ///< some enclosing branch is compiled by ROCm/HIP builds only
  std::string conditions;  ///< the enclosing branches' conditions, outermost first, "; "-joined
};

/// A condition's platform: which builds compile the branch it opens.
enum class BuildPlatform { rocm, cuda, either };

/// The platform of an #if/#elif condition ("defined(USE_ROCM) && X"), or of #ifdef's and
/// #ifndef's macro given as `directive` "ifdef" / "ifndef".
BuildPlatform condition_platform(std::string_view directive, std::string_view condition,
                                 const CodePlatformMacros& macros);

/// The state of each of `lines` (1-based, ascending), in one pass over the code. A directive
/// line has the state of the branches around it (an #elif's condition is judged where it
/// stands, outside the branch it opens). Bounded for hostile files: branches nested deeper
/// than 64 are counted, not judged, and `conditions` holds at most 1 KiB.
std::vector<BranchState> branch_states(std::string_view code, const CodePlatformMacros& macros,
                                       const std::vector<std::size_t>& lines);

}  // namespace rocdoc
