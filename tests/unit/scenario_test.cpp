// Every tests/fixtures/<scenario>/ runs through the whole pipeline; expect.json says which
// checks fire at which severity and the exit code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "rocdoc/knowledge_loader.h"
#include "rocdoc/pipeline.h"
#include "rocdoc/render.h"
#include "src/commands/cli.h"
#include "src/facts/json.h"
#include "src/hosts/snapshot.h"

using namespace rocdoc;

namespace {

std::set<std::string> ids(const nlohmann::json& list) {
  std::set<std::string> result;
  for (const auto& id : list) {
    result.insert(id.get<std::string>());
  }
  return result;
}

std::vector<std::string> scenarios() {
  std::vector<std::string> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(ROCDOC_FIXTURES_DIR)) {
    if (std::filesystem::exists(entry.path() / "expect.json")) {
      dirs.push_back(entry.path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

TEST_CASE("scenario fixtures give exactly the expected findings and exit code", "[scenario]") {
  const Knowledge knowledge = load_embedded_knowledge();
  const auto dirs = scenarios();
  REQUIRE(dirs.size() >= 16);
  for (const auto& dir : dirs) {
    DYNAMIC_SECTION(std::filesystem::path(dir).filename().string()) {
      std::ifstream in(dir + "/expect.json");
      const auto expect = nlohmann::json::parse(in);
      const SnapshotHost host(dir);
      CHECK_FALSE(host.manifest().note.empty());  // every fixture cites its source
      const Report report = run_report(host, knowledge, {});
      std::set<std::string> fail, warn, info;
      for (const auto& record : report.checks) {
        const std::string id(record.info->id);
        if (record.result.status == Status::fail) {
          fail.insert(id);
        } else if (record.result.status == Status::warn) {
          (record.result.severity == Severity::info ? info : warn).insert(id);
        }
      }
      CHECK(fail == ids(expect["fail"]));
      CHECK(warn == ids(expect["warn"]));
      CHECK(info == ids(expect["info"]));
      for (const auto& probe : report.probes) {
        INFO(probe.name << ": " << probe.error);
        CHECK(probe.ok);
      }
      // "facts": each given key's value equals the report's fact there (a JSON pointer from
      // facts/, "/packages/databases/0/packages/3/version"); "inventory": lines the human
      // report's inventory holds.
      const auto facts = facts_to_json(report.facts);
      const auto expected_facts = expect.value("facts", nlohmann::json::object());
      for (const auto& [pointer, value] : expected_facts.items()) {
        INFO("facts" << pointer);
        const nlohmann::ordered_json::json_pointer at(pointer);
        REQUIRE(facts.contains(at));
        CHECK(nlohmann::json::parse(facts.at(at).dump()) == value);
      }
      if (expect.contains("inventory")) {
        std::ostringstream human;
        render_human(report, human, Color::off, Verbosity::normal);
        for (const auto& line : expect["inventory"]) {
          INFO(human.str());
          CHECK(human.str().find(line.get<std::string>()) != std::string::npos);
        }
      }
      // The exit code through the real command line, with the fixture's extra arguments.
      std::vector<std::string> args = {"rocdoc", "check", "--root", dir, "--json"};
      for (const auto& arg : expect.value("args", nlohmann::json::array())) {
        args.push_back(arg.get<std::string>());
      }
      std::vector<const char*> argv;
      for (const auto& arg : args) {
        argv.push_back(arg.c_str());
      }
      std::ostringstream out, err;
      CHECK(run_cli(static_cast<int>(argv.size()), argv.data(), out, err, OutputIsTerminal::no) ==
            expect["exit"].get<int>());
      CHECK(err.str().empty());
    }
  }
}
