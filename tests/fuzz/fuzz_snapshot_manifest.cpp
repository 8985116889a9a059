// The snapshot manifest (rocdoc-snapshot.json): parse_snapshot_manifest accepts it or throws
// SnapshotError with one short printable line, and keeps only allow-listed variables. And the
// bounded JSON reader under it: what it accepts is what nlohmann's own parser reads, and what it
// refuses as too deep or too large really crosses that limit.
#include <algorithm>
#include <utility>
#include <vector>

#include "rocdoc/env_allowlist.h"
#include "src/snapshot_host.h"
#include "src/util/bounded_json.h"
#include "tests/fuzz/fuzz.h"

namespace {

// Depth and count of a parsed value, as JsonLimits counts them (keys are not values); with a
// stack of its own, since a refused document may be nested 100,000 deep.
void measure(const nlohmann::json& root, std::size_t& deepest, std::size_t& values) {
  std::vector<std::pair<const nlohmann::json*, std::size_t>> stack{{&root, 0}};
  while (!stack.empty()) {
    const auto [value, depth] = stack.back();
    stack.pop_back();
    ++values;
    if (value->is_structured()) {
      deepest = std::max(deepest, depth + 1);
      for (const auto& child : *value) {
        stack.emplace_back(&child, depth + 1);
      }
    }
  }
}

void check_bounded_json(std::string_view input) {
  using rocdoc::util::JsonRefusal;
  const rocdoc::util::JsonLimits limits{8, 64};
  const auto bounded = rocdoc::util::parse_json_bounded(input, limits);
  const auto plain = nlohmann::json::parse(input, nullptr, false);
  if (bounded.refused == JsonRefusal::not_json) {
    ROCDOC_FUZZ_CHECK(plain.is_discarded(), "refused as not JSON, read by nlohmann");
    return;
  }
  if (plain.is_discarded()) {
    // Refused at a limit before the syntax error was reached: fine; accepted: not.
    ROCDOC_FUZZ_CHECK(bounded.refused != JsonRefusal::none, "accepted what nlohmann refuses");
    return;
  }
  std::size_t deepest = 0;
  std::size_t values = 0;
  measure(plain, deepest, values);
  if (bounded.refused == JsonRefusal::none) {
    ROCDOC_FUZZ_CHECK(bounded.value == plain, "accepted, but not what nlohmann reads");
    ROCDOC_FUZZ_CHECK(deepest <= limits.max_depth && values <= limits.max_values,
                      "accepted beyond a limit");
  } else if (bounded.refused == JsonRefusal::too_deep) {
    ROCDOC_FUZZ_CHECK(deepest > limits.max_depth,
                      "refused as too deep: " + std::to_string(deepest));
  } else {
    ROCDOC_FUZZ_CHECK(values > limits.max_values,
                      "refused as too many values: " + std::to_string(values));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  check_bounded_json(input);
  try {
    const SnapshotManifest manifest = parse_snapshot_manifest(input, "/s/rocdoc-snapshot.json");
    for (const auto& [name, value] : manifest.env) {
      ROCDOC_FUZZ_CHECK(is_allowed_env(name), "only allow-listed variables are kept: " + name);
    }
  } catch (const SnapshotError& error) {
    fuzz::check_error_message(error.what());
  }
  return 0;
}
