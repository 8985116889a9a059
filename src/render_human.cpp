// The human report: grouped by area, a glyph per check, fixes under each problem. Every text
// that comes from the inspected machine or the rules passes through util::printable(), so
// control characters and line breaks in it are shown escaped, never sent to the terminal.
#include <fmt/format.h>

#include "rocdoc/render.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

struct Style {
  Color color;
  std::string paint(std::string_view text, std::string_view code) const {
    if (color == Color::off) {
      return std::string(text);
    }
    return fmt::format("\033[{}m{}\033[0m", code, text);
  }
};

constexpr std::string_view k_red = "31";
constexpr std::string_view k_yellow = "33";
constexpr std::string_view k_green = "32";
constexpr std::string_view k_cyan = "36";
constexpr std::string_view k_dim = "2";
constexpr std::string_view k_bold = "1";

std::string glyph(const CheckResult& result, const Style& style) {
  switch (result.status) {
    case Status::pass:
      return style.paint("✓", k_green);
    case Status::fail:
      return style.paint("✗", k_red);
    case Status::skip:
      return style.paint("-", k_dim);
    case Status::warn:
      break;
  }
  return result.severity == Severity::info ? style.paint("•", k_cyan) : style.paint("!", k_yellow);
}

std::string plural(int count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

void render_header(const Report& report, std::ostream& out, const Style& style,
                   Verbosity verbosity) {
  std::string where = report.host_kind == HostKind::live
                          ? "this machine"
                          : "snapshot " + util::printable(report.host_origin);
  if (report.facts.system) {
    const auto& os = report.facts.system->os_release;
    const auto name = os.find("PRETTY_NAME");
    where += fmt::format(" · {} · kernel {}",
                         name != os.end() ? util::printable(name->second) : "unknown OS",
                         util::printable(report.facts.system->uname.release));
  }
  out << style.paint(fmt::format("rocdoc {}", report.tool_version), k_bold) << " · " << where
      << "\n";
  if (verbosity == Verbosity::verbose) {
    out << fmt::format("rules: {} (revision {})\n", util::printable(report.rules_origin),
                       util::printable(report.rules_revision));
  }
  for (const auto& note : report.notes) {
    out << style.paint("note:", k_bold) << " " << util::printable(note) << "\n";
  }
}

void render_evidence(const CheckResult& result, std::ostream& out, const Style& style) {
  for (const auto& line : result.evidence) {
    out << "      " << style.paint(util::printable(line), k_dim) << "\n";
  }
}

void render_problem_details(const CheckResult& result, std::ostream& out, const Style& style) {
  render_evidence(result, out, style);
  for (const auto& fix : result.fix) {
    out << "      " << style.paint("fix:", k_bold) << " " << util::printable(fix.description)
        << "\n";
    if (!fix.command.empty()) {
      out << "        " << util::printable(fix.command) << "\n";
    }
  }
}

void render_notes(const Report& report, std::ostream& out, const Style& style) {
  for (const auto& probe : report.probes) {
    if (!probe.ok) {
      out << style.paint("☠", k_red) << " probe " << util::printable(probe.name)
          << " failed: " << util::printable(probe.error) << " (checks that need it are skipped)\n";
    }
  }
  if (report.facts.pci && report.facts.pci->names_problem) {
    out << style.paint("•", k_cyan) << " PCI names: libpci is not available ("
        << util::printable(*report.facts.pci->names_problem)
        << "); AMD names come from rocdoc's own table\n";
  }
}

}  // namespace

void render_human(const Report& report, std::ostream& out, Color color, Verbosity verbosity) {
  const Style style{color};
  render_header(report, out, style, verbosity);
  std::string_view area;
  for (const auto& record : report.checks) {
    const CheckResult& result = record.result;
    if (result.status == Status::skip && verbosity != Verbosity::verbose) {
      continue;
    }
    if (record.info->area != area) {
      area = record.info->area;
      out << "\n" << style.paint(area, k_bold) << "\n";
    }
    out << "  " << glyph(result, style) << " " << record.info->id << "  "
        << util::printable(result.message) << "\n";
    const bool problem = result.status == Status::fail || result.status == Status::warn;
    if (problem) {
      render_problem_details(result, out, style);
    } else if (verbosity == Verbosity::verbose) {
      render_evidence(result, out, style);
    }
  }
  out << "\n";
  render_notes(report, out, style);
  const Summary summary = report.summary();
  std::vector<std::string> parts;
  if (summary.errors > 0) {
    parts.push_back(style.paint(plural(summary.errors, "error"), k_red));
  }
  if (summary.warnings > 0) {
    parts.push_back(style.paint(plural(summary.warnings, "warning"), k_yellow));
  }
  if (summary.notices > 0) {
    parts.push_back(plural(summary.notices, "notice"));
  }
  if (summary.errors == 0 && summary.warnings == 0) {
    parts.insert(parts.begin(), style.paint("No issues found", k_green));
  }
  std::string line = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    line += ", " + parts[i];
  }
  line +=
      fmt::format(" ({} passed, {} skipped{})", summary.passed, summary.skipped,
                  summary.skipped > 0 && verbosity != Verbosity::verbose ? "; -v shows why" : "");
  out << line << "\n";
}

}  // namespace rocdoc
