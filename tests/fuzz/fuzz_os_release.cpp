// /etc/os-release and its neighbours read by the system probe as text: /proc/1/cgroup (the
// container runtime) and the kernel release (WSL). Then a whole report with the fuzzed file
// as /etc/os-release and /proc/1/cgroup.
#include "probes/system.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  for (const auto& [key, value] : parse_os_release(input)) {
    ROCDOC_FUZZ_CHECK(key.find('=') == std::string::npos, "a key holds no '=': " + key);
  }
  (void)container_from_cgroup(input);
  (void)wsl_from_kernel_release(input);

  fuzz::OverlayHost host(fuzz::fixture("rx7900xtx-healthy"));
  host.set_file("/etc/os-release", input);
  host.set_file("/proc/1/cgroup", input);
  fuzz::report_on(host);
  return 0;
}
