// A snapshot archive (check --snapshot FILE): read_snapshot_archive_bytes accepts it or throws
// SnapshotError with one short printable line; what it accepts holds no path that climbs out
// of root/, and a whole report runs on it without crashing.
#include "rocdoc/pipeline.h"
#include "src/hosts/snapshot.h"
#include "src/snapshot/archive.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  ArchiveLimits limits;  // small, so that one input cannot take seconds
  limits.total_bytes = std::size_t{4} << 20;
  limits.entry_bytes = std::size_t{1} << 20;
  limits.entries = 4096;
  limits.inflated_bytes = std::size_t{16} << 20;
  try {
    SnapshotArchive archive =
        read_snapshot_archive_bytes(fuzz::text(data, size), "/fuzz/s.tar.gz", limits);
    ROCDOC_FUZZ_CHECK(archive.root != nullptr, "an accepted archive has a root tree");
    ROCDOC_FUZZ_CHECK(!archive.root->contains("/.."), "no entry above the root");
    const SnapshotHost host("/fuzz/s.tar.gz", archive.manifest, std::move(archive.root));
    ROCDOC_FUZZ_CHECK(!host.local_path("/sys/bus/pci"), "an archive has no directory on disk");
    (void)run_report(host, fuzz::knowledge(), {});
  } catch (const SnapshotError& error) {
    fuzz::check_error_message(error.what());
  } catch (const HostLimitError& error) {
    fuzz::check_error_message(error.what());
  }
  return 0;
}
