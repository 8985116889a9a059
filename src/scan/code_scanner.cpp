#include "src/scan/code_scanner.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <tuple>

#include "src/scan/comments.h"
#include "src/scan/preprocessor_branches.h"
#include "src/util/strings.h"

namespace rocdoc {

CompiledCodePattern::CompiledCodePattern() = default;
CompiledCodePattern::CompiledCodePattern(CompiledCodePattern&&) noexcept = default;
CompiledCodePattern& CompiledCodePattern::operator=(CompiledCodePattern&&) noexcept = default;
CompiledCodePattern::~CompiledCodePattern() = default;

namespace {

constexpr std::size_t k_max_text = 200;
constexpr std::size_t k_max_line_text = 300;

std::unique_ptr<re2::RE2> compiled_or_null(const std::string& expression, const CodePattern& rule) {
  if (expression.empty()) {
    return nullptr;
  }
  RE2::Options options;
  options.set_never_nl(true);
  options.set_log_errors(false);
  auto compiled = std::make_unique<re2::RE2>("(?m)" + expression, options);
  if (!compiled->ok()) {
    throw std::runtime_error("code pattern " + rule.name + ": " + compiled->error());
  }
  return compiled;
}

CommentSyntax comment_syntax(SourceKind kind) {
  return kind == SourceKind::cxx ? CommentSyntax::c_like : CommentSyntax::hash;
}

/// The offsets where each line starts: line N (1-based) starts at starts[N - 1].
std::vector<std::size_t> line_starts(std::string_view text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t at = text.find('\n'); at != std::string_view::npos;
       at = text.find('\n', at + 1)) {
    starts.push_back(at + 1);
  }
  return starts;
}

std::string_view line_at(std::string_view text, const std::vector<std::size_t>& starts,
                         std::size_t line) {
  if (line == 0 || line > starts.size()) {
    return {};
  }
  const std::size_t begin = starts[line - 1];
  const std::size_t end = line < starts.size() ? starts[line] - 1 : text.size();
  std::string_view result = text.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') {
    result.remove_suffix(1);
  }
  return result;
}

