// The page a human text is written on: colour, the status glyphs (Unicode or ASCII) and
// paragraphs wrapped at the terminal's width with hanging indentation. Shared by the report of
// `check` and the answers of `triage`, so that both speak one dialect. Layout is
// src/render/text_layout.h; colour is added here, after the layout.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "rocdoc/render.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"

namespace rocdoc {

/// SGR colour codes.
constexpr std::string_view k_red = "31";
constexpr std::string_view k_yellow = "33";
constexpr std::string_view k_green = "32";
constexpr std::string_view k_cyan = "36";
constexpr std::string_view k_dim = "2";
constexpr std::string_view k_bold = "1";

/// What a line's glyph says: ✓ ✗ ! • - ☠ ([ok] [FAIL] [warn] [info] - [FAIL] in ASCII).
enum class Mark { pass, fail, warn, notice, skip, dead };

/// The output page: colour, glyphs, and wrapped paragraphs.
class Page {
 public:
  Page(std::ostream& out, const HumanOptions& options) : m_out(out), m_options(options) {}

  bool verbose() const { return m_options.verbosity == Verbosity::verbose; }
  bool ascii() const { return m_options.glyphs == Glyphs::ascii; }

  /// Text from the machine or the rules, made safe (and ASCII when the locale asks).
  std::string clean(std::string_view raw) const { return own(util::printable(raw)); }
  /// rocdoc's own words, ASCII when the locale asks.
  std::string own(std::string_view text) const {
    return ascii() ? text::to_ascii(text) : std::string(text);
  }
  std::string_view separator() const { return ascii() ? " - " : " · "; }

  std::string paint(std::string_view text, std::string_view code) const {
    if (m_options.color == Color::off || code.empty() || text.empty()) {
      return std::string(text);
    }
    return fmt::format("\033[{}m{}\033[0m", code, text);
  }

  /// The glyph, painted; in ASCII padded to one width so that the text after it lines up.
  std::string glyph(Mark mark) const {
    static constexpr std::string_view unicode[] = {"✓", "✗", "!", "•", "-", "☠"};
    static constexpr std::string_view plain[] = {"[ok]",   "[FAIL]", "[warn]",
                                                 "[info]", "-",      "[FAIL]"};
    static constexpr std::string_view colour[] = {k_green, k_red, k_yellow, k_cyan, k_dim, k_red};
    const auto index = static_cast<std::size_t>(mark);
    if (!ascii()) {
      return paint(unicode[index], colour[index]);
    }
    const std::string_view text = plain[index];
    return paint(text, colour[index]) + std::string(glyph_columns() - text.size(), ' ');
  }
  std::size_t glyph_columns() const { return ascii() ? 6 : 1; }

  /// `lead` (already painted, `lead_columns` wide), then `text` wrapped after it, each further
  /// line indented by `hang` columns; every line of `text` painted with `code`, and `tail`
  /// (a check id) after the text, dimmed.
  void paragraph(std::string_view lead, std::size_t lead_columns, std::string_view text,
                 std::size_t hang, std::string_view code = {}, std::string_view tail = {}) {
    std::string full(text);
    if (!tail.empty()) {
      full += (full.empty() ? "" : "  ") + std::string(tail);
    }
    const std::size_t width = m_options.width;
    const std::size_t first_room =
        width == 0 ? 0 : (width > lead_columns ? width - lead_columns : 1);
    const std::size_t rest_room = width == 0 ? 0 : (width > hang ? width - hang : 1);
    const auto lines = text::wrap(full, first_room, rest_room);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      m_out << (i == 0 ? std::string(lead) : std::string(hang, ' '));
      const std::string_view line = lines[i];
      if (!tail.empty() && i + 1 == lines.size() && line.size() >= tail.size() &&
          line.substr(line.size() - tail.size()) == tail) {
        const std::string_view before = line.substr(0, line.size() - tail.size());
        m_out << paint(before, code) << paint(tail, k_dim);
      } else {
        m_out << paint(line, code);
      }
      m_out << "\n";
    }
  }
  /// `text` wrapped at `indent` columns, continuation lines under its first character.
  void indented(std::size_t indent, std::string_view text, std::string_view code = {}) {
    paragraph(std::string(indent, ' '), indent, text, indent, code);
  }
  /// A line printed as it is, never wrapped (a fix command).
  /// The columns a line may take; 0 when nothing is wrapped (a pipe without COLUMNS).
  std::size_t width() const { return m_options.width; }
  void whole(std::size_t indent, std::string_view text, std::string_view code = {}) {
    m_out << std::string(indent, ' ') << paint(text, code) << "\n";
  }
  void blank() { m_out << "\n"; }

 private:
  std::ostream& m_out;
  const HumanOptions& m_options;
};

}  // namespace rocdoc
