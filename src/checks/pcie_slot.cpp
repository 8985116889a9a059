#include "src/checks/pcie_slot.h"

#include <algorithm>

#include "src/util/strings.h"

namespace rocdoc::checks {

namespace {

/// "16.0", "2.5", "8": a decimal of at most three fraction digits, as sysfs writes speeds.
std::optional<double> parse_decimal(std::string_view text) {
  const auto dot = text.find('.');
  const auto whole = util::parse_unsigned(text.substr(0, dot));
  if (!whole || *whole > 100000) {
    return std::nullopt;
  }
  if (dot == std::string_view::npos) {
    return static_cast<double>(*whole);
  }
  const std::string_view digits = text.substr(dot + 1);
  const auto fraction = util::parse_unsigned(digits);
  if (!fraction || digits.empty() || digits.size() > 3) {
    return std::nullopt;
  }
  double scale = 1;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    scale *= 10;
  }
  return static_cast<double>(*whole) + static_cast<double>(*fraction) / scale;
}

}  // namespace

SlotLink slot_link(const PciFacts& pci, const PciDevice& gpu) {
  SlotLink link;
  link.slot = &gpu;
  for (auto it = gpu.upstream.rbegin(); it != gpu.upstream.rend(); ++it) {
    const PciDevice* above = pci.find(*it);
    if (above != nullptr && above->vendor == 0x1002 && above->is_bridge()) {
      link.slot = above;
      continue;
    }
    link.parent = above;
    break;
  }
  return link;
}

std::optional<double> lane_gigatransfers(std::string_view speed) {
  const auto end = speed.find(" GT/s");
  if (end == std::string_view::npos) {
    return std::nullopt;
  }
  const auto value = parse_decimal(speed.substr(0, end));
  if (!value || *value <= 0 || *value > 1000) {
    return std::nullopt;
  }
  return value;
}

double lane_bytes_per_second(double gigatransfers) {
  const double code = gigatransfers <= 5.0    ? 8.0 / 10.0
                      : gigatransfers <= 32.0 ? 128.0 / 130.0
                                              : 242.0 / 256.0;
  return gigatransfers * 1e9 * code / 8.0;
}

std::optional<double> slot_bytes_per_second(const SlotLink& link) {
  if (link.slot == nullptr || !link.slot->link.current_width || !link.slot->link.max_speed) {
    return std::nullopt;
  }
  auto speed = lane_gigatransfers(*link.slot->link.max_speed);
  if (!speed) {
    return std::nullopt;
  }
  if (link.parent != nullptr && link.parent->link.max_speed) {
    if (const auto other = lane_gigatransfers(*link.parent->link.max_speed)) {
      speed = std::min(*speed, *other);
    }
  }
  if (*link.slot->link.current_width <= 0) {
    return std::nullopt;
  }
  return lane_bytes_per_second(*speed) * *link.slot->link.current_width;
}

}  // namespace rocdoc::checks
