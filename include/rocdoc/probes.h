// The probe table: one row per probe, in run order.
#pragma once

#include <span>
#include <string_view>

#include "rocdoc/facts.h"
#include "rocdoc/host.h"
#include "rocdoc/knowledge.h"

namespace rocdoc {

struct ProbeContext {
  const Host& host;
  const Knowledge& knowledge;
};

struct ProbeInfo {
  std::string_view name;
  std::string_view description;
  void (*run)(const ProbeContext&, Facts&);  ///< fills its member of Facts; may throw
  bool (*has_facts)(const Facts&);           ///< whether its member of Facts is filled
};

const ProbeInfo* find_probe(std::string_view name);

std::span<const ProbeInfo> probe_table();

}  // namespace rocdoc
