// Running probes and checks into a Report, and rendering it.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "rocdoc/check.h"
#include "rocdoc/facts.h"
#include "rocdoc/host.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/probes.h"

namespace rocdoc {

struct ProbeRecord {
  std::string name;
  bool ok = true;
  double duration_ms = 0;
  std::string error;
};

struct CheckRecord {
  const CheckInfo* info = nullptr;
  CheckResult result;
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int notices = 0;  ///< findings of severity info
  int passed = 0;
  int skipped = 0;
};

struct Report {
  std::string tool_version;
  std::string rules_origin;
  std::string rules_revision;  ///< date of the newest source the rules encode
  HostKind host_kind = HostKind::live;
  std::string host_origin;
  Facts facts;
  std::vector<ProbeRecord> probes;
  std::vector<CheckRecord> checks;
  /// What the reader must know before the findings (running as root, an uninspected python3).
  std::vector<std::string> notes;

  Summary summary() const;
};

struct CheckSelection {
  std::set<std::string> only;  ///< empty: all
  std::set<std::string> skip;
};

/// Runs every probe and the selected checks. `interpreters` are those named with --python.
Report run_report(const Host& host, const Knowledge& knowledge, const CheckSelection& selection,
                  const std::vector<PythonInterpreter>& interpreters = {});

enum class FailOn { error, warning, never };
/// 0 when nothing reaches the fail level, 1 otherwise.
int exit_code_for(const Report& report, FailOn fail_on);

enum class Color { off, on };
enum class Verbosity { normal, verbose };
void render_human(const Report& report, std::ostream& out, Color color, Verbosity verbosity);
void render_json(const Report& report, std::ostream& out);

}  // namespace rocdoc
