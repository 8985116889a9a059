// The snapshot manifest (rocdoc-snapshot.json): parse_snapshot_manifest accepts it or throws
// SnapshotError with one short printable line, and keeps only allow-listed variables.
#include "rocdoc/env_allowlist.h"
#include "src/snapshot_host.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  try {
    const SnapshotManifest manifest = parse_snapshot_manifest(input, "/s/rocdoc-snapshot.json");
    for (const auto& [name, value] : manifest.env) {
      ROCDOC_FUZZ_CHECK(is_allowed_env(name), "only allow-listed variables are kept: " + name);
    }
  } catch (const SnapshotError& error) {
    fuzz::check_error_message(error.what());
  }
  return 0;
}
