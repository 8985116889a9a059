#include "src/scan/ignore_rules.h"

#include <cstdint>

#include "src/util/strings.h"

namespace rocdoc {

namespace {

// Longer patterns are dropped: no real .gitignore has them, and the matcher's table grows with
// the pattern's length times the path's.
constexpr std::size_t k_max_pattern = 1024;

/// The wildmatch of gitignore_glob over positions of the pattern (p) and the path (s), each
/// pair decided once: linear in their product, never exponential.
class Glob {
 public:
  Glob(std::string_view pattern, std::string_view path)
      : m_pattern(pattern), m_path(path), m_memo((pattern.size() + 1) * (path.size() + 1), 0) {}

  bool match(std::size_t p, std::size_t s) {
    std::uint8_t& memo = m_memo[p * (m_path.size() + 1) + s];
    if (memo == 0) {
      memo = decide(p, s) ? 1 : 2;
    }
    return memo == 1;
  }

 private:
  bool double_star_at(std::size_t p) const {
    return m_pattern.substr(p, 2) == "**" && (p == 0 || m_pattern[p - 1] == '/') &&
           (p + 2 == m_pattern.size() || m_pattern[p + 2] == '/');
  }

  bool decide(std::size_t p, std::size_t s) {
    if (p == m_pattern.size()) {
      return s == m_path.size();
    }
    if (double_star_at(p)) {
      if (p + 2 == m_pattern.size()) {
        return true;  // a final "**": anything below
      }
      // "**/": none or more whole directories.
      for (std::size_t at = s; at <= m_path.size(); ++at) {
        if ((at == s || m_path[at - 1] == '/') && match(p + 3, at)) {
          return true;
        }
      }
      return false;
    }
    const char c = m_pattern[p];
    if (c == '*') {
      for (std::size_t at = s;; ++at) {
        if (match(p + 1, at)) {
          return true;
        }
        if (at == m_path.size() || m_path[at] == '/') {
          return false;
        }
      }
    }
    if (s == m_path.size()) {
      return false;
    }
    const char here = m_path[s];
    if (c == '?') {
      return here != '/' && match(p + 1, s + 1);
    }
    if (c == '[') {
      const auto end = class_end(p);
      if (end) {
        return here != '/' && in_class(p, *end, here) && match(*end + 1, s + 1);
      }
    }
    if (c == '\\' && p + 1 < m_pattern.size()) {
      return m_pattern[p + 1] == here && match(p + 2, s + 1);
    }
    return c == here && match(p + 1, s + 1);
  }

  /// The position of the "]" closing the class that opens at p; nullopt for a lone "[".
  std::optional<std::size_t> class_end(std::size_t p) const {
    std::size_t at = p + 1;
    if (at < m_pattern.size() && (m_pattern[at] == '!' || m_pattern[at] == '^')) {
      ++at;
    }
    if (at < m_pattern.size() && m_pattern[at] == ']') {
      ++at;  // a "]" first is itself
    }
    const auto end = m_pattern.find(']', at);
    return end == std::string_view::npos ? std::nullopt : std::optional(end);
  }

  bool in_class(std::size_t p, std::size_t end, char here) const {
    std::size_t at = p + 1;
    const bool negated = m_pattern[at] == '!' || m_pattern[at] == '^';
    at += negated ? 1 : 0;
    bool found = false;
    for (bool first = true; at < end; first = false) {
      const char low = m_pattern[at];
      if (!first && low == ']') {
        break;
      }
      if (at + 2 < end && m_pattern[at + 1] == '-') {
        found = found || (here >= low && here <= m_pattern[at + 2]);
        at += 3;
      } else {
        found = found || here == low;
        ++at;
      }
    }
    return found != negated;
  }

  std::string_view m_pattern;
  std::string_view m_path;
  std::vector<std::uint8_t> m_memo;  ///< 0 unknown, 1 match, 2 no match
};

/// A line without its unescaped trailing spaces ("a\ " keeps its space).
std::string_view without_trailing_spaces(std::string_view line) {
  while (!line.empty() && line.back() == ' ' &&
         !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

bool gitignore_glob(std::string_view pattern, std::string_view path) {
  Glob glob(pattern, path);
  return glob.match(0, 0);
}

std::vector<IgnoreRule> parse_ignore_file(std::string_view content, std::string_view base) {
  std::vector<IgnoreRule> rules;
  for (auto line : util::lines(content)) {
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    line = without_trailing_spaces(line);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    IgnoreRule rule;
    rule.base = std::string(base);
    if (line.front() == '!') {
      rule.negate = true;
      line.remove_prefix(1);
    } else if (line.substr(0, 2) == "\\!" || line.substr(0, 2) == "\\#") {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.directory_only = true;
      line.remove_suffix(1);
    }
    if (line.empty() || line.size() > k_max_pattern) {
      continue;  // "/" or "!" alone match nothing
    }
    rule.anchored = line.find('/') != std::string_view::npos;
    if (line.front() == '/') {
      line.remove_prefix(1);
    }
    if (line.empty()) {
      continue;  // "//" is "/" for a directory: it names nothing
    }
    rule.pattern = std::string(line);
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::optional<bool> ignore_verdict(const std::vector<IgnoreRule>& rules, std::string_view path,
                                   PathKind kind) {
  std::optional<bool> verdict;
  for (const auto& rule : rules) {
    if (rule.directory_only && kind != PathKind::directory) {
      continue;
    }
    if (path.substr(0, rule.base.size()) != rule.base || path.size() == rule.base.size()) {
      continue;
    }
    const std::string_view relative = path.substr(rule.base.size());
    const auto slash = relative.rfind('/');
    const std::string_view subject =
        rule.anchored || slash == std::string_view::npos ? relative : relative.substr(slash + 1);
    if (gitignore_glob(rule.pattern, subject)) {
      verdict = !rule.negate;
    }
  }
  return verdict;
}

}  // namespace rocdoc
