// Snapshots as .tar.gz files, packed and unpacked by libarchive. It is linked statically, only
// its tar reader and writer and its gzip filter (cmake/Dependencies.cmake): a snapshot must be
// possible on any machine, and Ubuntu 24.04 images do not install libarchive.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "src/snapshot/memory_tree.h"
#include "src/snapshot/writer.h"

namespace rocdoc {

/// What rocdoc reads of an archive at most; each breach is a SnapshotError naming the entry.
/// A real snapshot is well under 1 MB with a few thousand entries.
struct ArchiveLimits {
  std::size_t entries = 100'000;
  std::size_t entry_bytes = std::size_t{16} << 20;    ///< the manifest's own bound
  std::size_t total_bytes = std::size_t{64} << 20;    ///< all entries, uncompressed
  std::size_t archive_bytes = std::size_t{64} << 20;  ///< the file itself, compressed
  /// The tar stream libarchive inflates, whatever it is spent on: the bodies it skips (a GNU
  /// dumpdir, a directory with a pax size) and pax headers included. Checked between pieces of
  /// 4 KiB of the packed file, so that one gzip layer overshoots it by a few MiB at most.
  std::size_t inflated_bytes = std::size_t{256} << 20;
  std::size_t name_bytes = std::size_t{16} << 20;  ///< the entries' names, all together
};

/// A snapshot archive read into memory: nothing of it is written to disk.
struct SnapshotArchive {
  std::string manifest;                    ///< rocdoc-snapshot.json
  std::optional<std::string> report_json;  ///< report.json, the report at capture time
  std::unique_ptr<MemoryTree> root;        ///< root/
};

/// Reads FILE (.tar.gz or .tar; the snapshot at its top or inside one directory). Untrusted
/// input: absolute paths, ".." components, device files, hard links, sparse files, directories
/// that carry a body, links that climb out of root/, more than one gzip layer, oversized
/// entries and archives, and archives that inflate past the limits are refused. Throws
/// SnapshotError.
SnapshotArchive read_snapshot_archive(const std::string& file, const ArchiveLimits& limits = {});
/// The same for an archive already in memory; `file` names it in messages (fuzzing, tests).
SnapshotArchive read_snapshot_archive_bytes(std::string_view packed, const std::string& file,
                                            const ArchiveLimits& limits = {});

/// Writes the image as FILE (gzip-compressed pax tar): an unnamed file (O_TMPFILE) linked as
/// FILE once whole, or where that is not possible a temporary file beside it, removed on every
/// error and catchable signal. An existing FILE is never replaced; nothing is left behind on a
/// failure. Throws std::runtime_error.
void write_snapshot_archive(const SnapshotImage& image, const std::string& file);

}  // namespace rocdoc
