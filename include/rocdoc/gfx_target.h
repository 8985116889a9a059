// GPU target names (gfx90a) and KFD's gfx_target_version numbers (90010).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc {

/// 90010 → "gfx90a": major decimal, minor and stepping as one hex digit each.
/// nullopt when minor or stepping do not fit one hex digit.
std::optional<std::string> gfx_name_from_kfd(std::uint32_t gfx_target_version);

/// "gfx90a" → 90010; also accepts feature suffixes ("gfx90a:xnack-"). nullopt when malformed.
std::optional<std::uint32_t> kfd_from_gfx_name(std::string_view name);

/// "gfx90a:sramecc+:xnack-" → "gfx90a": a target id without its features (as HIP's
/// gcnArchName and torch's arch names carry them).
std::string_view target_processor(std::string_view target_id);

/// Whether the process runs with XNACK (GPU page-fault retry) on: HSA_XNACK=1.
enum class Xnack { off, on };

/// Whether a code object compiled for `code` (a target id: "gfx90a:xnack-", "gfx10-3-generic",
/// "amdgcnspirv") runs on a GPU whose processor is `processor` ("gfx1031") and whose generic
/// family is `generic` ("gfx10-3-generic", or "" when none): the processors (or the generic
/// family) are equal, and a feature the code names must match the device's setting (LLVM's
/// compatibility rule, clang/docs/ClangOffloadBundler.rst). sramecc is the GPU's own setting,
/// which rocdoc does not read: code for either sramecc setting counts as runnable. SPIR-V code is
/// compiled for the GPU when it is loaded and runs anywhere.
bool code_runs_on(std::string_view code, std::string_view processor, std::string_view generic,
                  Xnack xnack);

}  // namespace rocdoc
