// .gitignore files as git reads them (gitignore(5)), for the source scan's walk: a file's lines
// become rules relative to its directory, and a stack of such files gives a path's verdict, the
// last rule that matches deciding. Parsers take strings; nothing here reads a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc {

struct IgnoreRule {
  std::string pattern;  ///< without its "!", leading "/" and trailing "/"
  std::string base;     ///< the .gitignore's directory from the tree's root: "" or "src/cuda/"
  bool negate = false;  ///< "!pattern": re-includes what an earlier rule ignored
  bool directory_only = false;  ///< "pattern/": matches directories only
  /// A slash before its end: matched against the path from `base`, else against the last part.
  bool anchored = false;
};

/// The rules of one .gitignore (or .git/info/exclude) in the directory `base` ("" or "a/b/"):
/// blank lines and "#" comments dropped, "\#" and "\!" literal, unescaped trailing spaces cut.
std::vector<IgnoreRule> parse_ignore_file(std::string_view content, std::string_view base);

enum class PathKind { file, directory };

/// What the rules say of `path` (from the tree's root, no leading or trailing "/"): true when
/// ignored, false when a negation re-includes it, nullopt when no rule matches. Rules are in
/// the order git reads them: outer files first, each file's lines in order.
std::optional<bool> ignore_verdict(const std::vector<IgnoreRule>& rules, std::string_view path,
                                   PathKind kind);

/// git's wildmatch with WM_PATHNAME: `*` and `?` never match "/", `[a-z]` and `[!a-z]` are one
/// character, "**/" and "/**/" match any directories (none included), a final "/**" anything
/// below, and `\x` is x.
bool gitignore_glob(std::string_view pattern, std::string_view path);

}  // namespace rocdoc
