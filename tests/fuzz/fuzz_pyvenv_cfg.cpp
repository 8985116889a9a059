// Python environment configuration read by the python probe: a venv's pyvenv.cfg
// (include-system-site-packages) and pyenv's version file, then a whole report with the fuzzed
// file as the venv's pyvenv.cfg.
#include "probes/python_locations.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  for (const auto& version : parse_pyenv_version_file(input)) {
    ROCDOC_FUZZ_CHECK(!version.empty(), "a pyenv version is not empty");
  }

  fuzz::OverlayHost host(fuzz::fixture("torch-two-envs"));
  host.set_file("/home/alice/venv/pyvenv.cfg", input);
  fuzz::report_on(host);
  return 0;
}
