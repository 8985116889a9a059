// The code.* checks (check --scan DIR): each gathers the source scan's findings of its id
// (src/scan/, rules/code_patterns.yaml) into one result: the worst finding's severity, the
// places as evidence, and each pattern's replacement once as a fix.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/checks/checks.h"

namespace rocdoc::checks {

namespace {

constexpr std::size_t k_max_places = 20;

/// What the findings of a check are, in a few words for its message.
std::string_view findings_words(std::string_view id) {
  if (id == "code.warp-size") {
    return "assume a wave of 32 (or 64) lanes";
  }
  if (id == "code.inline-ptx") {
    return "hold PTX or CUDA-only headers";
  }
  if (id == "code.cuda-only-api") {
    return "rely on NVIDIA-only APIs or CUDA capability gates";
  }
  if (id == "code.nccl-env") {
    return "choose GPUs or NCCL settings the CUDA way only";
  }
  if (id == "code.cuda-build") {
    return "build for CUDA only";
  }
  return "run on NVIDIA GPUs only";
}

std::string place(const CodeFinding& finding) {
  return fmt::format("{}:{}:{}: [{}] {}", finding.path, finding.line, finding.column,
                     to_string(finding.severity), finding.line_text);
}

CheckResult code_check(const CheckContext& context, std::string_view id) {
  const CodeScanFacts& scan = *context.facts.code_scan;
  std::vector<const CodeFinding*> found;
  for (const CodeFinding& finding : scan.findings) {
    if (finding.id == id) {
      found.push_back(&finding);
    }
  }
  if (found.empty()) {
    return pass(fmt::format("no such code in {} {} of {}", scan.files_scanned,
                            scan.files_scanned == 1 ? "file" : "files", scan.root));
  }
  // The most severe first, then in path order.
  std::stable_sort(found.begin(), found.end(), [](const CodeFinding* a, const CodeFinding* b) {
    return a->severity > b->severity;
  });
  std::set<std::string_view> files;
  for (const CodeFinding* finding : found) {
    files.insert(finding->path);
  }
  std::vector<std::string> evidence;
  for (std::size_t i = 0; i < found.size() && i < k_max_places; ++i) {
    evidence.push_back(place(*found[i]));
  }
  if (found.size() > k_max_places) {
    evidence.push_back(fmt::format("… {} more (rocdoc scan {} lists every one)",
                                   found.size() - k_max_places, scan.root));
  }
  std::vector<Fix> fixes;
  std::vector<std::string_view> patterns;
  for (const CodeFinding* finding : found) {
    if (std::find(patterns.begin(), patterns.end(), finding->pattern) != patterns.end()) {
      continue;
    }
    patterns.push_back(finding->pattern);
    const auto count = std::count_if(found.begin(), found.end(), [&](const CodeFinding* other) {
      return other->pattern == finding->pattern;
    });
    Fix fix;
    fix.description = fmt::format("{} ({}, {} {}, first at {}:{}): {}", finding->what,
                                  finding->pattern, count, count == 1 ? "place" : "places",
                                  finding->path, finding->line, finding->replacement);
    fix.kind = FixKind::manual;
    fixes.push_back(std::move(fix));
  }
  const Severity severity = found.front()->severity;
  return finding(severity,
                 fmt::format("{} {} in {} {} of {} {}", found.size(),
                             found.size() == 1 ? "line" : "lines", files.size(),
                             files.size() == 1 ? "file" : "files", scan.root, findings_words(id)),
                 std::move(evidence), std::move(fixes));
}

}  // namespace

CheckResult code_warp_size(const CheckContext& context) {
  return code_check(context, "code.warp-size");
}
CheckResult code_inline_ptx(const CheckContext& context) {
  return code_check(context, "code.inline-ptx");
}
CheckResult code_cuda_only_api(const CheckContext& context) {
  return code_check(context, "code.cuda-only-api");
}
CheckResult code_nccl_env(const CheckContext& context) {
  return code_check(context, "code.nccl-env");
}
CheckResult code_cuda_build(const CheckContext& context) {
  return code_check(context, "code.cuda-build");
}
CheckResult code_cuda_container(const CheckContext& context) {
  return code_check(context, "code.cuda-container");
}

}  // namespace rocdoc::checks
