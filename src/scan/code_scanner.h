// The code.* patterns of rules/code_patterns.yaml compiled once per scan, and one file's text
// judged with them: the kind's patterns in one pass over the raw text (most files end there,
// with nothing found), then, for a file where something occurs, again over the text without
// comments, each match weighed against its pattern's `unless_*` expressions, the preprocessor
// branch it sits in (C/C++) and the file's `rocdoc: ignore[code.x]` comments.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/code_scan.h"
#include "rocdoc/knowledge.h"
#include "src/scan/file_kind.h"
#include "src/scan/pattern_set.h"

namespace re2 {
class RE2;
}

namespace rocdoc {

/// A pattern of the rules with its `unless_*` expressions compiled.
struct CompiledCodePattern {
  const CodePattern* rule = nullptr;
  std::unique_ptr<re2::RE2> unless_line;
  std::unique_ptr<re2::RE2> unless_file;
  std::unique_ptr<re2::RE2> unless_branch;

  CompiledCodePattern();
  CompiledCodePattern(CompiledCodePattern&&) noexcept;
  CompiledCodePattern& operator=(CompiledCodePattern&&) noexcept;
  ~CompiledCodePattern();
};

class CodeRules {
 public:
  /// Compiles the knowledge base's code patterns for each file kind. Throws std::runtime_error
  /// when they do not compile (the loader has already refused each one that does not).
  explicit CodeRules(const Knowledge& knowledge);
  CodeRules(const CodeRules&) = delete;
  CodeRules& operator=(const CodeRules&) = delete;
  ~CodeRules();

  /// Whether the rules' `cuda_only_paths` say only a CUDA build compiles the file at `path`.
  bool cuda_only_path(std::string_view path) const;

  /// The one-pass matcher of a kind's patterns; null when no pattern applies to the kind.
  const PatternSet* matcher(SourceKind kind) const;
  /// The pattern behind match `index` of matcher(kind).
  const CompiledCodePattern& pattern(SourceKind kind, std::size_t index) const;
  const CodePlatformMacros& macros() const { return *m_macros; }
  /// The rule of a pattern name; null when none has it.
  const CodePattern* rule(std::string_view name) const;

 private:
  struct KindRules {
    std::unique_ptr<PatternSet> matcher;
    std::vector<CompiledCodePattern> patterns;
  };
  std::vector<KindRules> m_kinds;  ///< indexed by SourceKind
  std::vector<std::unique_ptr<re2::RE2>> m_cuda_only_paths;
  const CodePlatformMacros* m_macros;
  const std::vector<CodePattern>* m_patterns;
};

/// What one file holds.
struct FileScan {
  std::vector<CodeFinding> findings;  ///< by line, column, id
  std::uint64_t suppressed_inline = 0;
  /// The matcher stopped early (a limit of matches, or memory): findings may be missing.
  bool complete = true;
  /// The function-like macros named like CUDA builtins ("__shfl_xor_sync") a C/C++ file
  /// defines: a table mapping CUDA names to HIP, for the patterns with `unless_mapped`.
  std::vector<std::string> mapped_names;
};

/// The findings of one file: `path` from the tree's root, `text` its bytes, `kind` its kind.
FileScan scan_file_text(std::string_view path, std::string_view text, SourceKind kind,
                        const CodeRules& rules);

/// The names of function-like macros starting with "__" that a C/C++ text defines
/// ("#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)").
std::vector<std::string> mapped_names(std::string_view text);

/// The tree's findings without those of `unless_mapped` patterns whose name (the identifier the
/// matched text starts with) is in `names`.
void drop_mapped(std::vector<CodeFinding>& findings, const std::vector<std::string>& names,
                 const CodeRules& rules);

/// The ids a `rocdoc: ignore[code.a, code.b]` comment of `line` names ("ignore-file" when
/// `file_wide`); empty when it holds none.
std::vector<std::string> ignored_ids(std::string_view line, bool file_wide = false);

/// A finding's fingerprint (CodeFinding::fingerprint): 16 hex digits.
std::string code_fingerprint(std::string_view id, std::string_view path, std::string_view line_text,
                             std::size_t occurrence);

}  // namespace rocdoc
