// torch/version.py, read as data and never run: parse_version_py, torch_from_version_py and
// classify_torch, then a whole report with the fuzzed file as the venv's torch/version.py
// (beside a second torch in the system's dist-packages).
#include "probes/python.h"
#include "probes/torch_origin.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  TorchInstall torch = torch_from_version_py(parse_version_py(input));
  classify_torch(torch, "/home/alice/venv/lib/python3.11/site-packages", fuzz::knowledge());
  (void)to_string(torch.origin);

  fuzz::OverlayHost host(fuzz::fixture("torch-two-envs"));
  host.set_file("/home/alice/venv/lib/python3.11/site-packages/torch/version.py", input);
  fuzz::report_on(host);
  return 0;
}
