// The answers of `rocdoc triage`: human text, JSON (schema "rocdoc-triage/1") and Markdown.
#pragma once

#include <ostream>
#include <string>

#include "rocdoc/render.h"
#include "src/triage/scan.h"

namespace rocdoc {

/// Where the log came from and what judged it, for the header of every format.
struct TriageContext {
  std::string input;           ///< the file name, or "standard input"
  std::string rules_origin;    ///< "embedded" or the --rules directory
  std::string rules_revision;  ///< "2026-11-26"
  FailOn fail_on = FailOn::error;
  HumanOptions human;  ///< colour, glyphs and width of the human answer, as check has them
};

void render_triage_human(const TriageReport& report, const TriageContext& context,
                         std::ostream& out);
void render_triage_json(const TriageReport& report, const TriageContext& context,
                        std::ostream& out);
void render_triage_markdown(const TriageReport& report, const TriageContext& context,
                            std::ostream& out);

}  // namespace rocdoc
