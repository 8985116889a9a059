// `rocdoc explain ID`: the check's section of docs/checks.md (embedded at build time) cut into
// its parts, its sources found, and its Markdown made terminal text. Hand-written scanning over
// std::string_view, line by line. The three outputs are explain_output.cpp.
#include "src/knowledge/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "src/render/markdown_text.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// The lines of a text, each without its '\n'.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(at));
      break;
    }
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view trim_left(std::string_view text) {
  const std::size_t first = text.find_first_not_of(' ');
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

bool is_blank(std::string_view line) { return util::trim(line).empty(); }

/// Tracks fenced code blocks (``` or ~~~, indented or not) over the lines of a page.
class Fences {
 public:
  /// Whether `line` is inside a code block or is one of its fences (it then opens or closes).
  bool code(std::string_view line) {
    const std::string_view text = trim_left(line);
    std::size_t run = 0;
    while (run < text.size() && (text[run] == '`' || text[run] == '~') && text[run] == text[0]) {
      ++run;
    }
    if (m_length == 0) {
      if (run >= 3) {
        m_char = text[0];
        m_length = run;
        return true;
      }
      return false;
    }
    if (run >= m_length && text[0] == m_char && is_blank(text.substr(run))) {
      m_length = 0;
    }
    return true;
  }
  bool open() const { return m_length > 0; }

 private:
  char m_char = '`';
  std::size_t m_length = 0;
};

bool is_heading(std::string_view line) {
  return starts_with(line, "## ") || starts_with(line, "### ");
}

/// A verdict item of a check's section: "- **pass** — …".
bool is_verdict_item(std::string_view line) {
  for (const std::string_view word : {"pass", "warn", "fail", "skip", "notice"}) {
    if (starts_with(line, fmt::format("- **{}**", word))) {
      return true;
    }
  }
  return false;
}

/// "**Why.** Without an AMD …" → "Without an AMD …"; "**Fixes**, for the first …" → "For
/// the first …".
std::string without_label(std::string_view line) {
  const std::size_t end = line.find("**", 2);
  if (end == std::string_view::npos) {
    return std::string(line);
  }
  std::string_view rest = line.substr(end + 2);
  for (bool trimmed = true; trimmed;) {
    trimmed = false;
    for (const std::string_view lead : {" ", ":", ".", ",", "—", "-"}) {
      if (starts_with(rest, lead)) {
        rest.remove_prefix(lead.size());
        trimmed = true;
      }
    }
  }
  std::string text(rest);
  if (!text.empty() && std::islower(static_cast<unsigned char>(text[0])) != 0) {
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  }
  return text;
}

/// `text` without its HTML comments (`<!-- fixture: … -->`: notes for the project's developers,
/// which a Markdown page hides), outside code blocks; a line left empty by one goes too.
std::string without_comments(std::string_view text) {
  std::string out;
  Fences fences;
  bool in_comment = false;
  for (const auto line : lines_of(text)) {
    if (!in_comment && fences.code(line)) {
      out += std::string(line) + "\n";
      continue;
    }
    std::string kept;
    std::size_t at = 0;
    while (at < line.size()) {
      const std::size_t mark = line.find(in_comment ? "-->" : "<!--", at);
      if (mark == std::string_view::npos) {
        if (!in_comment) {
          kept += line.substr(at);
        }
        break;
      }
      if (!in_comment) {
        kept += line.substr(at, mark - at);
      }
      at = mark + (in_comment ? 3 : 4);
      in_comment = !in_comment;
    }
    while (!kept.empty() && kept.back() == ' ') {
      kept.pop_back();
    }
    if (!kept.empty() || is_blank(line)) {
      out += kept + "\n";
    }
  }
  return out;
}

/// Blank lines at either end dropped.
std::string trim_lines(const std::string& text) {
  auto lines = lines_of(text);
  while (!lines.empty() && is_blank(lines.back())) {
    lines.pop_back();
  }
  std::size_t first = 0;
  while (first < lines.size() && is_blank(lines[first])) {
    ++first;
  }
  std::string out;
  for (std::size_t i = first; i < lines.size(); ++i) {
    out += std::string(lines[i]) + (i + 1 < lines.size() ? "\n" : "");
  }
  return out;
}

/// "#anchor" → "docs/checks.md#anchor"; "json-report.md#x" → "docs/json-report.md#x".
std::string resolve_link(std::string_view url) {
  if (starts_with(url, "http://") || starts_with(url, "https://")) {
    return std::string(url);
  }
  if (starts_with(url, "#")) {
    return "docs/checks.md" + std::string(url);
  }
  return "docs/" + std::string(url);
}

/// A link at `at` (which holds '['): its text, its target and where it ends; nullopt when the
/// brackets are not a link.
struct Link {
  std::string_view text;
  std::string_view url;
  std::size_t end;
};
std::optional<Link> link_at(std::string_view text, std::size_t at) {
  const std::size_t close = text.find(']', at + 1);
  if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != '(') {
    return std::nullopt;
  }
  const std::size_t url_end = text.find(')', close + 2);
  if (url_end == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view url = text.substr(close + 2, url_end - close - 2);
  if (url.empty() || url.find_first_of(" \n") != std::string_view::npos) {
    return std::nullopt;
  }
  return Link{text.substr(at + 1, close - at - 1), url, url_end + 1};
}

/// The length of the run of `c` at `at`.
std::size_t run_at(std::string_view text, std::size_t at, char c) {
  std::size_t run = 0;
  while (at + run < text.size() && text[at + run] == c) {
    ++run;
  }
  return run;
}

/// Inline Markdown (several lines at most) as plain text: see terminal_text().
std::string plain_inline(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '`') {
      const std::size_t run = run_at(text, i, '`');
      const std::size_t close = text.find(std::string(run, '`'), i + run);
      const std::size_t end = close == std::string_view::npos ? i + run : close + run;
      out += text.substr(i, end - i);
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1]))) {
      out += text[i + 1];
      i += 2;
      continue;
    }
    if (c == '*') {
      const std::size_t run = run_at(text, i, '*');
      const bool before_space = i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n' ||
                                text[i - 1] == '(' || text[i - 1] == '"';
      const bool after_space =
          i + run >= text.size() || text[i + run] == ' ' || text[i + run] == '\n';
      // An emphasis marker opens before a word or closes after one; a lone '*' stays.
      if (run >= 2 || before_space != after_space) {
        i += run;
        continue;
      }
    }
    if (c == '[') {
      if (const auto link = link_at(text, i)) {
        const std::string label = plain_inline(link->text);
        const std::string url = resolve_link(link->url);
        out += label == url ? url : label + " (" + url + ")";
        i = link->end;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

/// "owner/repo#12" or "owner/repo:path/file.ext" at `at`, or nullopt.
std::optional<DocSource> reference_at(std::string_view text, std::size_t at, std::size_t& end) {
  if (at > 0 && (is_name_char(text[at - 1]) || text[at - 1] == '/' || text[at - 1] == ':')) {
    return std::nullopt;
  }
  if (std::isalpha(static_cast<unsigned char>(text[at])) == 0) {
    return std::nullopt;
  }
  std::size_t i = at;
  while (i < text.size() && is_name_char(text[i])) {
    ++i;
  }
  if (i >= text.size() || text[i] != '/') {
    return std::nullopt;
  }
  const std::size_t repo = ++i;
  while (i < text.size() && is_name_char(text[i])) {
    ++i;
  }
  if (i == repo || i + 1 >= text.size()) {
    return std::nullopt;
  }
  const std::string_view owner_repo = text.substr(at, i - at);
  if (text[i] == '#') {
    std::size_t digits = i + 1;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) {
      ++digits;
    }
    if (digits == i + 1) {
      return std::nullopt;
    }
    end = digits;
    const std::string_view number = text.substr(i + 1, digits - i - 1);
    return DocSource{std::string(text.substr(at, digits - at)),
                     fmt::format("https://github.com/{}/issues/{}", owner_repo, number)};
  }
  if (text[i] != ':') {
    return std::nullopt;
  }
  std::size_t path_end = i + 1;
  while (path_end < text.size() &&
         (is_name_char(text[path_end]) || text[path_end] == '/' || text[path_end] == '@')) {
    ++path_end;
  }
  while (path_end > i + 1 && (text[path_end - 1] == '.' || text[path_end - 1] == '/')) {
    --path_end;
  }
  const std::string_view path = text.substr(i + 1, path_end - i - 1);
  if (path.find_first_of("./") == std::string_view::npos) {
    return std::nullopt;
  }
  end = path_end;
  return DocSource{std::string(text.substr(at, path_end - at)), {}};
}

/// "https://…" at `at`, up to a space or a closing bracket, without a final full stop.
std::optional<DocSource> url_at(std::string_view text, std::size_t at, std::size_t& end) {
  if (!starts_with(text.substr(at), "https://") && !starts_with(text.substr(at), "http://")) {
    return std::nullopt;
  }
  std::size_t i = at;
  while (i < text.size() &&
         std::string_view(" \n)>\"'`,;").find(text[i]) == std::string_view::npos) {
    ++i;
  }
  while (i > at && (text[i - 1] == '.' || text[i - 1] == ':')) {
    --i;
  }
  end = i;
  return DocSource{{}, std::string(text.substr(at, i - at))};
}

}  // namespace

