// Markdown (CommonMark, with GitHub's tables) that no value can break: what
// render_markdown() and `rocdoc explain --format markdown` put values from the inspected
// machine (or a --rules directory) through.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocdoc::markdown {

/// The longest run of consecutive backticks in `text` (0 when it has none).
std::size_t longest_backtick_run(std::string_view text);

/// `raw` as inline text that shows exactly util::printable(raw) and nothing else: every
/// character that could start emphasis, a link, a code span, raw HTML, an entity, a table cell
/// or (at its start) a heading, list, quote or code block is escaped (`\*`, `\|`, `&lt;`,
/// `&amp;`, `&#32;` for leading spaces…); it holds no line break. Safe in a paragraph, a list
/// item, a heading and a table cell.
std::string text(std::string_view raw);

/// `raw` as a code span, delimited by more backticks than any run inside it; for a value that
/// reads better as code (a path, a version). Not for table cells: a `|` in a code span still
/// splits a GitHub table cell.
std::string code(std::string_view raw);

/// A fenced code block of `lines` (each made printable: one line each), opened and closed by
/// more backticks than any run inside it (at least three), with `info` ("sh", "json") after
/// the opening fence. Ends with a line break.
std::string fence(const std::vector<std::string>& lines, std::string_view info = {});

}  // namespace rocdoc::markdown
