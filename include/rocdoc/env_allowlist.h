// The privacy allow-list: the only environment variables rocdoc reads or reports.
#pragma once

#include <span>
#include <string_view>

namespace rocdoc {

/// True when `name` may be read: listed exactly, or a per-node form such as
/// HSA_OVERRIDE_GFX_VERSION_1.
bool is_allowed_env(std::string_view name);

/// The exact names on the list (per-node forms excluded), sorted.
std::span<const std::string_view> allowed_env_names();

/// Prefixes whose `<prefix><decimal>` forms are allowed.
std::span<const std::string_view> allowed_env_indexed_prefixes();

/// Variables that only steer rocdoc's own output (never reported).
bool is_tool_env(std::string_view name);

}  // namespace rocdoc
