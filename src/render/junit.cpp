// JUnit XML for the test-report views of CI (GitLab, Jenkins, GitHub test-report actions):
// one <testcase> per check. A finding is a <failure> exactly when it counts toward exit code 1
// under the report's --fail-on, so the test report and the exit code never disagree.
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "rocdoc/render.h"
#include "src/util/strings.h"

namespace rocdoc {

namespace {

/// `text` as XML 1.0 character data or attribute value. What XML cannot hold at all (control
/// characters, bytes that are not UTF-8, U+FFFE and U+FFFF) is written as a printable escape
/// first (util::printable: "\x1b", "\n"), then the markup characters are escaped.
std::string xml(std::string_view text) {
  const std::string safe = util::printable(text);
  std::string result;
  result.reserve(safe.size() + 16);
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    // U+FFFE and U+FFFF are EF BF BE and EF BF BF: valid UTF-8, but not XML characters.
    if (c == '\xef' && i + 2 < safe.size() && safe[i + 1] == '\xbf' &&
        (safe[i + 2] == '\xbe' || safe[i + 2] == '\xbf')) {
      result += safe[i + 2] == '\xbe' ? "\\ufffe" : "\\uffff";
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        result += "&amp;";
        break;
      case '<':
        result += "&lt;";
        break;
      case '>':
        result += "&gt;";
        break;
      case '"':
        result += "&quot;";
        break;
      case '\'':
        result += "&apos;";
        break;
      default:
        result += c;
    }
  }
  return result;
}

/// "perm" for "perm.kfd".
std::string_view id_area(std::string_view id) { return id.substr(0, id.find('.')); }

/// The finding as a reader of the CI log wants it: message, evidence, cause, fixes.
std::string details(const CheckResult& result) {
  std::string text = xml(result.message) + "\n";
  if (!result.evidence.empty()) {
    text += "evidence:\n";
    for (const auto& line : result.evidence) {
      text += "  " + xml(line) + "\n";
    }
  }
  if (!result.caused_by.empty()) {
    text += "follows from: " + xml(util::join(result.caused_by, ", ")) + "\n";
  }
  if (!result.fix.empty()) {
    text += result.fix.size() == 1                       ? "fix:\n"
            : result.fix_order == FixOrder::alternatives ? "fix (any one of these):\n"
                                                         : "fix (these steps, in order):\n";
    for (const auto& fix : result.fix) {
      std::vector<std::string> needs;
      if (fix.needs_root) {
        needs.emplace_back("root");
      }
      if (fix.needs_reboot) {
        needs.emplace_back("a reboot");
      }
      if (fix.needs_relogin) {
        needs.emplace_back("a new login");
      }
      text += "  - " + xml(fix.description) +
              (needs.empty() ? "" : " (needs " + util::join(needs, ", ") + ")") + "\n";
      if (fix.command.empty()) {
        continue;
      }
      const std::string_view label = fix.kind == FixKind::container_flag    ? "container flag: "
                                     : fix.kind == FixKind::kernel_argument ? "kernel argument: "
                                                                            : "$ ";
      text += "    " + std::string(label) + xml(fix.command) + "\n";
    }
  }
  return text;
}

struct TestCase {
  std::string id;
  std::string body;  ///< what goes inside <testcase>, or empty
  bool failure = false;
  bool skipped = false;
};

TestCase test_case(const CheckRecord& record, const Outcome& outcome) {
  const CheckResult& result = record.result;
  TestCase test{std::string(record.info->id), "", false, false};
  const bool required = std::find(outcome.required.begin(), outcome.required.end(), test.id) !=
                        outcome.required.end();
  if (result.status == Status::skip) {
    if (required) {
      const std::string message = "required check did not run: " + result.message;
      test.body = fmt::format("<failure message=\"{}\" type=\"required\">{}\n</failure>",
                              xml(message), xml(message));
      test.failure = true;
    } else {
      test.body = fmt::format("<skipped message=\"{}\"/>", xml(result.message));
      test.skipped = true;
    }
  } else if (counts_toward_gate(result, outcome.fail_on)) {
    test.body = fmt::format("<failure message=\"{}\" type=\"{}\">{}</failure>", xml(result.message),
                            to_string(result.severity), details(result));
    test.failure = true;
  } else if (result.status == Status::pass) {
    test.body = "<system-out>" + xml(result.message) + "\n</system-out>";
  } else {
    // A finding below the --fail-on level (a warning under the default, a notice, anything
    // under never) passes, and says what it found.
    test.body =
        fmt::format("<system-out>{}, not a failure under --fail-on {}: {}</system-out>",
                    to_string(result.severity), to_string(outcome.fail_on), details(result));
  }
  return test;
}

}  // namespace

void render_junit(const Report& report, std::ostream& out) {
  const Outcome& outcome = report.outcome;
  std::vector<TestCase> tests;
  for (const auto& record : report.checks) {
    tests.push_back(test_case(record, outcome));
  }
  // A required check that was not selected gets a failed testcase of its own.
  for (const auto& id : outcome.required) {
    const bool ran = std::any_of(report.checks.begin(), report.checks.end(),
                                 [&](const CheckRecord& r) { return r.info->id == id; });
    if (!ran) {
      const std::string message =
          "required check did not run: it was not selected (--only, --skip)";
      tests.push_back({id,
                       fmt::format("<failure message=\"{}\" type=\"required\">{}\n</failure>",
                                   xml(message), xml(message)),
                       true, false});
    }
  }
  const auto failures =
      std::count_if(tests.begin(), tests.end(), [](const TestCase& test) { return test.failure; });
  const auto skipped =
      std::count_if(tests.begin(), tests.end(), [](const TestCase& test) { return test.skipped; });
  const std::string counts_attributes = fmt::format(
      "tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"", tests.size(), failures, skipped);
  // JUnit's timestamp has no zone; report.created is UTC ("…Z").
  std::string timestamp = report.created;
  if (!timestamp.empty() && timestamp.back() == 'Z') {
    timestamp.pop_back();
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"rocdoc\" " << counts_attributes << ">\n";
  out << "  <testsuite name=\"rocdoc\" " << counts_attributes << " timestamp=\"" << xml(timestamp)
      << "\">\n";
  out << "    <properties>\n";
  const std::vector<std::pair<std::string_view, std::string>> properties = {
      {"rocdoc.version", report.tool_version},
      {"rocdoc.rules_revision", report.rules_revision},
      {"rocdoc.fail_on", std::string(to_string(outcome.fail_on))},
      {"rocdoc.verdict", std::string(to_string(outcome.verdict))},
      {"rocdoc.exit_code", std::to_string(outcome.exit_code)}};
  for (const auto& [name, value] : properties) {
    out << "      <property name=\"" << name << "\" value=\"" << xml(value) << "\"/>\n";
  }
  out << "    </properties>\n";
  for (const auto& test : tests) {
    out << "    <testcase classname=\"rocdoc." << xml(id_area(test.id)) << "\" name=\""
        << xml(test.id) << "\">";
    out << test.body << "</testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace rocdoc
