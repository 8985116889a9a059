// --format npd: node-problem-detector's custom plugin protocol (pkg/custompluginmonitor: exit
// 0 OK, 1 NonOK, anything else Unknown; standard output trimmed and cut at max_output_length
// bytes, 80 by default). rocdoc writes one line that already fits, so NPD's byte cut never
// splits a character or hides the count of what was left out. docs/node-problem-detector.md.
#include "src/render/npd.h"

#include "src/render/status_line.h"

namespace rocdoc {

void render_npd(const Report& report, std::ostream& out) {
  if (report.outcome.exit_code == 0) {
    out << (report.outcome.verdict == Verdict::unchecked ? "rocdoc: ok, but no check could run"
                                                         : "rocdoc: ok")
        << '\n';
    return;
  }
  out << fit_line("rocdoc: ", gate_causes(report), k_npd_line_bytes) << '\n';
}

}  // namespace rocdoc
