// A source file's text with its comments blanked, so that a pattern never matches a comment
// ("// nvidia-smi shows …") while every offset, line and column stays where it was. String
// literals are kept: PTX lives in asm strings, "nvidia-smi" in a subprocess's arguments.
#pragma once

#include <string>
#include <string_view>

namespace rocdoc {

enum class CommentSyntax {
  c_like,  ///< // to the line's end, /* … */; "…" and '…' literals with backslash escapes
  hash,    ///< # to the line's end where it starts a word, outside '…' and "…" on its line
};

/// The text with each byte of a comment replaced by a space; line ends are kept.
std::string without_comments(std::string_view text, CommentSyntax syntax);

}  // namespace rocdoc
