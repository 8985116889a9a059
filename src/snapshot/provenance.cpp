#include "src/snapshot/provenance.h"

#include <map>
#include <nlohmann/json.hpp>

#include "rocdoc/check.h"
#include "src/util/bounded_json.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

struct Then {
  std::string status;
  std::string said;  ///< message and fixes, as JSON text
};

/// A string member, or "" when it is missing or not a string (the file is untrusted).
std::string string_at(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// The findings of report.json by id; empty when it is not a rocdoc report.
std::map<std::string, Then> findings_then(const std::string& text) {
  std::map<std::string, Then> result;
  // report.json comes from the snapshot, an untrusted file: parse it in linear time with its
  // depth and size bounded while it is read (a real report is 8 deep and holds a few thousand
  // values), and take only well-formed entries. A report beyond the bounds is no rocdoc report.
  const auto parsed = util::parse_json_bounded(text, util::JsonLimits{32, 400'000});
  const nlohmann::json& document = parsed.value;
  if (!document.is_object() || string_at(document, "schema") != "rocdoc-report/1") {
    return result;
  }
  const auto checks = document.find("checks");
  if (checks == document.end() || !checks->is_array()) {
    return result;
  }
  for (const auto& check : *checks) {
    if (!check.is_object() || !check.contains("id") || !check["id"].is_string() ||
        !check.contains("status") || !check["status"].is_string()) {
      continue;
    }
    std::string said = string_at(check, "message");
    if (const auto fixes = check.find("fix"); fixes != check.end() && fixes->is_array()) {
      for (const auto& fix : *fixes) {
        if (fix.is_object()) {
          const std::string command = string_at(fix, "command");
          said += "\n" + (command.empty() ? string_at(fix, "description") : command);
        }
      }
    }
    result[check["id"].get<std::string>()] = {check["status"].get<std::string>(), said};
  }
  return result;
}

/// The message and each fix's command (or description), as findings_then() builds it.
std::string said_now(const CheckResult& result) {
  std::string said = result.message;
  for (const auto& fix : result.fix) {
    said += "\n" + (fix.command.empty() ? fix.description : fix.command);
  }
  return said;
}

}  // namespace

std::optional<CaptureProvenance> capture_provenance(
    const SnapshotManifest& manifest, const std::optional<std::string>& capture_report,
    const Report& now) {
  if (manifest.rules_revision.empty() && !capture_report) {
    return std::nullopt;
  }
  CaptureProvenance capture;
  capture.created = manifest.created;
  capture.rocdoc_version = manifest.rocdoc_version;
  capture.rules_revision = manifest.rules_revision;
  capture.redacted = manifest.redacted;
  if (!capture_report) {
    return capture;
  }
  auto then = findings_then(*capture_report);
  capture.has_capture_report = !then.empty();
  if (then.empty()) {
    return capture;
  }
  for (const auto& check : now.checks) {
    const std::string id(check.info->id);
    const std::string status(to_string(check.result.status));
    const auto it = then.find(id);
    if (it == then.end()) {
      // A check newer than the snapshot's rocdoc that cannot run on it, or passes, changes no
      // finding: there was none then, and there is none now.
      if (check.result.status != Status::skip && check.result.status != Status::pass) {
        capture.changes.push_back({id, "absent", status, false});
      }
      continue;
    }
    // Words matter only for findings: a pass or a skip that reads differently is no change,
    // and neither is a pass that became a skip or the other way round (no finding either time).
    const bool finding_now =
        check.result.status != Status::pass && check.result.status != Status::skip;
    const bool finding_then = it->second.status != "pass" && it->second.status != "skip";
    const bool same_message = !finding_now || it->second.said == said_now(check.result);
    if ((finding_then || finding_now) && (it->second.status != status || !same_message)) {
      capture.changes.push_back({id, it->second.status, status, it->second.status == status});
    }
    then.erase(it);
  }
  // A check of capture time that did not run now was either left out with --only/--skip (no
  // change) or removed from rocdoc since (absent now).
  for (const auto& [id, finding] : then) {
    if (find_check(id) == nullptr) {
      capture.changes.push_back({id, finding.status, "absent", false});
    }
  }
  return capture;
}

std::vector<std::string> capture_notes(const CaptureProvenance& capture,
                                       const std::string& rules_revision_now) {
  const auto or_unknown = [](const std::string& text) {
    return text.empty() ? std::string("(not recorded)") : util::printable(text);
  };
  std::vector<std::string> notes;
  notes.push_back("snapshot made " + or_unknown(capture.created) + " by rocdoc " +
                  or_unknown(capture.rocdoc_version) + " with rules revision " +
                  or_unknown(capture.rules_revision) + "; judged now with rules revision " +
                  util::printable(rules_revision_now));
  if (capture.redacted) {
    notes.push_back(
        "the snapshot is redacted: host and user names, home directories, other groups, kernel "
        "command-line values, serial numbers and GPU unique ids are placeholders");
  }
  if (!capture.has_capture_report) {
    notes.push_back("the snapshot holds no report of capture time to compare with");
  } else if (capture.changes.empty()) {
    notes.push_back("the findings are the same as at capture time");
  } else {
    std::vector<std::string> changed;
    for (const auto& change : capture.changes) {
      changed.push_back(change.id + " (" +
                        (change.message_changed ? change.now + ", other words"
                                                : change.then + " then, " + change.now + " now") +
                        ")");
    }
    notes.push_back("findings changed since capture time: " + util::join(changed, ", "));
  }
  return notes;
}

}  // namespace rocdoc
