#include "src/render/triage.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/render/fix_json.h"
#include "src/render/markdown_fixes.h"
#include "src/render/markdown_text.h"
#include "src/render/page.h"
#include "src/render/text_layout.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// "gfx1031 (line 12), gfx1036 (line 40)".
std::string fact_list(const std::vector<LogFact>& facts) {
  std::vector<std::string> parts;
  for (const auto& fact : facts) {
    parts.push_back(fmt::format("{}{} (line {})", fact.name.empty() ? "" : fact.name + "=",
                                util::printable(fact.value), fact.line));
  }
  return util::join(parts, ", ");
}

std::string fact_one(const LogFact& fact) {
  return fmt::format("{} (line {})", util::printable(fact.value), fact.line);
}

/// The facts as "label: value" lines.
std::vector<std::pair<std::string, std::string>> fact_rows(const LogFacts& facts) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!facts.gfx_targets.empty()) {
    rows.emplace_back("GPU targets", fact_list(facts.gfx_targets));
  }
  if (!facts.gpu_names.empty()) {
    rows.emplace_back("GPUs", fact_list(facts.gpu_names));
  }
  if (facts.torch) {
    rows.emplace_back(
        "torch", fact_one(*facts.torch) + (facts.torch_build
                                               ? ", " + std::string(build_words(*facts.torch_build))
                                               : std::string()));
  } else if (facts.torch_build && facts.torch_build_evidence) {
    rows.emplace_back("torch", fmt::format("{} (line {})", build_words(*facts.torch_build),
                                           facts.torch_build_evidence->line));
  }
  if (facts.torchvision) {
    rows.emplace_back("torchvision", fact_one(*facts.torchvision));
  }
  if (facts.torchaudio) {
    rows.emplace_back("torchaudio", fact_one(*facts.torchaudio));
  }
  if (facts.rocm) {
    rows.emplace_back("ROCm/HIP", fact_one(*facts.rocm));
  }
  if (!facts.overrides.empty()) {
    rows.emplace_back("overrides", fact_list(facts.overrides));
  }
  if (facts.container) {
    rows.emplace_back("container", fact_one(*facts.container));
  }
  if (facts.site_packages) {
    rows.emplace_back("torch in", fact_one(*facts.site_packages));
  }
  if (facts.nvidia_gpu) {
    rows.emplace_back("NVIDIA GPU", fact_one(*facts.nvidia_gpu));
  }
  if (facts.python) {
    rows.emplace_back("Python", fact_one(*facts.python));
  }
  if (!facts.packages.empty()) {
    rows.emplace_back(
        "packages",
        fmt::format("{}{} listed (first on line {})", facts.packages.size(),
                    facts.packages_left_out == 0
                        ? std::string()
                        : fmt::format(" (and {} more rows, not read)", facts.packages_left_out),
                    facts.packages.front().line));
  }
  if (!facts.tools.empty()) {
    rows.emplace_back("outputs of", fact_list(facts.tools));
  }
  return rows;
}

std::string lines_summary(const TriageReport& report) {
  return fmt::format(
      "{} line{}{}", report.scan.lines, report.scan.lines == 1 ? "" : "s",
      report.scan.cut_lines == 0
          ? ""
          : fmt::format(", {} cut at {} bytes", report.scan.cut_lines, k_max_triage_line));
}

/// What a text with no finding is said to show: nothing known wrong in it, what it did not
/// hold (so was not judged), and that the machine itself was not judged (issue 27 §3).
std::vector<std::string> nothing_known(const TriageReport& report, bool no_facts) {
  std::vector<std::string> paragraphs;
  paragraphs.push_back(fmt::format(
      "Nothing known is wrong in this text: no line matches one of the {} signatures{}.",
      report.signatures,
      no_facts ? ", and it holds no fact rocdoc check could judge"
               : ", and rocdoc check finds nothing wrong with the facts found above"));
  if (report.scan.facts.tools.empty()) {
    paragraphs.push_back(
        "No tool's output recognised (triage reads collect_env, rocminfo, amd-smi, rocm-smi, "
        "pip freeze and pip list, lspci -nn, dmesg, Python tracebacks and container errors).");
  }
  std::vector<std::string> missing;
  for (const auto& item : report.not_in_log) {
    missing.push_back(item.what);
  }
  if (!missing.empty()) {
    paragraphs.push_back("Not in the text, so not judged: " + util::join(missing, "; ") + ".");
  }
  paragraphs.push_back(
      "This is no all-clear for the machine: rocdoc check there judges the driver, the "
      "permissions and what is installed.");
  return paragraphs;
}

