// `rocdoc snapshot`: capture what the probes read into one file for a support ticket; and
// opening such a file (or directory) again for `check --snapshot` / `check --root`.
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
  std::string timeout;               ///< --timeout SECONDS, checked by the CLI
};

/// --timeout's value: seconds from 0.1 to 600, decimals allowed; nullopt when not one.
std::optional<std::chrono::milliseconds> parse_deep_timeout(std::string_view text);
/// --deep and --timeout (checked) as the runtime probe takes them.
RuntimeOptions runtime_options(bool deep, const std::string& timeout);

/// `interpreters`: those named with --python, asked for their sys.path already.
int run_snapshot(const SnapshotOptions& options, const std::vector<PythonInterpreter>& interpreters,
                 std::ostream& out, std::ostream& err);

/// A snapshot to check: a directory (--root) or an archive read into memory (--snapshot),
/// and what it says about its capture.
struct OpenedSnapshot {
  std::unique_ptr<Host> host;
  std::optional<std::string> capture_report;  ///< report.json, when it holds one
};
OpenedSnapshot open_snapshot_directory(const std::string& dir);
OpenedSnapshot open_snapshot_archive(const std::string& file);

/// Sets report.capture and its notes when `host` is a snapshot that records its capture.
void describe_capture(const Host& host, const std::optional<std::string>& capture_report,
                      Report& report);

}  // namespace rocdoc
