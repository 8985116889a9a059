// String helpers with no rocdoc knowledge.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
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

/// A whole number that fits T, or nullopt: a value out of T's range is unreadable, never
/// wrapped ("65538" is not a uint16_t 2; "-1" is not an unsigned).
template <std::integral T>
std::optional<T> parse_number(std::string_view text, int base = 10) {
  if constexpr (std::is_unsigned_v<T>) {
    const auto value = parse_unsigned(text, base);
    if (!value || *value > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
    return static_cast<T>(*value);
  } else {
    const auto value = base == 10 ? parse_signed(text) : std::nullopt;
    if (!value || *value < std::numeric_limits<T>::min() ||
        *value > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
    return static_cast<T>(*value);
  }
}

std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);
/// A sentence made to continue another: its first letter lowered when its first word is an
/// ordinary one ("Install torch" → "install torch"; "AMD builds", "ROCm" and "PyTorch" stay).
std::string lower_first(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);

/// "2026-12-02T02:12:06Z" for seconds since 1970-01-01 UTC, without the time-zone machinery of
/// libc. The date is Howard Hinnant's civil_from_days
/// (howardhinnant.github.io/date_algorithms.html), what std::chrono's calendar computes; gcc
/// 10, which builds the release binary, has no calendar.
std::string iso8601_utc(std::int64_t unix_seconds);

/// "/a/b/" → "/a"; "/a" → "/"; an absolute path's parent directory.
std::string parent_path(std::string_view path);

/// "2.10.0" → {2, 10, 0}; a part such as "0a0" counts by its leading number; a .devN, .postN
/// or .rcN part ends them ("2.15.0.dev20260926" → {2, 15, 0}); nullopt when another part has
/// none. Anything after '+' (a local version) is ignored.
std::optional<std::vector<int>> version_numbers(std::string_view version);

/// Whether `version` is `release` or one of its points: ("6.4.1", "6.4") and ("6.4", "6.4") are,
/// ("6.40", "6.4") is not.
bool version_within(std::string_view version, std::string_view release);

/// `text` made safe for a terminal: control characters (C0, DEL, C1), and bytes that are not
/// UTF-8, are written as escapes (\n, \t, \r, \\, \x1b, \u009b, \xff); everything else,
/// valid multi-byte UTF-8 included, is kept. A backslash is doubled only when `text` needed
/// another escape, so plain paths and versions come out unchanged.
std::string printable(std::string_view text);

/// A path as a URI path (RFC 3986): letters, digits, "-._~" and "/" kept, every other byte
/// %XX ("a b/ü" → "a%20b/%C3%BC").
std::string uri_path(std::string_view path);

/// printable(text), cut to at most `max_bytes` bytes of input (never inside a UTF-8 sequence)
/// with "…" and the total size after it: for quoting hostile input in an error message.
std::string excerpt(std::string_view text, std::size_t max_bytes = 60);

/// Damerau-free Levenshtein distance, for did-you-mean.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Whether `name` matches `pattern`, in which `*` stands for any run of characters (none
/// included) and every other character for itself: "libbitsandbytes_cuda*.so".
bool wildcard_match(std::string_view pattern, std::string_view name);

}  // namespace rocdoc::util
