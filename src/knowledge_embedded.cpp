// The rules compiled into the binary, and --rules DIR.
#include "rocdoc/knowledge.h"
#include "src/live_host.h"

namespace rocdoc {

Knowledge load_embedded_knowledge() {
  // Validated at build time (rocdoc_rulesc) and compiled in as data: parsing YAML or JSON at
  // every start would cost more than the whole check.
  Knowledge knowledge = embedded_knowledge_data();
  knowledge.origin = "embedded";
  return knowledge;
}

Knowledge load_knowledge_dir(const std::string& dir) {
  const auto names = list_local_dir(dir);
  if (!names) {
    throw RulesError(dir, 0, 0, "cannot read the rules directory");
  }
  std::vector<RuleText> files;
  for (const auto& name : *names) {
    if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") {
      const std::string path = dir + "/" + name;
      auto content = read_local_file(path, 16u << 20);
      if (!content) {
        throw RulesError(path, 0, 0, "cannot read the file");
      }
      files.push_back({path, std::move(*content)});
    }
  }
  for (const auto& embedded : embedded_rule_files()) {
    if (find_rule_file(files, embedded.name) == nullptr) {
      files.push_back({"rules/" + std::string(embedded.name), std::string(embedded.content)});
    }
  }
  return load_knowledge(files, dir);
}

}  // namespace rocdoc
