// The PCIe link a GPU's traffic crosses to reach the host: the slot end of the card (a Radeon's
// own switch upstream port, else the GPU function) and the device above it, and what that link
// can carry. pcie.link-degraded judges its width; runtime.compute compares copies with its rate.
#pragma once

#include <optional>
#include <string_view>

#include "rocdoc/facts.h"

namespace rocdoc::checks {

struct SlotLink {
  const PciDevice* slot = nullptr;    ///< the card's end of the slot link
  const PciDevice* parent = nullptr;  ///< the other end (root port or platform switch); may be null
};

/// Walks up from the GPU function through the AMD bridges of the card itself.
SlotLink slot_link(const PciFacts& pci, const PciDevice& gpu);

/// The transfer rate of one lane in GT/s from sysfs's "16.0 GT/s PCIe" ("8 GT/s", "2.5 GT/s"
/// on older kernels); nullopt when unreadable.
std::optional<double> lane_gigatransfers(std::string_view speed);

/// Bytes per second one lane carries at that rate, after the line code (8b/10b up to 5 GT/s,
/// 128b/130b from 8 GT/s; PCIe 6's FLIT mode is counted as 242/256).
double lane_bytes_per_second(double gigatransfers);

/// What the slot link carries in each direction: the lower of both ends' highest speed (an
/// idle link runs slower, so the current speed is not used) times the current width.
std::optional<double> slot_bytes_per_second(const SlotLink& link);

}  // namespace rocdoc::checks
