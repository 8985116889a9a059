// String helpers with no rocdoc knowledge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc::util {

std::string_view trim(std::string_view text);
std::vector<std::string_view> split(std::string_view text, char separator);
/// Splits on runs of spaces and tabs.
std::vector<std::string_view> split_whitespace(std::string_view text);
std::vector<std::string_view> lines(std::string_view text);

/// Parses a whole unsigned number: decimal, or hex with a 0x prefix when base is 0.
std::optional<std::uint64_t> parse_unsigned(std::string_view text, int base = 10);
std::optional<std::int64_t> parse_signed(std::string_view text);

std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);

/// "/a/b/" → "/a"; "/a" → "/"; an absolute path's parent directory.
std::string parent_path(std::string_view path);

/// "2.10.0" → {2, 10, 0}; a part such as "0a0" counts by its leading number; a .devN, .postN
/// or .rcN part ends them ("2.15.0.dev20260926" → {2, 15, 0}); nullopt when another part has
/// none. Anything after '+' (a local version) is ignored.
std::optional<std::vector<int>> version_numbers(std::string_view version);

/// Damerau-free Levenshtein distance, for did-you-mean.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace rocdoc::util
