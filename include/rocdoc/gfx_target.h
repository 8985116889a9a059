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

}  // namespace rocdoc
