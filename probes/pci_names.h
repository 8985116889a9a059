// PCI vendor and device names from pci.ids: the vendor's block of the file read directly, or
// libpci (loaded at run time) where pci.ids is not a plain file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc {

struct PciNames {
  std::string vendor;
  std::string device;
};

/// The names pci.ids `text` gives `vendor` and `device`, as libpci's pci_lookup_name gives them
/// (names-parse.c's rules: comments, tabs for nesting, one trailing blank dropped): only the
/// vendor's block is read. A part is empty when pci.ids does not name it.
PciNames pci_ids_lookup(std::string_view text, std::uint16_t vendor, std::uint16_t device);

/// Where the names come from: pci.ids read directly where it is a plain file, else libpci.
enum class PciNamesFrom { pci_ids_file, libpci_only };

class PciNameSource {
 public:
  /// Maps the pci.ids libpci would read; loads libpci.so.3 only where that is not a plain file
  /// (or with PciNamesFrom::libpci_only). `sysfs_path` is the directory libpci's sysfs.path
  /// should name.
  explicit PciNameSource(const std::optional<std::string>& sysfs_path,
                         PciNamesFrom from = PciNamesFrom::pci_ids_file);
  ~PciNameSource();
  PciNameSource(const PciNameSource&) = delete;
  PciNameSource& operator=(const PciNameSource&) = delete;

  bool available() const;
  /// Why names are not available ("libpci.so.3: cannot open shared object file", "no pci.ids
  /// in …").
  const std::string& problem() const;
  /// "pci.ids" (read directly) or "libpci".
  const char* source() const;
  /// Names from pci.ids; a part is empty when pci.ids does not know it.
  std::optional<PciNames> lookup(std::uint16_t vendor, std::uint16_t device);

 private:
  struct Impl;
  struct MappedIds;
  std::unique_ptr<MappedIds> m_ids;
  std::unique_ptr<Impl> m_impl;
  bool m_no_pci_ids = false;  ///< no pci.ids anywhere: libpci, which could name nothing, not loaded
};

}  // namespace rocdoc