std::optional<std::string_view> doc_section(std::string_view doc, std::string_view id) {
  const std::string heading = "### " + std::string(id);
  Fences fences;
  std::size_t start = std::string_view::npos;
  std::size_t stop = doc.size();
  std::size_t at = 0;
  for (const auto line : lines_of(doc)) {
    const std::size_t here = at;
    at += line.size() + 1;
    if (fences.code(line)) {
      continue;
    }
    if (start == std::string_view::npos) {
      if (util::trim(line) == heading && starts_with(line, "### ")) {
        start = here;
      }
    } else if (is_heading(line)) {
      stop = here;
      break;
    }
  }
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  auto lines = lines_of(doc.substr(start, std::min(stop, doc.size()) - start));
  while (!lines.empty() && (is_blank(lines.back()) || util::trim(lines.back()) == "---")) {
    lines.pop_back();
  }
  const std::string_view last = lines.back();
  const std::size_t end = static_cast<std::size_t>(last.data() - doc.data()) + last.size();
  return doc.substr(start, end - start);
}

std::string markdown_without_comments(std::string_view markdown) {
  return without_comments(markdown);
}

std::optional<CheckDoc> check_doc(std::string_view doc, std::string_view id) {
  const auto section = doc_section(doc, id);
  if (!section) {
    return std::nullopt;
  }
  CheckDoc out;
  out.section = *section;
  // The area: the last level-2 heading before the section, and what it says before its first
  // check.
  const auto offset = static_cast<std::size_t>(section->data() - doc.data());
  Fences fences;
  std::string intro;
  bool in_intro = false;
  for (const auto line : lines_of(doc.substr(0, offset))) {
    if (fences.code(line)) {
      if (in_intro) {
        intro += std::string(line) + "\n";
      }
      continue;
    }
    if (starts_with(line, "## ")) {
      out.area = std::string(util::trim(line.substr(3)));
      intro.clear();
      in_intro = true;
    } else if (starts_with(line, "### ")) {
      in_intro = false;
    } else if (in_intro) {
      intro += std::string(line) + "\n";
    }
  }
  out.area_intro = trim_lines(intro);
  if (out.area_intro == "---") {
    out.area_intro.clear();
  }
  // The parts: the summary paragraph, then each bold label starts one.
  auto lines = lines_of(*section);
  std::size_t i = 1;  // after the heading
  while (i < lines.size() && is_blank(lines[i])) {
    ++i;
  }
  if (i < lines.size() && starts_with(lines[i], "*") && !starts_with(lines[i], "**")) {
    for (; i < lines.size() && !is_blank(lines[i]); ++i) {
      out.summary += (out.summary.empty() ? "" : " ") + std::string(util::trim(lines[i]));
    }
  }
  std::string* part = &out.looks_at;
  Fences body_fences;
  for (; i < lines.size(); ++i) {
    std::string line(lines[i]);
    if (!body_fences.code(lines[i])) {
      if (starts_with(line, "**Looks at**")) {
        part = &out.looks_at;
        line = without_label(line);
      } else if (starts_with(line, "**Why")) {
        part = &out.why;
        line = without_label(line);
      } else if (starts_with(line, "**Fix")) {
        part = &out.fix;
        line = without_label(line);
      } else if (part != &out.fix && is_verdict_item(line)) {
        part = &out.verdicts;
      }
    }
    *part += line + "\n";
  }
  for (std::string* text : {&out.looks_at, &out.why, &out.verdicts, &out.fix, &out.area_intro}) {
    *text = trim_lines(without_comments(*text));
  }
  return out;
}

