// What the source scan found in a tree (rocdoc scan DIR, check --scan DIR): plain data, which
// the code.* checks judge, the Report carries as a fact, and the scan's renderers format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocdoc/check_result.h"

namespace rocdoc {

/// One line of code that assumes CUDA, and what to write instead (rules/code_patterns.yaml).
struct CodeFinding {
  std::string id;       ///< "code.warp-size"
  std::string pattern;  ///< the rule's pattern name ("sync-mask-32-bit")
  Severity severity = Severity::warning;
  std::string path;  ///< from the scanned tree's root, "/"-separated
  std::size_t line = 0;
  std::size_t column = 0;      ///< 1-based, in bytes
  std::size_t end_column = 0;  ///< one past the match's last byte, on the same line
  std::string text;            ///< what matched (at most 200 bytes)
  std::string line_text;       ///< the whole line, trimmed (at most 300 bytes)
  std::string what;            ///< what happens on ROCm
  std::string replacement;
  std::vector<std::string> sources;
  /// Stable while the line moves: the id, the path, the line's text without its spacing,
  /// and which occurrence of that text it is (a baseline file holds these).
  std::string fingerprint;
};

/// A path the scan did not read, and why.
struct CodeSkip {
  std::string path;
  std::string why;
};

struct CodeScanFacts {
  std::string root;                   ///< the directory as given
  std::vector<CodeFinding> findings;  ///< by path, line, column, id
  std::uint64_t files_scanned = 0;
  std::uint64_t bytes_scanned = 0;
  std::uint64_t suppressed_inline = 0;  ///< findings a `rocdoc: ignore[id]` comment silenced
  std::uint64_t baselined = 0;          ///< findings the --baseline file already held
  std::vector<CodeSkip> skipped;
  /// The walk stopped at its limit of entries: files beyond were not scanned.
  bool truncated = false;
};

}  // namespace rocdoc
