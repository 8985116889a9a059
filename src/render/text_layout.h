// Laying text out for a terminal: display width, word wrapping with hanging indentation, and
// the ASCII form of text for a terminal whose locale is not UTF-8. Plain text in, plain text
// out: colour is added by the caller, after the layout.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc::text {

/// Columns `text` takes on a terminal: one per UTF-8 code point (continuation bytes do not
/// count). Wide East Asian characters count as one, as rocdoc's own text has none.
std::size_t display_width(std::string_view text);

/// The fewest columns a line of wrapped text is given, whatever the width and indentation: at
/// a narrower room, words are kept together rather than broken one or two to a line.
constexpr std::size_t k_min_room = 20;

/// Breaks `text` at spaces into lines: the first at most `first_room` columns wide, the others
/// at most `rest_room` (each at least k_min_room). A room of 0 means no limit: `text` is one
/// line. A word longer than its room (a long path) is kept whole on a line of its own, never
/// cut. The spaces at a break are dropped; spaces inside a line, and before the first word,
/// are kept as they are.
std::vector<std::string> wrap(std::string_view text, std::size_t first_room, std::size_t rest_room);

/// `text` (UTF-8) in ASCII, for a terminal whose locale is not UTF-8: common punctuation
/// becomes its ASCII look-alike ("…" → "...", "→" → "->", "—" → "--", "·" → "-", curly
/// quotes → straight ones), any other non-ASCII code point is written as \uXXXX (\UXXXXXXXX
/// above U+FFFF), and a byte that is not UTF-8 as \xHH. No byte of the result is >= 0x80.
std::string to_ascii(std::string_view text);

/// Whether a locale name (the value of LC_ALL, LC_CTYPE or LANG) selects UTF-8: its charset,
/// between '.' and '@', is UTF-8 or utf8 in any case ("C.UTF-8", "en_US.utf8"). "C", "POSIX",
/// a name without a charset ("en_US": ISO-8859-1) and any other charset do not.
bool locale_is_utf8(std::string_view locale);

}  // namespace rocdoc::text
