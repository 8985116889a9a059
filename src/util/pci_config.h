// A PCI function's config space as sysfs `config` hands it out: finding an extended capability.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocdoc::util {

/// The offset of the PCIe extended capability `id` (0x0d: ACS) in `config`, walking the list
/// from 0x100 (at most 960 entries, never backwards); nullopt when absent or not readable.
std::optional<std::size_t> pci_extended_capability(std::string_view config, std::uint16_t id);

/// The little-endian value of `width` bytes at `at` (the caller checks the bounds).
std::uint32_t little_endian(std::string_view bytes, std::size_t at, std::size_t width);

/// `config` with nothing but its first 64 bytes (what any user may read: IDs, class, BARs)
/// and, at 0x100, the extended capability `keep` (its header's next pointer cleared) when it
/// has one: what a redacted snapshot keeps (no serial number capability, no vendor data).
std::string pci_config_keeping(std::string_view config, std::uint16_t keep, std::size_t length);

}  // namespace rocdoc::util
