// PciNameSource against a fake libpci.so.3 (fake_libpci.cpp, found through LD_LIBRARY_PATH):
// libpci's errors arrive through a callback that must never return; rocdoc's jumps back to the
// libpci call that failed, and the source stays usable.
#include <catch2/catch.hpp>

#include "probes/pci_names.h"

TEST_CASE("libpci errors jump back to the call that failed", "[pci_names]") {
  rocdoc::PciNameSource names(std::nullopt);
  // pci_init reported an error: names still work (as with a snapshot's missing sysfs tree).
  REQUIRE(names.available());
  CHECK(names.problem().empty());

  auto found = names.lookup(0x1002, 0x744c);
  REQUIRE(found);
  CHECK(found->vendor == "Fake vendor 1002");
  CHECK(found->device == "Fake device 744c");

  CHECK_FALSE(names.lookup(0xdead, 0x1));
  CHECK(names.problem() == "libpci: fake: no names for dead");

  found = names.lookup(0x10de, 0x2684);
  REQUIRE(found);
  CHECK(found->device == "Fake device 2684");
  // The destructor's pci_cleanup reports an error too, and is caught.
}
