// The report's findings grouped by root cause, as every renderer shows them: each root cause
// once, with the findings that follow from it (CheckResult::caused_by, root_causes.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <algorithm>

#include "rocdoc/report.h"
#include "src/pipeline/root_causes.h"
#include "src/util/shell.h"

namespace rocdoc {

/// Which finding each finding follows from, as the report's caused_by says: a finding whose
/// causes are all absent (not run, passed, skipped) is a root cause itself.
class Causes {
 public:
  explicit Causes(const Report& report) {
    if (report.facts.code_scan) {
      m_scan_root = report.facts.code_scan->root;
    }
    std::map<std::string_view, const CheckRecord*> by_id;
    for (const auto& record : report.checks) {
      by_id.emplace(record.info->id, &record);
    }
    for (const auto& record : report.checks) {
      if (!is_finding(record.result)) {
        continue;
      }
      std::set<const CheckRecord*> seen{&record};
      const CheckRecord* root = find_root(record, by_id, seen);
      // A root that itself names a finding as its cause ended a cycle (each finding of it names
      // another): the report's data is wrong, and every finding of the cycle stands alone.
      if (root != nullptr && !names_a_finding(*root, by_id)) {
        m_root.emplace(&record, root);
        m_consequences[root].push_back(&record);
      }
    }
  }

  /// The root cause this finding follows from; nullptr for a root cause (or a non-finding).
  const CheckRecord* root_of(const CheckRecord& record) const {
    const auto it = m_root.find(&record);
    return it == m_root.end() ? nullptr : it->second;
  }
  /// "rocdoc check --only ROOT,CONSEQUENCE,…": the command that shows whether a root cause's
  /// fixes worked (with --deep where one needs the runtime, --smoke where the finding is about
  /// code that runs: torch and the GPU targets); empty for a root without fixes, or for this
  /// boot's GPU faults, which the kernel log keeps until the next boot.
  std::string verify_command(const CheckRecord& root) const {
    if (root.result.fix.empty() || root.info->id == "driver.gpu-faults") {
      return "";
    }
    std::string ids(root.info->id);
    if (root.info->judges == Judges::code) {  // it runs only with the tree it judged
      return "rocdoc check --only " + ids + " --scan " + util::shell_word(m_scan_root);
    }
    bool deep = needs_deep(root.info->id);
    bool smoke = runs_code(root.info->id);
    for (const CheckRecord* consequence : consequences(root)) {
      ids += ",";
      ids += consequence->info->id;
      deep = deep || needs_deep(consequence->info->id);
      smoke = smoke || runs_code(consequence->info->id);
    }
    return "rocdoc check --only " + ids + (deep ? " --deep" : "") + (smoke ? " --smoke" : "");
  }

  /// The findings that follow from a root cause, in report order.
  const std::vector<const CheckRecord*>& consequences(const CheckRecord& root) const {
    static const std::vector<const CheckRecord*> none;
    const auto it = m_consequences.find(&root);
    return it == m_consequences.end() ? none : it->second;
  }

 private:
  static bool needs_deep(std::string_view id) { return id.rfind("runtime.", 0) == 0; }
  /// A finding about code that runs on the GPU: --smoke runs torch to show it is gone.
  static bool runs_code(std::string_view id) {
    return id.rfind("torch.", 0) == 0 || id.rfind("arch.", 0) == 0 || id == "runtime.compute";
  }
  static bool names_a_finding(const CheckRecord& record,
                              const std::map<std::string_view, const CheckRecord*>& by_id) {
    return std::any_of(record.result.caused_by.begin(), record.result.caused_by.end(),
                       [&](const std::string& id) {
                         const auto it = by_id.find(id);
                         return it != by_id.end() && is_finding(it->second->result);
                       });
  }

  /// Follows the first cause that is a finding in this report, to a finding with none.
  static const CheckRecord* find_root(const CheckRecord& record,
                                      const std::map<std::string_view, const CheckRecord*>& by_id,
                                      std::set<const CheckRecord*>& seen) {
    for (const auto& id : record.result.caused_by) {
      const auto it = by_id.find(id);
      if (it == by_id.end() || !is_finding(it->second->result) || !seen.insert(it->second).second) {
        continue;
      }
      const CheckRecord* further = find_root(*it->second, by_id, seen);
      return further != nullptr ? further : it->second;
    }
    return nullptr;
  }

  std::map<const CheckRecord*, const CheckRecord*> m_root;
  std::map<const CheckRecord*, std::vector<const CheckRecord*>> m_consequences;
  std::string m_scan_root;  ///< check --scan DIR: for the code checks' verify command
};

}  // namespace rocdoc
