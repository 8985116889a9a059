// `rocdoc rules show`: what the knowledge base knows, formatted for support staff.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/facts.h"
#include "rocdoc/knowledge.h"

namespace rocdoc {

/// Prints a gfx target with its products, ROCm support, override verdict, wheels and PCI ids.
void render_target(const Knowledge& knowledge, const GfxTarget& target, std::ostream& out);
/// Prints every torch release whose version starts with `prefix` ("2.6" → 2.6.0).
/// Returns false when none matches.
/// The pytorch.org releases a version names: "2.6" names 2.6.0 and its patch releases, "2.1"
/// not 2.10; "2.6.0+rocm6.2.4" names 2.6.0.
std::vector<const TorchRelease*> torch_releases_named(const Knowledge& knowledge,
                                                      std::string_view version);
bool render_torch(const Knowledge& knowledge, const std::string& prefix, std::ostream& out);
/// Prints one line for an AMD PCI device id: "1002:744c  Radeon RX 7900 XTX  ->  gfx1100".
void render_pci_id_line(const PciIdEntry& entry, std::ostream& out);
/// Prints the entry of an AMD PCI device id.
void render_pci_id(const Knowledge& knowledge, const PciIdEntry& entry, std::ostream& out);
/// Prints a ROCm release: systems, AMD's GPU list, library targets, drivers, wheels, WSL.
void render_rocm_release(const Knowledge& knowledge, const RocmRelease& release, std::ostream& out);
/// Prints an amdgpu driver module version and the ROCm release it ships with.
void render_driver(const Knowledge& knowledge, const DriverVersion& driver, std::ostream& out);
/// Prints how rocdoc classifies a torch.__version__ string, then its release if known.
/// A torch.__version__ string as check would classify an install of it: its build (from the
/// local tag: +rocm…, +cu…, +cpu or none) and its origin.
TorchInstall torch_of_version(const Knowledge& knowledge, const std::string& version);
void render_torch_version(const Knowledge& knowledge, const std::string& version,
                          std::ostream& out);

/// One line per file kind: how many entries the knowledge base holds.
void render_rules_summary(const Knowledge& knowledge, std::ostream& out);

}  // namespace rocdoc
