#include "src/util/pci_config.h"

#include <algorithm>

namespace rocdoc::util {

namespace {

constexpr std::size_t k_extended_start = 0x100;
// 4096 bytes of config space hold at most 960 capability headers of 4 bytes past 0x100.
constexpr int k_max_capabilities = 960;
constexpr std::size_t k_header_bytes = 64;

}  // namespace

std::uint32_t little_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

std::optional<std::size_t> pci_extended_capability(std::string_view config, std::uint16_t id) {
  std::size_t at = k_extended_start;
  for (int n = 0; n < k_max_capabilities && at >= k_extended_start && at + 8 <= config.size();
       ++n) {
    const std::uint32_t header = little_endian(config, at, 4);
    if (header == 0 || header == 0xffffffff) {
      return std::nullopt;
    }
    if ((header & 0xffff) == id) {
      return at;
    }
    const std::size_t next = (header >> 20) & 0xffc;
    if (next <= at) {
      return std::nullopt;  // the list only goes forward; a loop ends here
    }
    at = next;
  }
  return std::nullopt;
}

std::string pci_config_keeping(std::string_view config, std::uint16_t keep, std::size_t length) {
  std::string out(std::min(config.size(), std::max(length, k_header_bytes)), '\0');
  out.replace(0, std::min(config.size(), k_header_bytes), config.substr(0, k_header_bytes));
  if (const auto at = pci_extended_capability(config, keep);
      at && k_extended_start + 8 <= out.size()) {
    const std::uint32_t header = little_endian(config, *at, 4) & 0x000fffff;  // no next
    for (std::size_t i = 0; i < 4; ++i) {
      out[k_extended_start + i] = static_cast<char>((header >> (8 * i)) & 0xff);
    }
    out.replace(k_extended_start + 4, 4, config.substr(*at + 4, 4));  // capability, control
  }
  return out;
}

}  // namespace rocdoc::util
