// One cause, one finding: which findings follow from another (CheckResult::caused_by), set by
// the runner after every check ran. The links are a table (docs/checks.md, "Root causes").
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "rocdoc/check.h"

namespace rocdoc {

/// A finding that follows from another: when both are findings of the report and `holds`
/// says yes, `consequence` names `cause` in its caused_by.
struct CauseRule {
  std::string_view cause;        ///< check id of the cause
  std::string_view consequence;  ///< check id of what follows from it
  std::string_view why;          ///< one sentence, for docs/checks.md and the tests
  /// Whether the link holds for these two results (both findings) and these facts; null: it
  /// always does.
  bool (*holds)(const CheckResult& cause, const CheckResult& consequence,
                const CheckContext& context) = nullptr;
};

/// Every link, in the order they are tried: a consequence takes the first that holds.
std::span<const CauseRule> cause_rules();

/// A result that is a finding: fail, or warn of any severity.
bool is_finding(const CheckResult& result);

/// Sets caused_by of every record: at most one cause per finding, a cause that is a finding
/// in `records`, never a cycle (a link that would close one is left out). Clears caused_by of
/// everything else first.
void link_root_causes(std::vector<CheckRecord>& records, const CheckContext& context,
                      std::span<const CauseRule> rules = cause_rules());

}  // namespace rocdoc
