#include "src/snapshot/open.h"

#include <sys/stat.h>

#include "src/hosts/live.h"
#include "src/hosts/snapshot.h"
#include "src/snapshot/archive.h"
#include "src/snapshot/provenance.h"
#include "src/snapshot/writer.h"

namespace rocdoc {

OpenedSnapshot open_snapshot_directory(const std::string& dir) {
  OpenedSnapshot opened;
  opened.host = std::make_unique<SnapshotHost>(dir);
  const std::string report = dir + "/" + std::string(k_capture_report_name);
  struct ::stat st {};
  if (::lstat(report.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    opened.capture_report = read_local_file(report, std::size_t{16} << 20);
  }
  return opened;
}

OpenedSnapshot open_snapshot_archive(const std::string& file) {
  SnapshotArchive archive = read_snapshot_archive(file);
  OpenedSnapshot opened;
  opened.host = std::make_unique<SnapshotHost>(file, archive.manifest, std::move(archive.root));
  opened.capture_report = std::move(archive.report_json);
  return opened;
}

void describe_capture(const Host& host, const std::optional<std::string>& capture_report,
                      Report& report) {
  const auto* snapshot = dynamic_cast<const SnapshotHost*>(&host);
  if (snapshot == nullptr) {
    return;
  }
  report.capture = capture_provenance(snapshot->manifest(), capture_report, report);
  if (report.capture) {
    const auto notes = capture_notes(*report.capture, report.rules_revision);
    report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
  }
}

}  // namespace rocdoc
