// `rocdoc snapshot`: capture what the probes read into one file for a support ticket. Opening
// one again for check and fleet is src/snapshot/open.h.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "rocdoc/host.h"
#include "rocdoc/probes.h"
#include "rocdoc/report.h"

namespace rocdoc {

struct SnapshotOptions {
  std::string output;  ///< -o FILE.tar.gz; default: rocdoc-snapshot-HOST-UTCTIME.tar.gz
  std::string dir;     ///< --dir DIR: an unpacked snapshot directory instead
  std::string root;    ///< --root DIR: capture a snapshot directory again (not this machine)
  std::string rules;   ///< --rules DIR
  std::string note;    ///< --note TEXT: free text for the manifest
  bool redact = false;
  std::vector<std::string> pythons;  ///< --python PATH: also that interpreter's environment
  bool deep = false;                 ///< --deep: the runtimes too (manifest key `runtime`)
  bool smoke = false;                ///< --smoke: torch's runs too (manifest key `smoke`)
  std::string timeout;               ///< --timeout SECONDS, checked by the CLI
};

/// `interpreters`: those named with --python, asked for their sys.path already.
int run_snapshot(const SnapshotOptions& options, const std::vector<PythonInterpreter>& interpreters,
                 std::ostream& out, std::ostream& err);

}  // namespace rocdoc
