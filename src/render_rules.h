// `rocdoc rules show`: what the knowledge base knows, formatted for support staff.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "rocdoc/knowledge.h"

namespace rocdoc {

/// Prints a gfx target with its products, ROCm support, override verdict, wheels and PCI ids.
void render_target(const Knowledge& knowledge, const GfxTarget& target, std::ostream& out);
/// Prints every torch release whose version starts with `prefix` ("2.6" → 2.6.0).
/// Returns false when none matches.
bool render_torch(const Knowledge& knowledge, const std::string& prefix, std::ostream& out);
/// Prints the entry of an AMD PCI device id.
void render_pci_id(const Knowledge& knowledge, const PciIdEntry& entry, std::ostream& out);
/// One line per file kind: how many entries the knowledge base holds.
void render_rules_summary(const Knowledge& knowledge, std::ostream& out);

}  // namespace rocdoc
