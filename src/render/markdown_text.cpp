// Escaping for Markdown: see markdown_text.h. Hand-written scanning over the value; the
// escapes are CommonMark's own (a backslash before ASCII punctuation, entities for < > &).
#include "src/render/markdown_text.h"

#include <algorithm>
#include <cctype>

#include "src/util/strings.h"

namespace rocdoc::markdown {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// Characters that start or end an inline construct anywhere in a line: emphasis, code
/// spans, links and images, GitHub's strikethrough, tables and math, escapes themselves.
bool needs_backslash(char c) {
  switch (c) {
    case '\\':
    case '`':
    case '*':
    case '[':
    case ']':
    case '|':
    case '~':
    case '#':
    case '$':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

std::string text(std::string_view raw) {
  const std::string safe = util::printable(raw);
  std::string out;
  out.reserve(safe.size() + safe.size() / 4);
  std::size_t at = 0;
  // At the start of a line, spaces would make an indented code block (or vanish), and - + =
  // a list item or a setext underline; "12." or "3)" an ordered list.
  for (; at < safe.size() && safe[at] == ' '; ++at) {
    out += "&#32;";
  }
  // A marker needs a space (or the end) after it: "-x" and "0.1.0" are text as they are.
  const auto marker_ends = [&](std::size_t next) {
    return next >= safe.size() || safe[next] == ' ';
  };
  if (at < safe.size() && (safe[at] == '-' || safe[at] == '+' || safe[at] == '=') &&
      (marker_ends(at + 1) || safe[at + 1] == safe[at])) {
    out += '\\';
  }
  std::size_t digits = at;
  while (digits < safe.size() && is_digit(safe[digits])) {
    ++digits;
  }
  const bool list_number = digits > at && digits < safe.size() &&
                           (safe[digits] == '.' || safe[digits] == ')') && marker_ends(digits + 1);
  for (std::size_t i = at; i < safe.size(); ++i) {
    const char c = safe[i];
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '_') {
      // Between letters or digits an underscore can neither open nor close emphasis
      // (CommonMark's flanking rules): kfd_topology stays readable.
      const bool inside_word =
          i > 0 && i + 1 < safe.size() && is_alnum(safe[i - 1]) && is_alnum(safe[i + 1]);
      out += inside_word ? "_" : "\\_";
    } else {
      if (needs_backslash(c) || (list_number && i == digits)) {
        out += '\\';
      }
      out += c;
    }
  }
  return out;
}

std::string code(std::string_view raw) {
  const std::string safe = util::printable(raw);
  if (safe.empty()) {
    return {};
  }
  const std::string ticks(longest_backtick_run(safe) + 1, '`');
  const bool all_spaces = safe.find_first_not_of(' ') == std::string::npos;
  // A span that starts or ends with a backtick, or with a space at both ends, needs a space
  // of padding, which CommonMark strips again.
  const bool pad = safe.front() == '`' || safe.back() == '`' ||
                   (!all_spaces && safe.front() == ' ' && safe.back() == ' ');
  const std::string space = pad ? " " : "";
  return ticks + space + safe + space + ticks;
}

std::string fence(const std::vector<std::string>& lines, std::string_view info) {
  std::vector<std::string> safe;
  safe.reserve(lines.size());
  std::size_t longest = 0;
  for (const auto& line : lines) {
    safe.push_back(util::printable(line));
    longest = std::max(longest, longest_backtick_run(safe.back()));
  }
  const std::string ticks(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = ticks + std::string(info) + "\n";
  for (const auto& line : safe) {
    out += line + "\n";
  }
  return out + ticks + "\n";
}

}  // namespace rocdoc::markdown
