#include "src/util/strings.h"

#include <cstdio>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rocdoc::util {

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') {
      ++i;
    }
    if (i > start) {
      parts.push_back(text.substr(start, i - start));
    }
  }
  return parts;
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> result = split(text, '\n');
  if (!result.empty() && result.back().empty()) {
    result.pop_back();
  }
  for (auto& line : result) {
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
  }
  return result;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, int base) {
  text = trim(text);
  if (base == 0) {
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      text.remove_prefix(2);
      base = 16;
    } else {
      base = 10;
    }
  } else if (base == 16 && text.size() > 2 && text[0] == '0' &&
             (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  if (text.empty()) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_signed(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string to_lower(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string to_upper(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return result;
}

std::string lower_first(std::string_view text) {
  std::string result(text);
  const std::size_t word_end = std::min(result.find(' '), result.size());
  const bool ordinary =
      word_end > 1 && std::isupper(static_cast<unsigned char>(result[0])) != 0 &&
      std::all_of(result.begin() + 1, result.begin() + static_cast<std::ptrdiff_t>(word_end),
                  [](unsigned char c) { return std::isupper(c) == 0; });
  if (ordinary) {
    result[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(result[0])));
  }
  return result;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string result;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      result += separator;
    }
    result += parts[i];
  }
  return result;
}

std::string parent_path(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? "/" : std::string(path.substr(0, slash));
}

std::optional<std::vector<int>> version_numbers(std::string_view version) {
  std::vector<int> numbers;
  for (const auto part : split(version.substr(0, version.find('+')), '.')) {
    const auto value = parse_unsigned(part.substr(0, part.find_first_not_of("0123456789")));
    if (!numbers.empty() &&
        (part.rfind("dev", 0) == 0 || part.rfind("post", 0) == 0 || part.rfind("rc", 0) == 0)) {
      break;  // "2.15.0.dev20260926": PEP 440's .devN/.postN/.rcN end the release numbers
    }
    if (!value || *value > 0x7fffffff) {
      return std::nullopt;
    }
    numbers.push_back(static_cast<int>(*value));
  }
  return numbers;
}

namespace {

/// Length of the valid UTF-8 sequence at the start of `text` and its code point; 0 if none.
std::size_t utf8_sequence(std::string_view text, char32_t& code_point) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() < length) {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0u) != 0x80u) {
      return 0;
    }
    code_point = (code_point << 6) | (byte(i) & 0x3fu);
  }
  const bool overlong =
      (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
  const bool surrogate = code_point >= 0xd800 && code_point <= 0xdfff;
  if (overlong || surrogate || code_point > 0x10ffff) {
    return 0;
  }
  return length;
}

/// C1 controls, and the bidirectional overrides and isolates that reorder what a terminal shows.
bool is_unsafe_code_point(char32_t c) {
  return (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

bool is_plain(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      ++i;
      continue;
    }
    char32_t code_point = 0;
    const std::size_t length = c >= 0x80 ? utf8_sequence(text.substr(i), code_point) : 0;
    if (length == 0 || is_unsafe_code_point(code_point)) {
      return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

std::string printable(std::string_view text) {
  if (is_plain(text)) {
    return std::string(text);
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string result;
  result.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      result += c == '\\' ? "\\\\" : std::string(1, static_cast<char>(c));
      ++i;
      continue;
    }
    if (c == '\n' || c == '\t' || c == '\r') {
      result += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
      ++i;
      continue;
    }
    char32_t code_point = 0;
    const std::size_t length = c >= 0x80 ? utf8_sequence(text.substr(i), code_point) : 0;
    if (length == 0) {
      result += "\\x";
      result += k_hex[c >> 4];
      result += k_hex[c & 0xf];
      ++i;
    } else if (is_unsafe_code_point(code_point)) {
      result += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) {
        result += k_hex[(code_point >> shift) & 0xf];
      }
      i += length;
    } else {
      result.append(text.substr(i, length));
      i += length;
    }
  }
  return result;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) {
    return printable(text);
  }
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0u) == 0x80u) {
    --cut;  // do not split a UTF-8 sequence
  }
  return printable(text.substr(0, cut)) + "… (" + std::to_string(text.size()) + " bytes)";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string iso8601_utc(std::int64_t unix_seconds) {
  const std::int64_t days =
      unix_seconds >= 0 ? unix_seconds / 86400 : (unix_seconds - 86399) / 86400;
  const std::int64_t second_of_day = unix_seconds - days * 86400;
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t day_of_era = z - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t shifted_month = (5 * day_of_year + 2) / 153;
  const std::int64_t day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
  const std::int64_t month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
  const std::int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  char text[160];  // six 64-bit numbers at most: never truncated
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(year), static_cast<long long>(month),
                static_cast<long long>(day), static_cast<long long>(second_of_day / 3600),
                static_cast<long long>(second_of_day / 60 % 60),
                static_cast<long long>(second_of_day % 60));
  return text;
}

bool wildcard_match(std::string_view pattern, std::string_view name) {
  // Greedy with one backtrack point (the last `*`): linear in practice, never exponential.
  std::size_t p = 0;
  std::size_t n = 0;
  std::optional<std::size_t> star;
  std::size_t star_name = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_name = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star) {
      p = *star + 1;
      n = ++star_name;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

bool version_within(std::string_view version, std::string_view release) {
  return version.starts_with(release) &&
         (version.size() == release.size() || version[release.size()] == '.');
}

std::string uri_path(std::string_view path) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                            (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                            c == '~' || c == '/';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    }
  }
  return out;
}

}  // namespace rocdoc::util
