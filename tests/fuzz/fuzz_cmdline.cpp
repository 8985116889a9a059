// The kernel command line and the driver probe's other small text files: /proc/cmdline
// (amdgpu, modprobe.blacklist, iommu words), a modprobe.d file, a DKMS make.log header and the
// SecureBoot efivar. Then a whole report with the fuzzed file in each of those places.
#include "probes/driver.h"
#include "probes/system.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  DriverFacts facts;
  parse_cmdline_for_driver(input, facts);
  (void)parse_iommu_params(input);
  (void)find_amdgpu_blacklist(input, "/etc/modprobe.d/fuzz.conf");
  (void)make_log_kernel(input);
  (void)parse_secure_boot_var(input);

  fuzz::OverlayHost host(fuzz::fixture("amdgpu-blacklisted"));
  host.set_file("/proc/cmdline", input);
  host.set_file("/etc/modprobe.d/blacklist-amdgpu.conf", input);
  host.set_file("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", input);
  fuzz::report_on(host);
  return 0;
}
