#include <algorithm>
#include <catch2/catch.hpp>
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
