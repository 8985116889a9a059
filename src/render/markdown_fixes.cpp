#include "src/render/markdown_fixes.h"

#include <fmt/format.h>

#include "src/render/markdown_text.h"
#include "src/util/strings.h"

namespace rocdoc::markdown {

namespace {

void render_fix(const Fix& fix, std::string_view lead, std::string_view id,
                PrintedCommands& printed, std::ostream& out) {
  std::string description = text(fix.description);
  const auto seen = fix.command.empty() ? printed.end() : printed.find(fix.command);
  if (seen != printed.end()) {
    description += seen->second == id ? " (the command shown above)"
                                      : " (the command shown for " + code(seen->second) + " above)";
  }
  out << lead << description << fix_needs(fix) << "\n\n";
  if (!fix.command.empty() && seen == printed.end()) {
    out << fence({fix.command}, fix.kind == FixKind::container_flag ? "text" : "sh") << "\n";
    printed.emplace(fix.command, std::string(id));
  }
}

}  // namespace

std::string fix_needs(const Fix& fix) {
  std::vector<std::string> needs;
  if (fix.needs_root) {
    needs.emplace_back("needs root");
  }
  if (fix.kind == FixKind::container_flag) {
    needs.emplace_back("a flag for docker/podman run");
  } else if (fix.kind == FixKind::kernel_argument) {
    needs.emplace_back("changes the kernel command line");
  }
  // As the human report: a description that says so already is not told again.
  const std::string lower = util::to_lower(fix.description);
  const bool said =
      lower.find("log out") != std::string::npos || lower.find("reboot") != std::string::npos;
  if (fix.needs_reboot && !said) {
    needs.emplace_back("then reboot");
  } else if (fix.needs_relogin && !said) {
    needs.emplace_back("then log out and back in");
  }
  return needs.empty() ? std::string() : " _(" + util::join(needs, "; ") + ")_";
}

void render_fixes(const std::vector<Fix>& fixes, FixOrder order, std::string_view id,
                  PrintedCommands& printed, std::ostream& out) {
  if (fixes.empty()) {
    return;
  }
  if (fixes.size() == 1) {
    render_fix(fixes.front(), "**Fix:** ", id, printed, out);
    return;
  }
  const bool alternatives = order == FixOrder::alternatives;
  out << (alternatives ? "**Fix, one of:**\n\n" : "**Fix, in this order:**\n\n");
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    const std::string lead = alternatives
                                 ? (i == 0 ? std::string("**Either:** ") : std::string("**Or:** "))
                                 : fmt::format("**Step {}.** ", i + 1);
    render_fix(fixes[i], lead, id, printed, out);
  }
}

}  // namespace rocdoc::markdown
