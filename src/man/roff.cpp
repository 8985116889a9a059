#include "src/man/roff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rocdoc {

namespace {

/// The page is ours, but a build step still bounds what it reads.
constexpr std::size_t k_max_page_bytes = std::size_t{4} << 20;

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

std::size_t indent(std::string_view line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

/// One character of text, escaped for roff; UTF-8 sequences as \[uXXXX].
void put_char(std::string& out, std::string_view text, std::size_t& i, std::size_t line) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c == '\\') {
    out += "\\e";
  } else if (c == '-') {
    out += "\\-";
  } else if (c < 0x80) {
    out += static_cast<char>(c);
  } else {
    std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (length == 0 || i + length > text.size()) {
      throw ManPageError(fmt::format("line {}: invalid UTF-8", line));
    }
    std::uint32_t code = c & (0x7fu >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0) != 0x80) {
        throw ManPageError(fmt::format("line {}: invalid UTF-8", line));
      }
      code = (code << 6) | (next & 0x3fu);
    }
    out += fmt::format("\\[u{:04X}]", code);
    i += length - 1;
  }
}

/// Roff treats a line that starts with `.` or `'` as a request.
std::string protect_lines(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
    }
    out += c;
    line_start = c == '\n';
  }
  return out;
}

/// Plain text (a code block line): escaped, no emphasis.
std::string escape_plain(std::string_view text, std::size_t line) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    put_char(out, text, i, line);
  }
  return protect_lines(out);
}

/// A paragraph's text (its lines joined with '\n') with emphasis and escapes, as roff lines.
std::string inline_roff(std::string_view text, std::size_t line) {
  std::string out;
  bool bold = false;
  bool italic = false;
  const auto font = [&] {
    out += bold && italic ? "\\f(BI" : bold ? "\\fB" : italic ? "\\fI" : "\\fR";
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      out += '\n';
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      out += "\n\001br";  // a hard line break (.br once lines are protected); then the newline
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && is_ascii_punctuation(text[i + 1])) {
      ++i;
      put_char(out, text, i, line);
      continue;
    }
    if (c == '[' && text.find("](", i) != std::string_view::npos &&
        text.find("](", i) < text.find(']', i) + 1) {
      throw ManPageError(fmt::format("line {}: links are not in the man page's Markdown", line));
    }
    if (c == '`') {
      throw ManPageError(
          fmt::format("line {}: code spans are not in the man page's Markdown; "
                      "use **bold** or *italic*",
                      line));
    }
    if (c == '*') {
      const bool strong = i + 1 < text.size() && text[i + 1] == '*';
      const std::size_t after = i + (strong ? 2 : 1);
      const bool can_open = after < text.size() && text[after] != ' ' && text[after] != '\n';
      const bool can_close = i > 0 && text[i - 1] != ' ' && text[i - 1] != '\n';
      bool& state = strong ? bold : italic;
      if ((state && can_close) || (!state && can_open)) {
        state = !state;
        font();
        i = after - 1;
        continue;
      }
    }
    put_char(out, text, i, line);
  }
  if (bold || italic) {
    throw ManPageError(fmt::format("line {}: ** or * left open at the end of the paragraph", line));
  }
  std::string lines = protect_lines(out);
  for (char& ch : lines) {
    if (ch == '\x01') {
      ch = '.';
    }
  }
  return lines;
}

std::string heading_text(std::string_view text, std::size_t line) {
  std::string out = inline_roff(text, line);
  if (out.find('"') != std::string::npos) {
    throw ManPageError(fmt::format("line {}: a heading with a quote", line));
  }
  return "\"" + out + "\"";
}

/// For each \\[uXXXX] the page uses, an ASCII stand-in where the output device has no glyph
/// (man under the C locale): the report's own ASCII glyphs for its symbols, else "?".
std::string glyph_fallbacks(std::string_view roff) {
  static constexpr std::pair<std::string_view, std::string_view> k_ascii[] = {
      {"u2713", "[ok]"}, {"u2717", "[FAIL]"}, {"u2022", "[info]"}, {"u00B7", "-"},
      {"u2014", "--"},   {"u2013", "-"},      {"u2192", "->"},     {"u2026", "..."}};
  std::string out;
  std::vector<std::string_view> seen;
  for (auto at = roff.find("\\[u"); at != std::string_view::npos; at = roff.find("\\[u", at + 1)) {
    const std::string_view name = roff.substr(at + 2, roff.find(']', at) - at - 2);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      continue;
    }
    seen.push_back(name);
    std::string_view ascii = "?";
    for (const auto& [glyph, text] : k_ascii) {
      if (glyph == name) {
        ascii = text;
      }
    }
    out += fmt::format(".if !c\\[{0}] .char \\[{0}] {1}\n", name, ascii);
  }
  return out;
}

class Converter {
 public:
  Converter(std::string_view markdown, std::string_view version, std::string_view date)
      : m_lines(split_lines(markdown)), m_version(version), m_date(date) {}

  std::string run() {
    title();
    const std::size_t preamble = m_out.size();
    while (m_next < m_lines.size()) {
      block();
    }
    m_out.insert(preamble, glyph_fallbacks(m_out));
    return m_out;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw ManPageError(fmt::format("line {}: {}", m_next + 1, what));
  }

