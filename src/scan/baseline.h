// A baseline for `rocdoc scan --baseline FILE`: an earlier `rocdoc scan --format json`, whose
// findings' fingerprints are known and so not new. CI gates on new findings only. Parsers take
// strings; the command reads the file.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "rocdoc/code_scan.h"

namespace rocdoc {

struct Baseline {
  std::set<std::string> fingerprints;
  std::string error;  ///< why the text is no baseline; "" when it is one
};

/// The fingerprints of a rocdoc-scan/1 JSON document.
Baseline parse_baseline(std::string_view json_text);

/// Takes the findings the baseline holds out of `scan`, counting them in `baselined`.
void apply_baseline(CodeScanFacts& scan, const Baseline& baseline);

}  // namespace rocdoc
