#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

#include "rocdoc/env_allowlist.h"
#include "rocdoc/knowledge.h"
#include "rocdoc/knowledge_loader.h"

using namespace rocdoc;

TEST_CASE("the allow-list is sorted and holds nothing secret-looking", "[privacy]") {
  const auto names = allowed_env_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const auto name : names) {
    for (const char* word : {"TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL", "AUTH"}) {
      INFO(name);
      CHECK(name.find(word) == std::string_view::npos);
    }
  }
}

TEST_CASE("only listed names and per-node override forms are allowed", "[privacy]") {
  CHECK(is_allowed_env("HSA_OVERRIDE_GFX_VERSION"));
  CHECK(is_allowed_env("HSA_OVERRIDE_GFX_VERSION_1"));
  CHECK_FALSE(is_allowed_env("HSA_OVERRIDE_GFX_VERSION_"));
  CHECK_FALSE(is_allowed_env("HSA_OVERRIDE_GFX_VERSION_X"));
  CHECK(is_allowed_env("HIP_VISIBLE_DEVICES"));
  CHECK_FALSE(is_allowed_env("HOME"));
  CHECK_FALSE(is_allowed_env("AWS_SECRET_ACCESS_KEY"));
  CHECK_FALSE(is_allowed_env("GITHUB_TOKEN"));
  CHECK(is_tool_env("NO_COLOR"));
  CHECK_FALSE(is_tool_env("PATH"));
}

TEST_CASE("the allow-list and rules/env_vars.yaml name the same variables",
          "[privacy][knowledge]") {
  const Knowledge knowledge = load_embedded_knowledge();
  for (const auto& variable : knowledge.env_variables) {
    INFO(variable.name);
    CHECK(is_allowed_env(variable.name));
  }
  for (const auto name : allowed_env_names()) {
    INFO(name);
    CHECK(knowledge.env_variable(name) != nullptr);
  }
}

TEST_CASE("the manual's privacy allow-list names every allowed variable", "[privacy][docs]") {
  std::ifstream file(std::string(ROCDOC_SOURCE_DIR) + "/docs/rocdoc.1.md");
  const std::string manual((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
  const auto start = manual.find("**Privacy allow-list.**");
  REQUIRE(start != std::string::npos);
  // Names are wrapped at commas and spaces only, so each appears whole.
  const std::string list =
      manual.substr(start, manual.find("a **--rules** directory", start) - start);
  for (const auto name : allowed_env_names()) {
    INFO(name);
    // The variables that steer rocdoc's own output are listed above the allow-list paragraph.
    const bool steers_output = name == "CLICOLOR_FORCE" || name == "COLUMNS" || name == "LANG" ||
                               name == "LC_ALL" || name == "LC_CTYPE" || name == "NO_COLOR" ||
                               name == "TERM";
    CHECK((list.find(std::string(name) + ",") != std::string::npos ||
           list.find(std::string(name) + ".") != std::string::npos ||
           list.find(std::string(name) + " ") != std::string::npos || steers_output));
  }
}
