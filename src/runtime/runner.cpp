#include "src/runtime/runner.h"

#include <algorithm>
#include <functional>

#include "src/runtime/children.h"
#include "src/runtime/descendants.h"
#include "src/util/strings.h"
#include "src/util/subprocess.h"

namespace rocdoc::runtime {

namespace {

constexpr std::size_t k_summary_lines = 5;
constexpr std::size_t k_summary_line_bytes = 200;

RuntimeRun to_run(util::ForkedOutput&& output) {
  RuntimeRun run;
  run.error = std::move(output.error);
  run.seconds = static_cast<double>(output.elapsed.count()) / 1000.0;
  if (!run.error.empty()) {
    run.ending = ChildEnding::not_started;
    return run;
  }
  if (output.ending == util::Ending::timed_out) {
    run.ending = ChildEnding::timed_out;
  } else if (output.signal) {
    run.ending = ChildEnding::signaled;
    run.signal = util::signal_name(*output.signal);
  } else {
    run.ending = ChildEnding::exited;
    run.exit_status = output.exit_status;
  }
  run.result = std::move(output.result.kept);
  run.result_truncated = output.result.bytes > run.result.size();
  run.out = summarise_output(output.out.kept, output.out.bytes);
  run.err = summarise_output(output.err.kept, output.err.bytes);
  return run;
}

}  // namespace

OutputSummary summarise_output(std::string_view kept, std::uint64_t bytes) {
  OutputSummary summary;
  summary.bytes = bytes;
  for (const auto line : util::lines(kept)) {
    ++summary.lines;
    if (summary.first_lines.size() < k_summary_lines) {
      summary.first_lines.push_back(util::excerpt(line, k_summary_line_bytes));
    }
  }
  return summary;
}

RuntimeReport run_runtimes(const RuntimeRequest& request) {
  std::vector<std::function<int(int)>> bodies = {
      [&](int fd) { return hip_child(request.hip, fd); },
      [&](int fd) { return smi_child(request.smi, fd); },
      [&](int fd) { return hsa_child(request.hsa, fd); },
      [&](int fd) { return amdsmi_child(request.amdsmi, fd); },
  };
  util::ForkLimits limits{};
  limits.time = request.timeout;
  std::vector<util::ForkedOutput> outputs;
  {
    // What the libraries started in a session or group of their own is adopted, then ended
    // with the children: nothing they start outlives the deadline.
    const DescendantReaper reaper;
    outputs = util::run_forked(bodies, limits);
  }
  RuntimeReport report;
  report.timeout = request.timeout;
  report.hip = to_run(std::move(outputs[0]));
  report.smi = to_run(std::move(outputs[1]));
  report.hsa = to_run(std::move(outputs[2]));
  report.amdsmi = to_run(std::move(outputs[3]));
  return report;
}

}  // namespace rocdoc::runtime
