// PCI vendor and device names from pci.ids through libpci, loaded at run time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace rocdoc {

struct PciNames {
  std::string vendor;
  std::string device;
};

class PciNameSource {
 public:
  /// Loads libpci.so.3; `sysfs_path` is the directory libpci's sysfs.path should name.
  explicit PciNameSource(const std::optional<std::string>& sysfs_path);
  ~PciNameSource();
  PciNameSource(const PciNameSource&) = delete;
  PciNameSource& operator=(const PciNameSource&) = delete;

  bool available() const;
  /// Why names are not available ("libpci.so.3: cannot open shared object file").
  const std::string& problem() const;
  /// Names from pci.ids; a part is empty when pci.ids does not know it.
  std::optional<PciNames> lookup(std::uint16_t vendor, std::uint16_t device);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace rocdoc