bool names(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

/// One file's judgement of its matches, step by step.
class FileJudge {
 public:
  FileJudge(std::string_view path, std::string_view text, SourceKind kind, const CodeRules& rules)
      : m_path(path), m_text(text), m_kind(kind), m_rules(rules) {}

  FileScan run() {
    FileScan result;
    const PatternSet* matcher = m_rules.matcher(m_kind);
    const std::vector<std::size_t> present = matcher->present(m_text);
    if (present.empty()) {
      return result;
    }
    m_code = without_comments(m_text, comment_syntax(m_kind));
    const PatternSet::Matches matches = matcher->locate(m_code, present);
    result.complete = matches.complete;
    if (matches.matches.empty()) {
      return result;
    }
    m_starts = line_starts(m_text);
    m_file_ignores = file_ignores();
    std::vector<std::size_t> lines;
    for (const auto& match : matches.matches) {
      lines.push_back(line_of(match.offset));
    }
    if (m_kind == SourceKind::cxx) {
      std::vector<std::size_t> unique = lines;
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      const auto states = branch_states(m_code, m_rules.macros(), unique);
      for (std::size_t i = 0; i < unique.size(); ++i) {
        m_branches.emplace(unique[i], states[i]);
      }
    }
    for (std::size_t i = 0; i < matches.matches.size(); ++i) {
      judge(matches.matches[i], lines[i], result);
    }
    finish(result);
    return result;
  }

 private:
  std::size_t line_of(std::size_t offset) const {
    return static_cast<std::size_t>(std::upper_bound(m_starts.begin(), m_starts.end(), offset) -
                                    m_starts.begin());
  }

  std::vector<std::string> file_ignores() const {
    std::vector<std::string> ids;
    for (std::size_t at = m_text.find("rocdoc: ignore-file["); at != std::string_view::npos;
         at = m_text.find("rocdoc: ignore-file[", at + 1)) {
      const auto end = m_text.find('\n', at);
      for (auto& id : ignored_ids(
               m_text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at),
               true)) {
        ids.push_back(std::move(id));
      }
    }
    return ids;
  }

  bool ignored_inline(std::string_view id, std::size_t line) const {
    if (names(m_file_ignores, id)) {
      return true;
    }
    for (const std::size_t at : {line, line - 1}) {
      const std::string_view text = line_at(m_text, m_starts, at);
      if (text.find("rocdoc: ignore[") != std::string_view::npos && names(ignored_ids(text), id)) {
        return true;
      }
    }
    return false;
  }

  /// Whether the pattern's `unless_*` expressions and `branch` let the match stand.
  bool stands(const CompiledCodePattern& pattern, std::size_t line) {
    const CodePattern& rule = *pattern.rule;
    if (m_kind == SourceKind::cxx && rule.branch != CodeBranch::anywhere) {
      const BranchState& state = m_branches.at(line);
      if (state.cuda_only) {
        return false;
      }
      if (rule.branch == CodeBranch::rocm && !state.rocm_only) {
        return false;
      }
      if (pattern.unless_branch && RE2::PartialMatch(state.conditions, *pattern.unless_branch)) {
        return false;
      }
    }
    if (pattern.unless_line) {
      const std::size_t first = line > rule.context_lines ? line - rule.context_lines : 1;
      for (std::size_t at = first; at <= line; ++at) {
        if (RE2::PartialMatch(line_at(m_code, m_starts, at), *pattern.unless_line)) {
          return false;
        }
      }
    }
    if (pattern.unless_file) {
      const auto [cached, inserted] = m_file_verdicts.emplace(&pattern, false);
      if (inserted) {
        cached->second = RE2::PartialMatch(m_code, *pattern.unless_file);
      }
      if (cached->second) {
        return false;
      }
    }
    return true;
  }

  void judge(const PatternMatch& match, std::size_t line, FileScan& result) {
    const CompiledCodePattern& pattern = m_rules.pattern(m_kind, match.pattern);
    const CodePattern& rule = *pattern.rule;
    if (!stands(pattern, line)) {
      return;
    }
    if (ignored_inline(rule.id, line)) {
      ++result.suppressed_inline;
      return;
    }
    // One finding per line and check: the most severe pattern, the first on the line.
    for (CodeFinding& earlier : result.findings) {
      if (earlier.line == line && earlier.id == rule.id) {
        if (rule.severity > earlier.severity) {
          const std::size_t at = match.offset - m_starts[line - 1] + 1;
          earlier.column = at;
          earlier.end_column = at + match.length;
          earlier.text = util::excerpt(m_text.substr(match.offset, match.length), k_max_text);
          earlier.severity = rule.severity;
          earlier.pattern = rule.name;
          earlier.what = rule.what;
          earlier.replacement = rule.replacement;
          earlier.sources = rule.sources;
        }
        return;
      }
    }
    const std::size_t column = match.offset - m_starts[line - 1] + 1;
    CodeFinding finding;
    finding.id = rule.id;
    finding.pattern = rule.name;
    finding.severity = rule.severity;
    finding.path = std::string(m_path);
    finding.line = line;
    finding.column = column;
    finding.end_column = column + match.length;
    finding.text = util::excerpt(m_text.substr(match.offset, match.length), k_max_text);
    finding.line_text = util::excerpt(util::trim(line_at(m_text, m_starts, line)), k_max_line_text);
    finding.what = rule.what;
    finding.replacement = rule.replacement;
    finding.sources = rule.sources;
    result.findings.push_back(std::move(finding));
  }

  /// Ordered by line, column and id, each with its fingerprint.
  void finish(FileScan& result) const {
    std::sort(result.findings.begin(), result.findings.end(),
              [](const CodeFinding& a, const CodeFinding& b) {
                return std::tie(a.line, a.column, a.id) < std::tie(b.line, b.column, b.id);
              });
    std::map<std::pair<std::string, std::string>, std::size_t> occurrences;
    for (CodeFinding& finding : result.findings) {
      std::string squeezed;
      for (const char c : finding.line_text) {
        if (std::isspace(static_cast<unsigned char>(c)) == 0) {
          squeezed += c;
        }
      }
      const std::size_t occurrence = occurrences[{finding.id, squeezed}]++;
      finding.fingerprint = code_fingerprint(finding.id, finding.path, squeezed, occurrence);
    }
  }

  std::string_view m_path;
  std::string_view m_text;
  SourceKind m_kind;
  const CodeRules& m_rules;
  std::string m_code;
  std::vector<std::size_t> m_starts;
  std::vector<std::string> m_file_ignores;
  std::map<std::size_t, BranchState> m_branches;
  std::map<const CompiledCodePattern*, bool> m_file_verdicts;
};

}  // namespace

CodeRules::CodeRules(const Knowledge& knowledge)
    : m_macros(&knowledge.code_platform_macros), m_patterns(&knowledge.code_patterns) {
  knowledge.require(KnowledgeParts::code);
  for (const std::string& expression : knowledge.code_cuda_only_paths.match) {
    RE2::Options options;
    options.set_log_errors(false);
    auto compiled = std::make_unique<re2::RE2>(expression, options);
    if (!compiled->ok()) {
      throw std::runtime_error("cuda_only_paths " + expression + ": " + compiled->error());
    }
    m_cuda_only_paths.push_back(std::move(compiled));
  }
  const auto kinds = source_kinds();
  m_kinds.resize(kinds.size());
  for (const SourceKind kind : kinds) {
    KindRules& rules = m_kinds[static_cast<std::size_t>(kind)];
    std::vector<std::string> expressions;
    for (const CodePattern& rule : knowledge.code_patterns) {
      if (!names(rule.kinds, source_kind_rule_name(kind))) {
        continue;
      }
      CompiledCodePattern pattern;
      pattern.rule = &rule;
      pattern.unless_line = compiled_or_null(rule.unless_line, rule);
      pattern.unless_file = compiled_or_null(rule.unless_file, rule);
      pattern.unless_branch = compiled_or_null(rule.unless_branch, rule);
      rules.patterns.push_back(std::move(pattern));
      expressions.push_back(rule.match);
    }
    if (expressions.empty()) {
      continue;
    }
    auto compiled = PatternSet::compile(expressions);
    if (!compiled.set) {
      throw std::runtime_error("the code patterns of " + std::string(source_kind_rule_name(kind)) +
                               " files do not compile: " + compiled.error);
    }
    rules.matcher = std::move(compiled.set);
  }
}

