// `rocdoc rules show WHAT`: what the words a user has in hand name in the knowledge base: a
// gfx target, a PCI id, a marketing name, a torch.__version__, a ROCm or driver version.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/knowledge.h"

namespace rocdoc {

struct RulesLookup {
  enum class Kind { gfx_target, pci_id, product, torch, torch_version, rocm, driver, newer, none };
  Kind kind = Kind::none;
  std::vector<const GfxTarget*> targets;   ///< gfx_target, or the targets of product matches
  std::vector<const PciIdEntry*> pci_ids;  ///< pci_id, or the PCI ids of product matches
  std::string text;                        ///< the torch version, or what is newer
  std::string note;                        ///< how the query was read when it could name two things
  const RocmRelease* rocm = nullptr;
  const DriverVersion* driver = nullptr;
  std::string suggestion;  ///< with none: the nearest gfx target name

  /// Whether one of pci_ids maps to `target` (a product's own target, not its engineering
  /// samples' or an older kernel's).
  bool pci_ids_map_to(const GfxTarget& target) const;
};

/// "RX 7900 XTX", "Radeon 780M", "2.6.0+rocm6.2.4", "torch 2.6", "7.2.1", "rocm 6.4",
/// "6.19.14.31400000", "gfx1031", "73df", "1002:744c".
RulesLookup lookup_rules(const Knowledge& knowledge, std::string_view query);

/// Marketing names folded for comparison: "AMD Radeon RX 7900 XTX Graphics" → "rx7900xtx".
std::string fold_product_name(std::string_view name);

}  // namespace rocdoc
