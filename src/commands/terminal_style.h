// How the human report looks where it is written: colour, glyphs and width, chosen from the
// terminal and the allow-listed variables that steer rocdoc's own output (NO_COLOR,
// CLICOLOR_FORCE, TERM, COLUMNS, the locale).
#pragma once

#include <cstddef>
#include <optional>

#include "rocdoc/render.h"
#include "src/commands/cli.h"

namespace rocdoc {

enum class ColorFlag { none, no_color };  ///< --no-color given or not

Color choose_color(ColorFlag flag, OutputIsTerminal terminal);
Glyphs choose_glyphs();
std::size_t choose_width(OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns);

}  // namespace rocdoc
