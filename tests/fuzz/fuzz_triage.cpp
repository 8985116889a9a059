// Pasted logs (`rocdoc triage`): any bytes as a log. The scan and the judging must hold their
// bounds (line numbers in range, quoted lines short and printable, facts printable), and every
// renderer must take the result; JSON must parse back.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/render/triage.h"
#include "src/triage/scan.h"
#include "tests/fuzz/fuzz.h"

namespace {

bool is_printable(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return false;
    }
  }
  return true;
}

void check_line(const rocdoc::LogLine& line, std::size_t lines) {
  ROCDOC_FUZZ_CHECK(line.number >= 1 && line.number <= lines,
                    "a quoted line exists: " + std::to_string(line.number));
  ROCDOC_FUZZ_CHECK(line.text.size() <= 4 * rocdoc::k_max_quoted_bytes + 64,
                    "a quoted line is short: " + std::to_string(line.text.size()));
  ROCDOC_FUZZ_CHECK(is_printable(line.text), "a quoted line is printable: " + line.text);
}

void check_fact(const rocdoc::LogFact& fact, std::size_t lines) {
  ROCDOC_FUZZ_CHECK(fact.line >= 1 && fact.line <= lines,
                    "a fact's line exists: " + std::to_string(fact.line));
  ROCDOC_FUZZ_CHECK(is_printable(fact.value) && fact.value.size() <= rocdoc::k_max_fact_bytes,
                    "a fact is short and printable: " + fact.value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  static const LogMatcher matcher(fuzz::knowledge());  // compiled once for every input
  const TriageReport report = triage_log(input, matcher);
  const LogScan& scan = report.scan;
  // The one-pass filter (only lines holding a literal are read) gives what reading every line
  // gives.
  const LogScan every = scan_log(input, matcher, LineFilter::every_line);
  ROCDOC_FUZZ_CHECK(
      every.lines == scan.lines && every.cut_lines == scan.cut_lines &&
          every.hits.size() == scan.hits.size() &&
          every.facts.gfx_targets.size() == scan.facts.gfx_targets.size() &&
          every.facts.gpu_names.size() == scan.facts.gpu_names.size() &&
          every.facts.overrides.size() == scan.facts.overrides.size() &&
          every.facts.torch.has_value() == scan.facts.torch.has_value() &&
          every.facts.rocm.has_value() == scan.facts.rocm.has_value() &&
          every.facts.container.has_value() == scan.facts.container.has_value() &&
          every.facts.site_packages.has_value() == scan.facts.site_packages.has_value() &&
          every.facts.torch_build == scan.facts.torch_build,
      "the one-pass filter reads what every line would give");
  for (std::size_t i = 0; i < scan.hits.size() && i < every.hits.size(); ++i) {
    ROCDOC_FUZZ_CHECK(scan.hits[i].signature == every.hits[i].signature &&
                          scan.hits[i].count == every.hits[i].count,
                      "the one-pass filter finds every signature's lines");
  }
  ROCDOC_FUZZ_CHECK(scan.bytes == size, "every byte is counted");
  ROCDOC_FUZZ_CHECK(scan.lines <= size && scan.cut_lines <= scan.lines,
                    "lines counted: " + std::to_string(scan.lines));
  const LogFacts& facts = scan.facts;
  ROCDOC_FUZZ_CHECK(facts.gfx_targets.size() <= k_max_fact_values &&
                        facts.gpu_names.size() <= k_max_fact_values &&
                        facts.overrides.size() <= k_max_fact_values,
                    "facts are bounded");
  for (const auto* list : {&facts.gfx_targets, &facts.gpu_names, &facts.overrides}) {
    for (const auto& fact : *list) {
      check_fact(fact, scan.lines);
    }
  }
  for (const auto* fact :
       {&facts.torch, &facts.torchvision, &facts.torchaudio, &facts.rocm, &facts.site_packages}) {
    if (*fact) {
      check_fact(**fact, scan.lines);
    }
  }
  for (const auto& hit : scan.hits) {
    ROCDOC_FUZZ_CHECK(hit.count >= hit.lines.size() && hit.lines.size() <= k_max_quoted_lines,
                      "a signature's lines are bounded");
    for (const auto& line : hit.lines) {
      check_line(line, scan.lines);
    }
  }
  for (const auto& finding : report.findings) {
    ROCDOC_FUZZ_CHECK(!finding.lines.empty() || finding.fix_from_facts,
                      "a finding quotes the lines it rests on: " + finding.check);
    for (const auto& line : finding.lines) {
      check_line(line, scan.lines);
    }
  }
  // Wrapped at 80 columns in ASCII, as on a terminal whose locale is not UTF-8; no colour, so
  // that an escape byte in the output can only have come from the log.
  const TriageContext context{"fuzz input", "embedded", fuzz::knowledge().revision, FailOn::error,
                              HumanOptions{Color::off, Verbosity::normal, 80, Glyphs::ascii}};
  std::ostringstream human;
  render_triage_human(report, context, human);
  const std::string human_text = human.str();
  ROCDOC_FUZZ_CHECK(human_text.find('\x1b') == std::string::npos, "no escape byte on a terminal");
  ROCDOC_FUZZ_CHECK(std::none_of(human_text.begin(), human_text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; }),
                    "ASCII glyphs leave no byte above 0x7f");
  std::ostringstream markdown;
  render_triage_markdown(report, context, markdown);
  std::ostringstream json;
  render_triage_json(report, context, json);
  const auto parsed = nlohmann::json::parse(json.str(), nullptr, false);
  ROCDOC_FUZZ_CHECK(!parsed.is_discarded(), "the JSON parses back");
  ROCDOC_FUZZ_CHECK(parsed["findings"].size() == report.findings.size(), "every finding in JSON");
  return 0;
}
