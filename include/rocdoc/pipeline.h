// The pipeline: Host → probes → facts → checks → a Report (rocdoc/report.h).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rocdoc/host.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_source.h"
#include "rocdoc/probes.h"
#include "rocdoc/report.h"

namespace rocdoc {

struct CheckSelection {
  std::set<std::string> only;  ///< empty: all
  std::set<std::string> skip;
  /// Run only the probes the selected checks need (`rocdoc topology`); the facts of the others
  /// stay empty. False: every probe, as `check` does (its JSON carries every fact).
  bool needed_probes_only = false;
};

/// Runs every probe and the selected checks. `interpreters` are those named with --python.
/// With `declared_gpus` (--gpu: GPU-less mode) the checks see those GPUs instead of the ones
/// found, and the machine checks (Judges::machine) are skipped. `runtime`: --deep and its
/// --timeout (the runtime probe). `code_scan`: what `--scan DIR` found, which the code.*
/// checks judge (they run only with it).
Report run_report(const Host& host, const Knowledge& knowledge, const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters = {},
                  const std::vector<DeclaredGpu>& declared_gpus = {},
                  const RuntimeOptions& runtime = {},
                  std::optional<CodeScanFacts> code_scan = std::nullopt);
/// The same with rules that may still be being built: the probes start at once, and those that
/// read the rules wait for them.
Report run_report(const Host& host, const KnowledgeSource& knowledge,
                  const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters = {},
                  const std::vector<DeclaredGpu>& declared_gpus = {},
                  const RuntimeOptions& runtime = {},
                  std::optional<CodeScanFacts> code_scan = std::nullopt);

}  // namespace rocdoc
