// `rocdoc fleet`'s three outputs: human text, markdown and JSON (schema rocdoc-fleet/1,
// docs/fleet.schema.json). Renderers only format.
#pragma once

#include <ostream>
#include <string>

#include "rocdoc/render.h"

#include "src/fleet/summary.h"

namespace rocdoc {

/// What the summary was made from, for the header.
struct FleetContext {
  std::size_t inputs = 0;    ///< files read
  std::string now;           ///< the time ages are measured from, ISO 8601 UTC
  std::size_t expected = 0;  ///< names in --nodes; 0 without it
  Color color = Color::off;  ///< the human summary's colour (check's choice: a terminal, NO_COLOR)
};

void render_fleet_human(const FleetSummary& summary, const FleetContext& context,
                        std::ostream& out);
void render_fleet_markdown(const FleetSummary& summary, const FleetContext& context,
                           std::ostream& out);
void render_fleet_json(const FleetSummary& summary, const FleetContext& context, std::ostream& out);

}  // namespace rocdoc
