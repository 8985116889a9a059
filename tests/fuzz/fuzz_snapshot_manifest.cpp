// The snapshot manifest (rocdoc-snapshot.json): parse_snapshot_manifest accepts it or throws
// SnapshotError with one short printable line, and keeps only allow-listed variables. And the
// bounded JSON reader under it: what it accepts is what nlohmann's own parser reads, and what it
// refuses as too deep or too large really crosses that limit.
#include <algorithm>

#include "rocdoc/env_allowlist.h"
#include "src/hosts/snapshot.h"
#include "src/util/bounded_json.h"
#include "tests/fuzz/fuzz.h"

namespace {

// Depth and count of a document as it is read, as JsonLimits counts them (keys are not values).
// Counted while reading, not from the parsed value: a repeated key keeps only its last value in
// the value, but its earlier values were read too, and the limits bound what is read.
struct Measure {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  std::size_t values = 0;

  bool null() { return value(); }
  bool boolean(bool /*unused*/) { return value(); }
  bool number_integer(nlohmann::json::number_integer_t /*unused*/) { return value(); }
  bool number_unsigned(nlohmann::json::number_unsigned_t /*unused*/) { return value(); }
  bool number_float(nlohmann::json::number_float_t /*unused*/, const std::string& /*unused*/) {
    return value();
  }
  bool string(std::string& /*unused*/) { return value(); }
  bool binary(nlohmann::json::binary_t& /*unused*/) { return value(); }
  bool key(std::string& /*unused*/) { return true; }
  bool start_object(std::size_t /*unused*/) { return open(); }
  bool start_array(std::size_t /*unused*/) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                   const nlohmann::detail::exception& /*unused*/) {
    return false;
  }

 private:
  bool value() {
    ++values;
    return true;
  }
  bool open() {
    deepest = std::max(deepest, ++depth);
    return value();
  }
  bool close() {
    --depth;
    return true;
  }
};

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
  Measure measure;
  nlohmann::json::sax_parse(input, &measure);
  const std::size_t deepest = measure.deepest;
  const std::size_t values = measure.values;
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