std::pair<int, int> counts(const TriageReport& report) {
  int errors = 0;
  int others = 0;
  for (const auto& finding : report.findings) {
    (finding.severity == Severity::error ? errors : others) += 1;
  }
  return {errors, others};
}

}  // namespace

void render_triage_human(const TriageReport& report, const TriageContext& context,
                         std::ostream& out) {
  // The dialect of the check report (src/render/page.h): its glyphs, colours, wrapping, the
  // message first with the check id after it, lower-case "fix:", commands indented under it.
  Page page(out, context.human);
  const std::string title = page.own("rocdoc triage");
  page.paragraph(page.paint(title, k_bold), text::display_width(title),
                 page.own(fmt::format("{}{} ({}; rules revision {})", page.separator(),
                                      page.clean(context.input), lines_summary(report),
                                      page.clean(context.rules_revision))),
                 2);
  const auto rows = fact_rows(report.scan.facts);
  if (!rows.empty()) {
    page.blank();
    page.paragraph(page.paint(page.own("Found in the log"), k_bold), 16, "", 2);
    for (const auto& [label, value] : rows) {
      const std::string lead = fmt::format("  {:<13}", label + ":");
      page.paragraph(lead, lead.size(), page.clean(value), 2 + 13);
    }
  }
  constexpr std::size_t k_text = 4;  // where a finding's evidence and fixes start
  for (const auto& finding : report.findings) {
    page.blank();
    const Mark mark = finding.status == Status::fail       ? Mark::fail
                      : finding.severity == Severity::info ? Mark::notice
                                                           : Mark::warn;
    page.paragraph(page.glyph(mark) + " ", page.glyph_columns() + 1, page.clean(finding.message),
                   page.glyph_columns() + 1, {}, "[" + finding.check + "]");
    for (const auto& line : finding.lines) {
      page.indented(k_text, page.own(fmt::format("line {}: ", line.number)) + page.clean(line.text),
                    k_dim);
    }
    if (finding.matched_lines > finding.lines.size() && !finding.signatures.empty()) {
      page.indented(k_text, fmt::format("({} matching lines in all)", finding.matched_lines),
                    k_dim);
    }
    const bool alternatives = finding.fix_order == FixOrder::alternatives && finding.fix.size() > 1;
    for (std::size_t i = 0; i < finding.fix.size(); ++i) {
      const auto& fix = finding.fix[i];
      const std::string label = i == 0 ? (alternatives ? "fix, any one of: " : "fix: ")
                                       : (alternatives ? "or: " : "then: ");
      page.paragraph(std::string(k_text, ' ') + page.paint(label, k_bold), k_text + label.size(),
                     page.clean(fix.description), k_text + label.size());
      if (!fix.command.empty()) {
        page.whole(k_text + 2, page.clean(fix.command));
      }
    }
    if (!finding.fix.empty() && !finding.fix_from_facts && !finding.signatures.empty()) {
      page.indented(k_text,
                    page.own("(run rocdoc check on the machine for the fix that fits it "
                             "exactly)"),
                    k_dim);
    }
    if (!finding.signatures.empty()) {
      page.indented(k_text, "signatures: " + util::join(finding.signatures, ", "), k_dim);
    }
    if (!finding.sources.empty()) {
      page.indented(k_text, "seen in: " + page.clean(util::join(finding.sources, " ; ")), k_dim);
    }
  }
  const auto [errors, others] = counts(report);
  page.blank();
  if (report.findings.empty()) {
    for (const auto& paragraph : nothing_known(report, rows.empty())) {
      page.indented(0, page.own(paragraph));
    }
  } else {
    page.indented(
        0,
        page.own(fmt::format("{} problem{} recognised: {} error{}, {} warning{}",
                             report.findings.size(), report.findings.size() == 1 ? "" : "s", errors,
                             errors == 1 ? "" : "s", others, others == 1 ? "" : "s")),
        errors > 0 ? k_red : k_yellow);
  }
}

