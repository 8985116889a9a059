#include "src/render/text_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

namespace rocdoc::text {

namespace {

bool is_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

/// The code point at `text[at]` and its length in bytes; nullopt when the bytes there are not
/// a well-formed UTF-8 sequence.
std::optional<std::pair<std::uint32_t, std::size_t>> decode(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) {
    return std::pair<std::uint32_t, std::size_t>{lead, 1};
  }
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return std::nullopt;
  }
  if (at + length > text.size()) {
    return std::nullopt;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if (!is_continuation(text[at + i])) {
      return std::nullopt;
    }
    code = (code << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3Fu);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
    return std::nullopt;  // overlong, beyond Unicode, or a surrogate
  }
  return std::pair<std::uint32_t, std::size_t>{code, length};
}

std::string_view ascii_look_alike(std::uint32_t code) {
  switch (code) {
    case 0x00A0:  // no-break space
      return " ";
    case 0x00B7:  // middle dot
    case 0x2022:  // bullet
    case 0x2010:  // hyphen
    case 0x2011:  // non-breaking hyphen
    case 0x2013:  // en dash
    case 0x2212:  // minus sign
      return "-";
    case 0x2014:  // em dash
      return "--";
    case 0x2018:
    case 0x2019:
      return "'";
    case 0x201C:
    case 0x201D:
      return "\"";
    case 0x2026:
      return "...";
    case 0x2192:
      return "->";
    case 0x2190:
      return "<-";
    case 0x2194:
      return "<->";
    case 0x2264:
      return "<=";
    case 0x2265:
      return ">=";
    case 0x00D7:
      return "x";
    case 0x2713:  // check mark
      return "ok";
    case 0x2717:  // ballot x
      return "x";
    default:
      return {};
  }
}

}  // namespace

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char byte) { return !is_continuation(byte); }));
}

std::vector<std::string> wrap(std::string_view text, std::size_t first_room,
                              std::size_t rest_room) {
  if (first_room == 0 || rest_room == 0) {
    return {std::string(text)};
  }
  std::vector<std::string> lines;
  std::string_view rest = text;
  std::size_t room = std::max(first_room, k_min_room);
  while (true) {
    if (display_width(rest) <= room) {
      lines.emplace_back(rest);
      break;
    }
    // The last space (the first of a run) before which the line fits; never inside the
    // spaces that lead the text.
    std::size_t fits = std::string_view::npos;
    std::size_t first_break = std::string_view::npos;
    bool seen_word = false;
    std::size_t columns = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == ' ' && seen_word && rest[i - 1] != ' ') {
        if (first_break == std::string_view::npos) {
          first_break = i;
        }
        if (columns > room) {
          break;
        }
        fits = i;
      }
      if (rest[i] != ' ') {
        seen_word = true;
      }
      if (!is_continuation(rest[i])) {
        ++columns;
      }
    }
    // A first word longer than the room stays whole on its own line.
    const std::size_t cut = fits != std::string_view::npos ? fits : first_break;
    if (cut == std::string_view::npos) {
      lines.emplace_back(rest);
      break;
    }
    lines.emplace_back(rest.substr(0, cut));
    rest.remove_prefix(cut);
    while (!rest.empty() && rest.front() == ' ') {
      rest.remove_prefix(1);
    }
    if (rest.empty()) {
      break;
    }
    room = std::max(rest_room, k_min_room);
  }
  return lines;
}

std::string to_ascii(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const auto decoded = decode(text, at);
    if (!decoded) {
      result += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at]));
      ++at;
      continue;
    }
    const auto [code, length] = *decoded;
    at += length;
    if (code < 0x80) {
      result += static_cast<char>(code);
    } else if (const auto look_alike = ascii_look_alike(code); !look_alike.empty()) {
      result += look_alike;
    } else if (code <= 0xFFFF) {
      result += fmt::format("\\u{:04x}", code);
    } else {
      result += fmt::format("\\U{:08x}", code);
    }
  }
  return result;
}

bool locale_is_utf8(std::string_view locale) {
  const std::size_t dot = locale.find('.');
  if (dot == std::string_view::npos) {
    return false;
  }
  std::string_view charset = locale.substr(dot + 1);
  charset = charset.substr(0, charset.find('@'));
  std::string name;
  for (const char c : charset) {
    if (c != '-' && c != '_') {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return name == "utf8";
}

}  // namespace rocdoc::text
