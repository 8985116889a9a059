// The kernel command line and the driver probe's other small text files: /proc/cmdline
// (amdgpu, ttm, modprobe.blacklist, iommu words), a modprobe.d file (blacklists, memory
// modules' options), a DKMS make.log header, the SecureBoot efivar, /proc/meminfo and the
// kernel log's unknown-parameter line. Then a whole report with the fuzzed file in each of those
// places, on a PC with amdgpu blacklisted and on a Strix Halo (its memory facts).
// Also --redact's command-line redaction (split as the kernel's next_arg() splits it), of
// /proc/cmdline and of a kernel log line that holds it.
#include "probes/driver.h"
#include "probes/system.h"
#include "src/checks/memory_sizes.h"
#include "src/hosts/redacting.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  DriverFacts facts;
  parse_cmdline_for_driver(input, facts);
  (void)parse_iommu_params(input);
  (void)find_amdgpu_blacklist(input, "/etc/modprobe.d/fuzz.conf");
  for (const auto& setting : find_module_options(input, "/etc/modprobe.d/fuzz.conf")) {
    ROCDOC_FUZZ_CHECK(is_memory_module(setting.module) && !setting.name.empty() && setting.file,
                      setting.module + "." + setting.name);
  }
  (void)mem_total_from_meminfo(input);
  if (const auto unknown = checks::parse_unknown_parameter(input)) {
    ROCDOC_FUZZ_CHECK(is_memory_module(unknown->module) && !unknown->name.empty(), unknown->name);
  }
  (void)make_log_kernel(input);
  (void)parse_secure_boot_var(input);

  // The redacted line has as many parameters as the input, and each is either the input's own
  // (a GPU parameter or a harmless flag) or holds a placeholder: no other value survives.
  Redactions redactions;
  const auto params = split_cmdline(input);
  const std::string redacted = redact_cmdline(input, redactions);
  const auto again = split_cmdline(redacted);
  ROCDOC_FUZZ_CHECK(again.size() == params.size(),
                    std::to_string(params.size()) + " parameters became " +
                        std::to_string(again.size()) + ": " + redacted);
  for (std::size_t i = 0; i < again.size(); ++i) {
    const bool placeholder = again[i].raw.find("redacted-value-") != std::string_view::npos;
    ROCDOC_FUZZ_CHECK(placeholder || again[i].raw == params[i].raw,
                      "kept as written: " + std::string(again[i].raw));
  }
  const std::string line =
      redact_kernel_line("Kernel command line: " + std::string(input), redactions);
  ROCDOC_FUZZ_CHECK(line.rfind("Kernel command line: ", 0) == 0, line);
  (void)redact_serials(input);

  fuzz::OverlayHost host(fuzz::fixture("amdgpu-blacklisted"));
  host.set_file("/proc/cmdline", input);
  host.set_file("/etc/modprobe.d/blacklist-amdgpu.conf", input);
  host.set_file("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", input);
  fuzz::report_on(host);

  // The memory facts of an APU (apu.memory, kernel.param-ignored) from the fuzzed file.
  fuzz::OverlayHost apu(fuzz::fixture("strix-halo-dkms-amdttm-default"));
  apu.set_file("/proc/cmdline", input);
  apu.set_file("/proc/meminfo", input);
  apu.set_file("/etc/modprobe.d/ttm.conf", input);
  apu.set_file("/sys/module/amdttm/parameters/pages_limit", input);
  apu.set_file("/sys/bus/pci/devices/0000:c5:00.0/mem_info_vram_total", input);
  apu.set_file("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties", input);
  fuzz::report_on(apu);
  return 0;
}
