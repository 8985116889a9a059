// What a PCI function's topology files hold (`resource`, `config`, `numa_node`) and a KFD
// p2p_link: parse_pci_resources, parse_acs, parse_numa_node, then a whole report (the topology
// and its checks) with the fuzzed file as the PLX switch port's config, the first GPU's resource
// and numa_node, and a p2p_link of the two RX 7900 XTX behind the switch.
#include "probes/kfd_topology.h"
#include "probes/pci_topology.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  for (const auto& bar : parse_pci_resources(input)) {
    ROCDOC_FUZZ_CHECK(bar.index >= 0 && bar.index < 6 && bar.size > 0,
                      "a BAR is one of lines 0-5 and has a size");
  }
  if (const auto acs = parse_acs(input)) {
    ROCDOC_FUZZ_CHECK(input.size() >= 256, "ACS is known only from a config space past 256 bytes");
    ROCDOC_FUZZ_CHECK(acs->present || !acs->redirects(), "no capability, no redirect");
  }
  if (const auto node = parse_numa_node(input)) {
    ROCDOC_FUZZ_CHECK(*node >= 0, "a NUMA node is never negative");
  }
  (void)kfd_link_from_properties(0, parse_kfd_properties(input));

  fuzz::OverlayHost host(fuzz::fixture("radeon-2x7900xtx-plx-acs"));
  host.set_file("/sys/bus/pci/devices/0000:02:08.0/config", input);
  host.set_file("/sys/bus/pci/devices/0000:05:00.0/resource", input);
  host.set_file("/sys/bus/pci/devices/0000:05:00.0/numa_node", input);
  host.set_file("/sys/class/kfd/kfd/topology/nodes/1/p2p_links/0/properties", input);
  fuzz::report_on(host);
  return 0;
}
