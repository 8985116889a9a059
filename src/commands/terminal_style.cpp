#include "src/commands/terminal_style.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rocdoc/env_allowlist.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// Reads a variable that steers rocdoc's own output; only allow-listed names.
std::optional<std::string> tool_env(std::string_view name) {
  if (!is_allowed_env(name) || !is_tool_env(name)) {
    return std::nullopt;
  }
  const char* value = std::getenv(std::string(name).c_str());
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

}  // namespace

Color choose_color(ColorFlag flag, OutputIsTerminal terminal) {
  const auto no_color = tool_env("NO_COLOR");
  if (flag == ColorFlag::no_color || (no_color && !no_color->empty())) {
    return Color::off;
  }
  const auto force = tool_env("CLICOLOR_FORCE");
  if (force && !force->empty() && *force != "0") {
    return Color::on;
  }
  const auto term = tool_env("TERM");
  if (terminal == OutputIsTerminal::no || (term && *term == "dumb")) {
    return Color::off;
  }
  return Color::on;
}

/// Unicode glyphs only under a UTF-8 locale: LC_ALL, else LC_CTYPE, else LANG (the first set
/// and not empty, as setlocale(3) picks), read through the allow-list rather than with
/// setlocale()/nl_langinfo(): rocdoc's process stays in the C locale, and no locale data has
/// to be installed for the answer. Unset, C, POSIX or another charset: ASCII.
Glyphs choose_glyphs() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const auto value = tool_env(name);
    if (value && !value->empty()) {
      return text::locale_is_utf8(*value) ? Glyphs::unicode : Glyphs::ascii;
    }
  }
  return Glyphs::ascii;
}

/// The columns the human report wraps at: COLUMNS when it is a positive number (terminal or
/// not); else the terminal's width, or 80 when a terminal tells none; else (a pipe, a file)
/// 0: no wrapping.
std::size_t choose_width(OutputIsTerminal terminal, std::optional<std::size_t> terminal_columns) {
  if (const auto columns = tool_env("COLUMNS")) {
    if (const auto number = util::parse_number<std::uint16_t>(util::trim(*columns));
        number && *number > 0) {
      return *number;
    }
  }
  if (terminal == OutputIsTerminal::no) {
    return 0;
  }
  return terminal_columns.value_or(0) > 0 ? *terminal_columns : 80;
}
}  // namespace rocdoc
