// PciNameSource against a fake libpci.so.3 (fake_libpci.cpp, found through LD_LIBRARY_PATH):
// libpci's errors arrive through a callback that must never return; rocdoc's jumps back to the
// libpci call that failed, and the source stays usable. "[real_libpci]" runs without the fake:
// pci.ids read by rocdoc names every device as the real libpci does.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "probes/pci_names.h"

TEST_CASE("libpci errors jump back to the call that failed", "[pci_names]") {
  rocdoc::PciNameSource names(std::nullopt, rocdoc::PciNamesFrom::libpci_only);
  // pci_init reported an error: names still work (as with a snapshot's missing sysfs tree).
  REQUIRE(names.available());
  CHECK(names.problem().empty());
  CHECK(std::string(names.source()) == "libpci");

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

TEST_CASE("pci.ids read by rocdoc names devices as the real libpci does", "[real_libpci]") {
  std::ifstream file("/usr/share/misc/pci.ids");
  if (!file) {
    WARN("SKIPPED: no /usr/share/misc/pci.ids here (Debian's pci.ids package)");
    return;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  const std::string text = contents.str();

  rocdoc::PciNameSource libpci(std::nullopt, rocdoc::PciNamesFrom::libpci_only);
  rocdoc::PciNameSource direct(std::nullopt);
  REQUIRE(libpci.available());
  REQUIRE(direct.available());
  CHECK(std::string(direct.source()) == "pci.ids");

  // Every vendor (with its first device and an id it lacks), and every 20th device.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> ids;
  std::istringstream lines(text);
  std::string line;
  long vendor = -1;
  std::size_t devices = 0;
  const auto hex4 = [](const std::string& s, std::size_t at) -> long {
    if (s.size() < at + 6 || s.compare(at + 4, 2, "  ") != 0) {
      return -1;
    }
    const std::string digits = s.substr(at, 4);
    return digits.find_first_not_of("0123456789abcdef") == std::string::npos
               ? std::stol(digits, nullptr, 16)
               : -1;
  };
  bool first_device = false;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    if (line[0] != '\t') {
      vendor = hex4(line, 0);
      first_device = true;
      if (vendor >= 0) {
        ids.emplace_back(vendor, 0xfffe);
      }
    } else if (vendor >= 0 && line.size() > 1 && line[1] != '\t') {
      const long device = hex4(line, 1);
      if (device >= 0 && (first_device || ++devices % 20 == 0)) {
        ids.emplace_back(vendor, device);
      }
      first_device = false;
    }
  }
  REQUIRE(ids.size() > 2000);
  std::size_t named = 0;
  for (const auto& [v, d] : ids) {
    const auto expected = libpci.lookup(v, d);
    REQUIRE(expected);
    const auto got = rocdoc::pci_ids_lookup(text, v, d);
    INFO(std::hex << v << ":" << d);
    CHECK(got.vendor == expected->vendor);
    CHECK(got.device == expected->device);
    named += got.device.empty() ? 0 : 1;
  }
  CHECK(named > 1000);
  // The mapped file gives the same (a GPU of each vendor rocdoc meets).
  for (const auto& [v, d] : {std::pair<std::uint16_t, std::uint16_t>{0x10de, 0x2335},
                             {0x10de, 0x2684},
                             {0x8086, 0x56a0},
                             {0x1414, 0x008e},
                             {0x1af4, 0x1050},
                             {0x1002, 0x74a1}}) {
    const auto expected = libpci.lookup(v, d);
    const auto got = direct.lookup(v, d);
    REQUIRE(expected);
    REQUIRE(got);
    CHECK(got->vendor == expected->vendor);
    CHECK(got->device == expected->device);
  }
}
