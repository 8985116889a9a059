// Resolving a path of an inspected machine inside a snapshot root, never outside it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc {

enum class FinalLink { follow, keep };

/// Looks up a symbolic link's target for an absolute in-root path; nullopt when the path
/// is not a link.
using LinkLookup = std::function<std::optional<std::string>(const std::string& inside_path)>;

/// Resolves `path` component by component, as if the root were "/": ".." stops at the root
/// and absolute link targets restart at the root (like openat2's RESOLVE_IN_ROOT).
/// Returns the normalised absolute in-root path, or nullopt on a link loop (more than 40 links)
/// or when the walk takes more than 256 components (hostile link targets).
std::optional<std::string> resolve_in_root(std::string_view path, const LinkLookup& lookup,
                                           FinalLink final_link);

/// "/a/./b//c/../d" → "/a/b/d", clamped at "/" (no links consulted).
std::string normalize_absolute(std::string_view path);

}  // namespace rocdoc
