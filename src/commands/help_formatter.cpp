#include "src/commands/help_formatter.h"

#include <string>
#include <vector>

#include "src/render/text_layout.h"
#include "src/util/strings.h"

namespace rocdoc {

HelpFormatter::HelpFormatter(std::size_t width) : m_width(width) {}

std::string HelpFormatter::row(const std::string& name, const std::string& description) const {
  const std::size_t column = get_column_width();
  std::string out = "  " + name;
  if (description.empty()) {
    return out + "\n";
  }
  if (text::display_width(out) >= column) {
    out += "\n" + std::string(column, ' ');
  } else {
    out += std::string(column - text::display_width(out), ' ');
  }
  const std::size_t room = m_width > column ? m_width - column : 0;
  std::vector<std::string> lines;
  for (const auto paragraph : util::split(description, '\n')) {
    for (auto& line : text::wrap(paragraph, room, room)) {
      lines.push_back(std::move(line));
    }
  }
  return out + util::join(lines, "\n" + std::string(column, ' ')) + "\n";
}

std::string HelpFormatter::list_row(std::string_view line) const {
  // "  1  a finding reached …": continued under the text after the label (the first run of
  // two spaces), or under the indentation when there is no short label.
  const std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) {
    return std::string(line);
  }
  std::size_t hang = indent;
  if (const std::size_t gap = line.find("  ", indent); gap != std::string_view::npos) {
    const std::size_t text_at = line.find_first_not_of(' ', gap);
    if (text_at != std::string_view::npos && text_at - indent <= 12) {
      hang = text_at;
    }
  }
  const std::size_t room = m_width > hang ? m_width - hang : 0;
  return std::string(line.substr(0, hang)) +
         util::join(text::wrap(line.substr(hang), room, room), "\n" + std::string(hang, ' '));
}

std::string HelpFormatter::paragraphs(const std::string& text) const {
  if (m_width == 0) {
    return text;
  }
  std::string out;
  for (const auto line : util::split(text, '\n')) {
    if (!out.empty()) {
      out += '\n';
    }
    if (!line.empty() && line.front() == ' ') {
      out += list_row(line);
      continue;
    }
    out += util::join(text::wrap(line, m_width, m_width), "\n");
  }
  return out;
}

std::string HelpFormatter::make_option(const CLI::Option* option, bool is_positional) const {
  if (m_width == 0) {
    return CLI::Formatter::make_option(option, is_positional);
  }
  return row(make_option_name(option, is_positional) + make_option_opts(option),
             make_option_desc(option));
}

std::string HelpFormatter::make_subcommand(const CLI::App* command) const {
  if (m_width == 0) {
    return CLI::Formatter::make_subcommand(command);
  }
  return row(command->get_display_name(true), command->get_description());
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return paragraphs(CLI::Formatter::make_description(app));
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  return paragraphs(CLI::Formatter::make_footer(app));
}

}  // namespace rocdoc
