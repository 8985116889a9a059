// `--help` laid out for the terminal it is read on: CLI11's layout (options in their groups,
// a left column of names), with every description, the command's own text and its footer
// wrapped at the terminal's width with hanging indentation instead of running past it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace rocdoc {

class HelpFormatter final : public CLI::Formatter {
 public:
  /// `width` 0: no wrapping (help written to a file or a pipe, as CLI11 writes it).
  explicit HelpFormatter(std::size_t width);

  std::string make_option(const CLI::Option* option, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* command) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  /// "  NAME   description…": the description wrapped in the right column.
  std::string row(const std::string& name, const std::string& description) const;
  /// Paragraphs wrapped at the width; lines that start with a space (examples, lists) are
  /// kept as they are.
  std::string paragraphs(const std::string& text) const;
  /// An indented row ("  1  what exit 1 means"), continued under its text.
  std::string list_row(std::string_view line) const;

  std::size_t m_width;
};

}  // namespace rocdoc
