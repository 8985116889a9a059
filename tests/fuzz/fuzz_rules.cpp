// The rules loader (load_knowledge, as `--rules DIR` and `rules lint` run it): one rules file
// replaced by the input, the others embedded. Input: the file name on the first line
// ("gfx_targets.yaml"; another name adds an extra file), then its YAML. It loads, or throws
// RulesError with one short printable line; a loaded knowledge base renders.
#include <sstream>

#include "rocdoc/knowledge_loader.h"
#include "src/knowledge/show.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  const auto newline = input.find('\n');
  if (newline == std::string_view::npos) {
    return 0;
  }
  const std::string name(input.substr(0, newline));
  std::vector<RuleText> files{{name, std::string(input.substr(newline + 1))}};
  for (const auto& embedded : embedded_rule_files()) {
    if (embedded.name != name) {
      files.push_back({std::string(embedded.name), std::string(embedded.content)});
    }
  }
  try {
    const Knowledge knowledge = load_knowledge(files, "fuzz");
    std::ostringstream out;
    render_rules_summary(knowledge, out);
    for (const auto& target : knowledge.targets) {
      render_target(knowledge, target, out);
    }
  } catch (const RulesError& error) {
    fuzz::check_error_message(error.what());
  }
  return 0;
}
