// JSON form of the facts, for --json and for -v.
#pragma once

#include <nlohmann/json.hpp>

#include "rocdoc/facts.h"

namespace rocdoc {

nlohmann::ordered_json facts_to_json(const Facts& facts);

/// A known value as itself, an unknown one as null.
template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

/// An open() result as the report and a snapshot's `nodes` write it: "rw", "r", "w", "none".
std::string_view access_name(OpenAccess access);

}  // namespace rocdoc
