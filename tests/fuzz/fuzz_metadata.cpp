// Python package metadata: a METADATA / PKG-INFO file (metadata_version) and dist-info
// directory names (package_from_metadata_dir, on each line of the input), then a whole report
// with the fuzzed file as the venv's torch METADATA.
#include "probes/python.h"
#include "src/util/strings.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  (void)metadata_version(input);
  for (const auto line : util::lines(input)) {
    if (const auto package = package_from_metadata_dir(line)) {
      ROCDOC_FUZZ_CHECK(!package->name.empty(), "a package has a name: " + std::string(line));
    }
  }

  fuzz::OverlayHost host(fuzz::fixture("torch-two-envs"));
  host.set_file(
      "/home/alice/venv/lib/python3.11/site-packages/torch-2.7.1+rocm6.3.dist-info/METADATA",
      input);
  fuzz::report_on(host);
  return 0;
}
