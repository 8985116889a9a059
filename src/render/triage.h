// The answers of `rocdoc triage`: human text, JSON (schema "rocdoc-triage/1") and Markdown.
#pragma once

#include <ostream>
#include <string>

#include "src/triage/scan.h"

namespace rocdoc {

/// Where the log came from and what judged it, for the header of every format.
struct TriageContext {
  std::string input;           ///< the file name, or "standard input"
  std::string rules_origin;    ///< "embedded" or the --rules directory
  std::string rules_revision;  ///< "2026-11-26"
  FailOn fail_on = FailOn::error;
};

void render_triage_human(const TriageReport& report, const TriageContext& context,
                         std::ostream& out);
void render_triage_json(const TriageReport& report, const TriageContext& context,
                        std::ostream& out);
void render_triage_markdown(const TriageReport& report, const TriageContext& context,
                            std::ostream& out);

}  // namespace rocdoc
