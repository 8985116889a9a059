// Renderers: a Report (rocdoc/report.h) to text. They only format; they read nothing else.
#pragma once

#include <cstddef>
#include <ostream>

#include "rocdoc/report.h"

namespace rocdoc {

enum class Color { off, on };
enum class Verbosity { normal, verbose };
/// The glyphs of the human report: Unicode (✓ ✗ ! • · ☠), or ASCII ([ok] [FAIL] [warn] [info]
/// -) for a terminal whose locale is not UTF-8, where all text is then made ASCII.
enum class Glyphs { unicode, ascii };

/// How the human report is laid out (the CLI decides each from the terminal and environment).
struct HumanOptions {
  Color color = Color::off;
  Verbosity verbosity = Verbosity::normal;
  /// Columns to wrap at, with hanging indentation; 0: no wrapping (a pipe or a file). Fix
  /// commands are never wrapped, so that a copy of the line still runs.
  std::size_t width = 0;
  Glyphs glyphs = Glyphs::unicode;
};

/// The report for people: an inventory, the checks grouped by area (areas with nothing wrong
/// in one line, unless verbose), each root cause with its fixes once and the findings that
/// follow from it under it, and a summary line. docs/rocdoc.1.md, "Reading the report".
void render_human(const Report& report, std::ostream& out, const HumanOptions& options);
/// render_human with Unicode glyphs and no wrapping.
inline void render_human(const Report& report, std::ostream& out, Color color,
                         Verbosity verbosity) {
  render_human(report, out, HumanOptions{color, verbosity, 0, Glyphs::unicode});
}
void render_json(const Report& report, std::ostream& out);
/// Markdown for a GitHub issue or a ticket (docs/rocdoc.1.md, --format markdown): the verdict,
/// the inventory (GPUs as a table), a summary, each root cause once with its evidence, fixes
/// as fenced `sh` blocks and what follows from it, the notes, every check (collapsed) and the
/// facts as JSON in a collapsed <details> block. Every value is escaped (src/markdown_text.h).
void render_markdown(const Report& report, std::ostream& out);
/// JUnit XML (docs/rocdoc.1.md, --junit): one testcase per check; a finding is a <failure>
/// exactly when it counts under the report's --fail-on (report.outcome), as the exit code does.
void render_junit(const Report& report, std::ostream& out);

}  // namespace rocdoc
