// docs/rocdoc.1.md → rocdoc.1: the man page's Markdown subset turned into roff (man macros),
// at build time, so the page has one source (rocdoc_manc, src/man/compiler.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace rocdoc {

/// A construct outside the subset, or unbalanced emphasis: "line 12: what".
class ManPageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Converts the Markdown subset of docs/rocdoc.1.md to roff: a title line
/// `% NAME(SECTION) footer | header`, `#`/`##` headings (.SH/.SS), paragraphs (.PP),
/// `**bold**` and `*italic*` (\fB, \fI; `_` is never emphasis), CommonMark backslash escapes and
/// hard line breaks (`\` at the end of a line: .br), definition lists (a term line, then `:   `
/// and lines indented by four: .TP, further paragraphs indented by four: .IP), code blocks
/// indented by four (eight inside a definition: .nf/.fi), and pipe tables (as no-fill text).
/// Text is escaped for roff: `\` as \e, `-` as \-, a leading `.` or `'` behind \&, non-ASCII
/// as \[uXXXX]. `version` replaces the footer's version ("rocdoc" → "rocdoc 0.1.0"); `date`
/// is the .TH date. Throws ManPageError on anything else (a fenced block, a list, a link).
std::string markdown_to_roff(std::string_view markdown, std::string_view version,
                             std::string_view date);

}  // namespace rocdoc
