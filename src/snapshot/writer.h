// A Recording (src/hosts/recording.h) as a snapshot in SNAPSHOT-FORMAT v1: the manifest, root/ and
// the report rocdoc gave at capture time, written as a directory or (snapshot_archive.h) a
// .tar.gz.
#pragma once

#include <map>
#include <set>
#include <string>

#include "rocdoc/probes.h"
#include "src/hosts/recording.h"

namespace rocdoc {

struct CaptureInfo {
  std::string created;  ///< UTC, as the report's `created`
  std::string rocdoc_version;
  std::string rules_revision;
  std::string note;
  bool redacted = false;
};

/// A snapshot, ready to be written: every path is relative to the snapshot directory.
struct SnapshotImage {
  std::map<std::string, std::string> files;  ///< "rocdoc-snapshot.json", "root/etc/os-release"…
  std::set<std::string> dirs;                ///< "root", "root/etc"…
  std::size_t bytes() const;
};

inline constexpr std::string_view k_capture_report_name = "report.json";

/// The manifest and root/ for what was recorded, plus `report_json` as report.json. A listed
/// entry that was not read becomes an empty file: its name was read, its content was not.
SnapshotImage make_snapshot_image(const Recording& recording, const CaptureInfo& info,
                                  const std::string& report_json,
                                  const std::vector<PythonInterpreter>& interpreters = {});

/// Writes the image into DIR, which must not exist or be empty. On a failure what it created
/// (DIR included) is removed again. Throws std::runtime_error.
void write_snapshot_directory(const SnapshotImage& image, const std::string& dir);

}  // namespace rocdoc
