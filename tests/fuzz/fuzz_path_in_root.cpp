// Path resolution inside a snapshot root (resolve_in_root) with a fuzzed link table.
// Input: the path on the first line, then one "LINK -> TARGET" per line.
// Invariants: every path it looks up and returns is absolute and normalised (no empty, "."
// or ".." component), so nothing can leave the root; with no links it equals
// normalize_absolute.
#include <map>
#include <string>

#include "src/hosts/path_in_root.h"
#include "src/util/strings.h"
#include "tests/fuzz/fuzz.h"

namespace {

void check_inside(const std::string& path, const char* what) {
  ROCDOC_FUZZ_CHECK(!path.empty() && path.front() == '/',
                    std::string(what) + " is absolute: " + path);
  if (path == "/") {
    return;
  }
  for (const auto part : rocdoc::util::split(std::string_view(path).substr(1), '/')) {
    ROCDOC_FUZZ_CHECK(!part.empty() && part != "." && part != "..",
                      std::string(what) + " is normalised: " + path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  const auto newline = input.find('\n');
  const std::string_view path = input.substr(0, newline);
  std::map<std::string, std::string> links;
  if (newline != std::string_view::npos) {
    for (const auto line : util::lines(input.substr(newline + 1))) {
      const auto arrow = line.find(" -> ");
      if (arrow != std::string_view::npos) {
        links.emplace(std::string(line.substr(0, arrow)), std::string(line.substr(arrow + 4)));
      }
    }
  }
  int lookups = 0;
  const LinkLookup lookup = [&](const std::string& inside) -> std::optional<std::string> {
    check_inside(inside, "a looked-up path");
    ++lookups;
    const auto it = links.find(inside);
    return it == links.end() ? std::nullopt : std::optional(it->second);
  };
  for (const FinalLink final_link : {FinalLink::follow, FinalLink::keep}) {
    if (const auto resolved = resolve_in_root(path, lookup, final_link)) {
      check_inside(*resolved, "the resolved path");
    }
  }
  const std::string normal = normalize_absolute(path);
  check_inside(normal, "normalize_absolute's result");
  const LinkLookup none = [](const std::string&) { return std::optional<std::string>(); };
  if (const auto plain = resolve_in_root(path, none, FinalLink::follow)) {
    ROCDOC_FUZZ_CHECK(*plain == normal, "without links it is normalize_absolute: " + *plain);
  }
  return 0;
}
