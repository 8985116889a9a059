// Fixes in Markdown, as the check report writes them (--format markdown): "**Fix:**" for one,
// "**Fix, in this order:**" with "**Step N.**" or "**Fix, one of:**" with "**Either:**" and
// "**Or:**" for several; each command in a fenced block once per report. Shared by the check
// report (markdown.cpp) and triage's (triage.cpp).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/check_result.h"

namespace rocdoc::markdown {

/// The commands a report has printed so far, each with the check id it was printed for: a
/// command printed once is referred to after that.
using PrintedCommands = std::map<std::string, std::string>;

/// "_(needs root; then reboot)_": what a fix asks of the person who applies it ("" for nothing).
std::string fix_needs(const Fix& fix);

/// The fixes of check `id` in their order.
void render_fixes(const std::vector<Fix>& fixes, FixOrder order, std::string_view id,
                  PrintedCommands& printed, std::ostream& out);

}  // namespace rocdoc::markdown
