#include <catch2/catch.hpp>

#include <string>

#include "src/util/bounded_json.h"

using namespace rocdoc::util;

namespace {

std::string empty_objects(std::size_t count) {
  std::string text = "[";
  for (std::size_t i = 0; i < count; ++i) {
    text += i ? ",{}" : "{}";
  }
  return text + "]";
}

}  // namespace

TEST_CASE("parse_json_bounded builds what it accepts", "[util]") {
  const auto parsed = parse_json_bounded(R"({"a": [1, "x", null, true, 2.5, {"b": {}}]})", {});
  REQUIRE(parsed.refused == JsonRefusal::none);
  CHECK(parsed.value["a"].size() == 6);
  CHECK(parsed.value["a"][1] == "x");
  CHECK(parsed.value["a"][5]["b"].is_object());
}

TEST_CASE("parse_json_bounded counts every value, containers included", "[util]") {
  // [ {} {} {} ] is four values: the array and three objects.
  CHECK(parse_json_bounded(empty_objects(3), {16, 4}).refused == JsonRefusal::none);
  const auto over = parse_json_bounded(empty_objects(4), {16, 4});
  CHECK(over.refused == JsonRefusal::too_many_values);
  CHECK(over.value.is_null());
  // Keys are not values: one object with two members is three values.
  CHECK(parse_json_bounded(R"({"k": 1, "l": 2})", {16, 3}).refused == JsonRefusal::none);
  CHECK(parse_json_bounded(R"({"k": 1, "l": 2})", {16, 2}).refused == JsonRefusal::too_many_values);
}

TEST_CASE("parse_json_bounded bounds the depth as it reads", "[util]") {
  CHECK(parse_json_bounded("[[[]]]", {3, 100}).refused == JsonRefusal::none);
  CHECK(parse_json_bounded("[[[[]]]]", {3, 100}).refused == JsonRefusal::too_deep);
  // Depth is nesting, not the number of containers: siblings do not add up.
  CHECK(parse_json_bounded("[[],[],[[]]]", {3, 100}).refused == JsonRefusal::none);
  // A million unclosed brackets stop at the limit, not at the end of the text.
  CHECK(parse_json_bounded(std::string(1'000'000, '['), {16, 100}).refused ==
        JsonRefusal::too_deep);
}

TEST_CASE("parse_json_bounded says why a document is not JSON, briefly", "[util]") {
  const auto trailing = parse_json_bounded(R"({"a": 1} x)", {});
  CHECK(trailing.refused == JsonRefusal::not_json);
  CHECK(trailing.syntax_error.find("parse error") != std::string::npos);
  // The parser quotes its last token: megabytes of it are cut to an excerpt.
  const auto long_token = parse_json_bounded("[\"" + std::string(1 << 20, 'a'), {});
  CHECK(long_token.refused == JsonRefusal::not_json);
  CHECK(long_token.syntax_error.size() < 300);
  CHECK(parse_json_bounded("", {}).refused == JsonRefusal::not_json);
}

TEST_CASE("parse_json_bounded builds an array of 300,000 objects (bounded by value count)",
          "[util]") {
  // 300,000 empty objects: the callback parser this replaces took 30 s on them (O(n^2)).
  const auto parsed = parse_json_bounded(empty_objects(300'000), {16, 400'000});
  REQUIRE(parsed.refused == JsonRefusal::none);
  CHECK(parsed.value.size() == 300'000);
}