  void title() {
    if (m_lines.empty() || !starts_with(m_lines[0], "% ")) {
      fail("the first line is the title: % NAME(SECTION) footer | header");
    }
    std::string_view line = m_lines[0].substr(2);
    std::string_view header;
    if (const auto bar = line.find(" | "); bar != std::string_view::npos) {
      header = line.substr(bar + 3);
      line = line.substr(0, bar);
    }
    const auto open = line.find('(');
    const auto close = line.find(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
      fail("the title names the page as NAME(SECTION)");
    }
    const std::string_view name = line.substr(0, open);
    const std::string_view section = line.substr(open + 1, close - open - 1);
    std::string_view footer = line.substr(close + 1);
    footer.remove_prefix(std::min(footer.find_first_not_of(' '), footer.size()));
    // The footer is "rocdoc": the build adds the version of project() in CMakeLists.txt.
    const std::string source =
        std::string(footer) + (m_version.empty() ? "" : " ") + std::string(m_version);
    m_out +=
        ".\\\" Generated from docs/rocdoc.1.md by rocdoc_manc (src/man/roff.cpp). Do not "
        "edit.\n";
    m_out += fmt::format(".TH \"{}\" \"{}\" \"{}\" \"{}\" \"{}\"\n", escape_plain(name, 1),
                         escape_plain(section, 1), escape_plain(m_date, 1), escape_plain(source, 1),
                         escape_plain(header, 1));
    m_out += ".nh\n.ad l\n";  // option names and paths stay whole: no hyphenation, ragged right
    m_next = 1;
  }

  /// The lines of a paragraph: up to a blank line, a heading, or a definition's `:   `.
  std::string paragraph() {
    std::string text;
    const std::size_t first = m_next;
    while (m_next < m_lines.size() && !blank(m_lines[m_next]) &&
           !starts_with(m_lines[m_next], "#") && !starts_with(m_lines[m_next], ":   ") &&
           !(m_next > first && starts_with(m_lines[m_next], "|"))) {
      std::string_view line = m_lines[m_next];
      line.remove_prefix(indent(line));
      if (!text.empty()) {
        text += '\n';
      }
      text += line;
      ++m_next;
    }
    return inline_roff(text, first + 1);
  }

  void code_block(std::size_t strip) {
    m_out += ".IP\n.nf\n";
    std::size_t blanks = 0;
    while (m_next < m_lines.size() &&
           (blank(m_lines[m_next]) || indent(m_lines[m_next]) >= strip)) {
      if (blank(m_lines[m_next])) {
        ++blanks;
      } else {
        m_out += std::string(blanks, '\n');
        blanks = 0;
        m_out += escape_plain(m_lines[m_next].substr(strip), m_next + 1) + "\n";
      }
      ++m_next;
    }
    m_out += ".fi\n";
    m_next -= blanks;
  }

  void table() {
    m_out += ".IP\n.nf\n";
    while (m_next < m_lines.size() && starts_with(m_lines[m_next], "|")) {
      const std::string_view line = m_lines[m_next];
      if (line.find_first_not_of("|-: ") != std::string_view::npos) {  // not |---|---|
        m_out += inline_roff(line, m_next + 1) + "\n";
      }
      ++m_next;
    }
    m_out += ".fi\n";
  }

  void skip_blank() {
    while (m_next < m_lines.size() && blank(m_lines[m_next])) {
      ++m_next;
    }
  }

  /// A definition: `:   text` and lines indented by four; after a blank line, more paragraphs
  /// indented by four, or code indented by eight.
  void definition() {
    m_lines[m_next].remove_prefix(4);
    m_out += paragraph() + "\n";
    while (true) {
      const std::size_t blank_at = m_next;
      skip_blank();
      if (m_next == blank_at || m_next >= m_lines.size() || indent(m_lines[m_next]) < 4) {
        m_next = blank_at;
        return;
      }
      if (indent(m_lines[m_next]) >= 8) {
        code_block(8);
      } else {
        m_out += ".IP\n" + paragraph() + "\n";
      }
    }
  }

  void block() {
    skip_blank();
    if (m_next >= m_lines.size()) {
      return;
    }
    const std::string_view line = m_lines[m_next];
    if (starts_with(line, "```") || starts_with(line, "~~~")) {
      fail("fenced code blocks are not in the man page's Markdown; indent by four");
    }
    if (starts_with(line, "- ") || starts_with(line, "* ") || starts_with(line, "+ ") ||
        starts_with(line, "> ")) {
      fail("lists and quotes are not in the man page's Markdown; use a definition list");
    }
    if (starts_with(line, "## ")) {
      ++m_next;
      m_out += ".SS " + heading_text(line.substr(3), m_next) + "\n";
      return;
    }
    if (starts_with(line, "# ")) {
      ++m_next;
      m_out += ".SH " + heading_text(line.substr(2), m_next) + "\n";
      return;
    }
    if (starts_with(line, "#")) {
      fail("only # and ## headings");
    }
    if (starts_with(line, ":   ")) {
      fail("a definition needs its term on the line before");
    }
    if (starts_with(line, "|")) {
      table();
      return;
    }
    if (indent(line) >= 4) {
      code_block(4);
      return;
    }
    const std::size_t start = m_next;
    const std::string text = paragraph();
    if (m_next < m_lines.size() && starts_with(m_lines[m_next], ":   ")) {
      if (m_next != start + 1) {
        m_next = start;
        fail("a definition's term is one line");
      }
      m_out += ".TP\n" + text + "\n";
      definition();
      return;
    }
    m_out += ".PP\n" + text + "\n";
  }

  std::vector<std::string_view> m_lines;
  std::string_view m_version;
  std::string_view m_date;
  std::size_t m_next = 0;
  std::string m_out;
};

}  // namespace

std::string markdown_to_roff(std::string_view markdown, std::string_view version,
                             std::string_view date) {
  if (markdown.size() > k_max_page_bytes) {
    throw ManPageError(
        fmt::format("the page is over {} MiB: not a man page", k_max_page_bytes >> 20));
  }
  return Converter(markdown, version, date).run();
}

}  // namespace rocdoc