const CodePattern* CodeRules::rule(std::string_view name) const {
  const auto it = std::find_if(m_patterns->begin(), m_patterns->end(),
                               [&](const CodePattern& pattern) { return pattern.name == name; });
  return it == m_patterns->end() ? nullptr : &*it;
}

bool CodeRules::cuda_only_path(std::string_view path) const {
  return std::any_of(m_cuda_only_paths.begin(), m_cuda_only_paths.end(),
                     [&](const auto& expression) { return RE2::PartialMatch(path, *expression); });
}

CodeRules::~CodeRules() = default;

const PatternSet* CodeRules::matcher(SourceKind kind) const {
  return m_kinds[static_cast<std::size_t>(kind)].matcher.get();
}

const CompiledCodePattern& CodeRules::pattern(SourceKind kind, std::size_t index) const {
  return m_kinds[static_cast<std::size_t>(kind)].patterns.at(index);
}

FileScan scan_file_text(std::string_view path, std::string_view text, SourceKind kind,
                        const CodeRules& rules) {
  if (rules.matcher(kind) == nullptr) {
    return {};
  }
  FileScan scan = FileJudge(path, text, kind, rules).run();
  if (kind == SourceKind::cxx) {
    scan.mapped_names = mapped_names(text);
  }
  return scan;
}

std::vector<std::string> mapped_names(std::string_view text) {
  std::vector<std::string> names;
  // "define __" is rare: a file without it costs one memchr-speed search.
  for (std::size_t at = text.find("define __"); at != std::string_view::npos;
       at = text.find("define __", at + 1)) {
    // A directive's "#" stands a few spaces before "define" on its line: looking back at most
    // 64 bytes keeps a hostile line of a million "define __" linear.
    const std::size_t from = at > 64 ? at - 64 : 0;
    const std::string_view window = text.substr(from, at - from);
    const std::size_t newline = window.rfind('\n');
    if (newline == std::string_view::npos && from != 0) {
      continue;  // more than 64 bytes from the line's start: not a directive
    }
    const std::string_view before =
        util::trim(newline == std::string_view::npos ? window : window.substr(newline + 1));
    if (before != "#" && !(before.starts_with('#') && util::trim(before.substr(1)).empty())) {
      continue;  // not a #define directive
    }
    std::size_t end = at + 7;  // the name starts after "define "
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
      ++end;
    }
    if (end < text.size() && text[end] == '(' && names.size() < 1000) {
      names.emplace_back(text.substr(at + 7, end - at - 7));
    }
  }
  return names;
}

void drop_mapped(std::vector<CodeFinding>& findings, const std::vector<std::string>& names,
                 const CodeRules& rules) {
  if (names.empty()) {
    return;
  }
  const auto mapped = [&](const CodeFinding& finding) {
    const CodePattern* rule = rules.rule(finding.pattern);
    if (rule == nullptr || !rule->unless_mapped) {
      return false;
    }
    std::size_t end = 0;
    while (end < finding.text.size() &&
           (std::isalnum(static_cast<unsigned char>(finding.text[end])) != 0 ||
            finding.text[end] == '_')) {
      ++end;
    }
    return std::find(names.begin(), names.end(), finding.text.substr(0, end)) != names.end();
  };
  findings.erase(std::remove_if(findings.begin(), findings.end(), mapped), findings.end());
}

std::vector<std::string> ignored_ids(std::string_view line, bool file_wide) {
  const std::string_view marker = file_wide ? "rocdoc: ignore-file[" : "rocdoc: ignore[";
  std::vector<std::string> ids;
  for (std::size_t at = line.find(marker); at != std::string_view::npos;
       at = line.find(marker, at + 1)) {
    const std::size_t start = at + marker.size();
    const std::size_t end = line.find(']', start);
    if (end == std::string_view::npos) {
      break;
    }
    for (const auto part : util::split(line.substr(start, end - start), ',')) {
      const std::string_view id = util::trim(part);
      if (!id.empty()) {
        ids.emplace_back(id);
      }
    }
  }
  return ids;
}

std::string code_fingerprint(std::string_view id, std::string_view path, std::string_view line_text,
                             std::size_t occurrence) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bits
  const auto add = [&](std::string_view part) {
    for (const char c : part) {
      hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    hash = (hash ^ 0xffu) * 1099511628211ull;  // a separator no text byte of UTF-8 holds
  };
  add(id);
  add(path);
  add(line_text);
  add(std::to_string(occurrence));
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) {
    out[static_cast<std::size_t>(i)] = k_hex[hash & 0xfu];
  }
  return out;
}

}  // namespace rocdoc
