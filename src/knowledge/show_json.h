// `rocdoc rules show WHAT --json`: what the knowledge base holds of WHAT, as JSON (schema
// rocdoc-rules-show/1, docs/rules-show.schema.json): the entries themselves, each with its
// source, for scripts that would otherwise parse the text of rules show.
#pragma once

#include <ostream>
#include <string_view>

#include "rocdoc/knowledge.h"
#include "src/knowledge/lookup.h"

namespace rocdoc {

/// Writes the JSON answer for `query`, which lookup_rules() answered with `found`.
void render_rules_show_json(const Knowledge& knowledge, std::string_view query,
                            const RulesLookup& found, std::ostream& out);

}  // namespace rocdoc