void render_triage_json(const TriageReport& report, const TriageContext& context,
                        std::ostream& out) {
  using json = nlohmann::ordered_json;
  const auto fact = [](const std::optional<LogFact>& value) {
    return value ? json{{"value", value->value}, {"line", value->line}} : json(nullptr);
  };
  const auto facts_list = [](const std::vector<LogFact>& values) {
    json list = json::array();
    for (const auto& value : values) {
      list.push_back({{"value", value.value}, {"line", value.line}});
    }
    return list;
  };
  const LogFacts& facts = report.scan.facts;
  json overrides = json::array();
  for (const auto& value : facts.overrides) {
    overrides.push_back({{"variable", value.name}, {"value", value.value}, {"line", value.line}});
  }
  json packages = json::array();
  for (const auto& package : facts.packages) {
    packages.push_back(
        {{"name", package.name}, {"version", package.value}, {"line", package.line}});
  }
  json not_in_log = json::array();
  for (const auto& item : report.not_in_log) {
    not_in_log.push_back({{"id", item.id}, {"what", item.what}});
  }
  json findings = json::array();
  for (const auto& finding : report.findings) {
    json lines = json::array();
    for (const auto& line : finding.lines) {
      lines.push_back({{"number", line.number}, {"text", line.text}});
    }
    json fixes = json::array();
    for (const auto& fix : finding.fix) {
      fixes.push_back(fix_json(fix));
    }
    json evidence = json::array();
    for (const auto& line : finding.lines) {
      evidence.push_back(fmt::format("line {}: {}", line.number, line.text));
    }
    // The check report's keys first, in its order (docs/report.schema.json), then triage's.
    findings.push_back({{"id", finding.check},
                        {"area", finding.area},
                        {"title", finding.title},
                        {"status", to_string(finding.status)},
                        {"severity", to_string(finding.severity)},
                        {"message", finding.message},
                        {"evidence", evidence},
                        {"fix", fixes},
                        {"fix_order", to_string(finding.fix_order)},
                        {"caused_by", json::array()},
                        {"verify", "rocdoc check --only " + finding.check},
                        {"lines", lines},
                        {"matched_lines", finding.matched_lines},
                        {"signatures", finding.signatures},
                        {"fix_from", finding.fix_from_facts ? "facts" : "rules"},
                        {"sources", finding.sources}});
  }
  const auto [errors, others] = counts(report);
  const json document = {
      {"schema", "rocdoc-triage/1"},
      {"tool", {{"name", "rocdoc"}, {"version", ROCDOC_VERSION}}},
      {"rules", {{"origin", context.rules_origin}, {"revision", context.rules_revision}}},
      {"input",
       {{"name", context.input},
        {"bytes", report.scan.bytes},
        {"lines", report.scan.lines},
        {"cut_lines", report.scan.cut_lines}}},
      {"exit_code", triage_exit_code(report, context.fail_on)},
      {"facts",
       {{"gfx_targets", facts_list(facts.gfx_targets)},
        {"gpu_names", facts_list(facts.gpu_names)},
        {"torch", fact(facts.torch)},
        {"torch_build", facts.torch_build ? json(to_string(*facts.torch_build)) : json(nullptr)},
        {"torchvision", fact(facts.torchvision)},
        {"torchaudio", fact(facts.torchaudio)},
        {"rocm", fact(facts.rocm)},
        {"overrides", overrides},
        {"site_packages", fact(facts.site_packages)},
        {"container", fact(facts.container)},
        {"tools", facts_list(facts.tools)},
        {"python", fact(facts.python)},
        {"packages", packages},
        {"packages_left_out", facts.packages_left_out},
        {"nvidia_gpu", fact(facts.nvidia_gpu)}}},
      {"signatures", report.signatures},
      {"not_in_log", not_in_log},
      {"summary", {{"errors", errors}, {"warnings", others}}},
      {"findings", findings},
  };
  out << document.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

void render_triage_markdown(const TriageReport& report, const TriageContext& context,
                            std::ostream& out) {
  // The check report's Markdown (src/render/markdown.cpp): a heading with the verdict, one line
  // of what made it, then each problem as "### N. `id` (severity)", its lines in a fence, its
  // fixes as check writes them and "**Verify:**"; every value through markdown_text.h.
  namespace md = markdown;
  const auto [errors, others] = counts(report);
  const int exit_code = triage_exit_code(report, context.fail_on);
  const std::size_t problems = report.findings.size();
  const std::string verdict =
      problems == 0 ? std::string("nothing known is wrong in this text")
                    : fmt::format("{} ({} problem{})", exit_code == 0 ? "pass" : "fail", problems,
                                  problems == 1 ? "" : "s");
  out << "# rocdoc triage: " << verdict << "\n\n";
  out << fmt::format(
      "rocdoc {} · rules {} (revision {}) · log {} ({}) · exit code {} (`--fail-on {}`)\n\n",
      ROCDOC_VERSION, md::text(context.rules_origin), md::text(context.rules_revision),
      md::code(context.input), md::text(lines_summary(report)), exit_code,
      to_string(context.fail_on));
  const auto rows = fact_rows(report.scan.facts);
  if (!rows.empty()) {
    out << "## Found in the log\n\n";
    for (const auto& [label, value] : rows) {
      out << "- **" << label << ":** " << md::text(value) << "\n";
    }
    out << "\n";
  }
  if (problems == 0) {
    out << "## Answer\n\n";
    for (const auto& paragraph : nothing_known(report, rows.empty())) {
      out << md::text(paragraph) << "\n\n";
    }
    return;
  }
  out << "## Problems\n\n"
      << fmt::format("{} error{}, {} warning{}.\n\n", errors, errors == 1 ? "" : "s", others,
                     others == 1 ? "" : "s");
  md::PrintedCommands printed;
  std::size_t number = 0;
  for (const auto& finding : report.findings) {
    out << fmt::format("### {}. {} ({})\n\n", ++number, md::code(finding.check),
                       finding.severity == Severity::error ? "error" : "warning");
    out << md::text(finding.message) << "\n\n";
    std::vector<std::string> texts;
    for (const auto& line : finding.lines) {
      texts.push_back(fmt::format("line {}: {}", line.number, line.text));
    }
    if (!texts.empty()) {
      out << "Lines of the log:\n\n" << md::fence(texts, "text") << "\n";
    }
    md::render_fixes(finding.fix, finding.fix_order, finding.check, printed, out);
    if (!finding.fix_from_facts && !finding.fix.empty()) {
      out << "_The fix is the rules' text: the log lacks the facts rocdoc check would compute it "
             "from._\n\n";
    }
    out << "**Verify:** " << md::code("rocdoc check --only " + finding.check)
        << " on the machine\n\n";
    if (!finding.signatures.empty()) {
      std::vector<std::string> ids;
      for (const auto& id : finding.signatures) {
        ids.push_back(md::code(id));
      }
      std::vector<std::string> links;
      for (const auto& source : finding.sources) {
        // The rules' own URLs (never the log's text): an autolink when it is one plain URL.
        if (source.rfind("https://", 0) == 0 && source.find_first_of(" <>") == std::string::npos) {
          links.push_back("<" + source + ">");
        } else {
          links.push_back(md::text(source));
        }
      }
      out << "Signatures: " << util::join(ids, ", ")
          << (links.empty() ? "" : "; seen in " + util::join(links, ", ")) << "\n\n";
    }
  }
}

}  // namespace rocdoc
