// JSON from an untrusted file, parsed in linear time with its nesting and size bounded while it
// is read. No rocdoc knowledge: the callers say what the limits are and word the refusal.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rocdoc::util {

struct JsonLimits {
  std::size_t max_depth = 16;        ///< objects and arrays inside each other
  std::size_t max_values = 400'000;  ///< every value, containers included (keys are not)
};

enum class JsonRefusal { none, not_json, too_deep, too_many_values };

struct BoundedJson {
  nlohmann::json value;  ///< null unless refused is none
  JsonRefusal refused = JsonRefusal::none;
  /// For not_json: the parser's message, its quote of the last token cut to 40 characters.
  std::string syntax_error;
};

/// Checks the document with one SAX pass that stops at the first limit it crosses, then
/// builds it without a parser callback. nlohmann's callback parser rescans the parent
/// container after every object (quadratic in an array of objects), so it is never used.
BoundedJson parse_json_bounded(std::string_view text, const JsonLimits& limits);

}  // namespace rocdoc::util
