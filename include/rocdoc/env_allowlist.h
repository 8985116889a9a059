// The privacy allow-list: the only environment variables rocdoc reads or reports.
#pragma once

#include <span>
#include <string>
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

/// Whether a variable with a known shape of value holds one: a version for
/// HSA_OVERRIDE_GFX_VERSION ("10.3.0"), one short word for levels, flags and modes
/// (AMD_LOG_LEVEL, HSA_XNACK, MIOPEN_FIND_MODE…); true for every other variable. --redact
/// replaces a value that does not fit ("10.3.0 hunter2").
bool has_expected_shape(std::string_view name, std::string_view value);

/// A word that looks like a credential: a known token prefix (ghp_, hf_, sk-, AKIA, glpat-…)
/// or a long run of mixed-case letters and digits.
bool looks_like_secret(std::string_view word);

/// An allow-listed variable's value with what may be a secret taken out, whatever the flags:
/// every word between separators (/ : ; , = @ and spaces) that looks_like_secret() becomes
/// REDACTED-SECRET, and so does a piece of a word after a '-' or '.' ("venv-hf_…"); a URL's
/// password (scheme://user:PASSWORD@host) becomes REDACTED-SECRET.
/// Every Host applies it to every value it returns, so no report or snapshot holds a token
/// that sat in PATH or LD_LIBRARY_PATH.
std::string without_secrets(std::string_view value);

}  // namespace rocdoc
