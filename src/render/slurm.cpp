// `check --format slurm` (docs/rocdoc.1.md, contrib/slurm/README.md): one line, the reason a
// Slurm health check sets on a node it drains. With a finding at or above --fail-on it names
// the root causes of the findings that count (src/render/status_line.h: failures first, each once):
// "rocdoc: numa.balancing, perm.kfd". With nothing that counts: "rocdoc: ok".
//
// Every line starts with "rocdoc:" — the prefix by which contrib/slurm/rocdoc-slurm-healthcheck
// recognises a drain it made itself. The line is bounded (k_slurm_reason_max): an id is never
// cut, the ids that do not fit become ", +N more".
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/render.h"
#include "src/render/status_line.h"

namespace rocdoc {

std::string slurm_reason(const Report& report) {
  if (report.outcome.exit_code == 0) {
    return "rocdoc: ok";
  }
  const std::vector<std::string> causes = gate_causes(report);
  return causes.empty() ? "rocdoc: failed" : fit_line("rocdoc: ", causes, k_slurm_reason_max);
}

void render_slurm(const Report& report, std::ostream& out) { out << slurm_reason(report) << "\n"; }

}  // namespace rocdoc
