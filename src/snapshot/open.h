// A snapshot opened to be checked: a directory (--root) or an archive read into memory
// (--snapshot), with the report it holds from capture time; and what changed since.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "rocdoc/host.h"
#include "rocdoc/report.h"

namespace rocdoc {

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