std::optional<std::string> planned_check(std::string_view doc, std::string_view id) {
  const auto section = [&]() -> std::optional<std::string_view> {
    const std::size_t at = doc.find("\n## Planned\n");
    return at == std::string_view::npos ? std::nullopt
                                        : std::optional<std::string_view>(doc.substr(at + 1));
  }();
  if (!section) {
    return std::nullopt;
  }
  const std::string item = "- `" + std::string(id) + "`";
  std::string text;
  bool in_item = false;
  for (const auto line : lines_of(section->substr(3))) {
    if (starts_with(line, "## ")) {
      break;
    }
    if (in_item && starts_with(line, "  ") && !is_blank(line)) {
      text += " " + std::string(util::trim(line));
      continue;
    }
    in_item = false;
    if (starts_with(line, item) && line.size() > item.size() && line[item.size()] == ' ') {
      text = std::string(util::trim(line.substr(item.size())));
      in_item = true;
    }
  }
  if (text.empty()) {
    return std::nullopt;
  }
  for (const std::string_view dash : {"— ", "- "}) {
    if (starts_with(text, dash)) {
      text.erase(0, dash.size());
    }
  }
  return text;
}

namespace {

/// `markdown` without its code blocks and code spans, whose URLs are commands' arguments
/// (an index URL), not sources.
std::string without_code(std::string_view markdown) {
  std::string prose;
  Fences fences;
  for (const auto line : lines_of(markdown)) {
    if (!fences.code(line)) {
      prose += std::string(line) + "\n";
    }
  }
  std::string out;
  for (std::size_t i = 0; i < prose.size();) {
    if (prose[i] != '`') {
      out += prose[i++];
      continue;
    }
    const std::size_t run = run_at(prose, i, '`');
    const std::size_t close = prose.find(std::string(run, '`'), i + run);
    i = close == std::string::npos ? i + run : close + run;
    out += ' ';
  }
  return out;
}

}  // namespace

