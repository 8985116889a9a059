// KFD topology `properties` files (a GPU node's and an io_link's): parse_kfd_properties and
// what is built from it, then a whole report with the fuzzed file as the RX 7900 XTX's node.
#include "probes/kfd_topology.h"
#include "probes/pci.h"
#include "rocdoc/gfx_target.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/overlay_host.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);

  const auto properties = parse_kfd_properties(input);
  KfdNode node = kfd_node_from_properties(1, properties);
  target_from_device_id(node, fuzz::knowledge());
  const auto domain = properties.find("domain");
  if (node.bdf && (domain == properties.end() || domain->second <= 0xffff)) {
    ROCDOC_FUZZ_CHECK(is_bdf(*node.bdf), "the BDF from location_id is dddd:bb:dd.f: " + *node.bdf);
  }
  if (node.gfx_target_version) {
    // A decoded target encodes back to the same number.
    if (const auto name = gfx_name_from_kfd(*node.gfx_target_version)) {
      const auto back = kfd_from_gfx_name(*name);
      ROCDOC_FUZZ_CHECK(back && *back == *node.gfx_target_version, "gfx name round trip: " + *name);
    }
  }
  (void)bdf_of_device_link(input);

  fuzz::OverlayHost host(fuzz::fixture("rx7900xtx-healthy"));
  host.set_file("/sys/class/kfd/kfd/topology/nodes/1/properties", input);
  host.set_file("/sys/class/kfd/kfd/topology/nodes/1/io_links/0/properties", input);
  fuzz::report_on(host);
  return 0;
}