std::vector<DocSource> doc_sources(std::string_view text) {
  const std::string prose = without_code(text);
  const std::string_view markdown = prose;
  std::vector<DocSource> sources;
  std::set<std::string> seen;
  const auto add = [&](DocSource source) {
    const std::string key = source.url.empty() ? source.text : source.url;
    if (seen.insert(key).second) {
      sources.push_back(std::move(source));
    }
  };
  std::size_t i = 0;
  while (i < markdown.size()) {
    std::size_t end = i + 1;
    if (markdown[i] == '[') {
      if (const auto link = link_at(markdown, i)) {
        if (starts_with(link->url, "http://") || starts_with(link->url, "https://")) {
          add({plain_inline(link->text), std::string(link->url)});
        }
        i = link->end;
        continue;
      }
    }
    if (auto url = url_at(markdown, i, end)) {
      add(std::move(*url));
      i = end;
      continue;
    }
    if (auto reference = reference_at(markdown, i, end)) {
      add(std::move(*reference));
      i = end;
      continue;
    }
    ++i;
  }
  return sources;
}

std::string terminal_text(std::string_view markdown) {
  std::string out;
  Fences fences;
  std::string prose;  // lines outside code blocks, converted together (a link may wrap)
  std::size_t fence_indent = 0;
  const auto flush = [&] {
    out += plain_inline(prose);
    prose.clear();
  };
  for (const auto line : lines_of(markdown)) {
    const bool was_open = fences.open();
    if (fences.code(line)) {
      if (!was_open) {  // an opening fence
        flush();
        fence_indent = line.size() - trim_left(line).size();
      } else if (fences.open()) {  // a line of code
        const std::size_t indent = std::min(fence_indent, line.size() - trim_left(line).size());
        out += std::string(fence_indent + 4, ' ') + std::string(line.substr(indent)) + "\n";
      }
      continue;
    }
    prose += std::string(line) + "\n";
  }
  flush();
  return trim_lines(out);
}

}  // namespace rocdoc
