// .gitignore files of a scanned tree (src/scan/ignore_rules.h): the input is a .gitignore, then
// after its first NUL byte a path. Whatever they hold, rules have patterns of 1 to 1024 bytes,
// the verdict of the path is the verdict of its last matching rule, and `*` never crosses "/".
#include "src/scan/ignore_rules.h"
#include "tests/fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view input = fuzz::text(data, size);
  const auto nul = input.find('\0');
  const std::string_view file = input.substr(0, nul);
  const std::string_view path =
      nul == std::string_view::npos ? std::string_view("src/kernel.cu") : input.substr(nul + 1);
  if (path.size() > 4096) {
    return 0;  // the walk never asks about longer paths
  }

  const auto rules = parse_ignore_file(file, "");
  for (const auto& rule : rules) {
    ROCDOC_FUZZ_CHECK(!rule.pattern.empty() && rule.pattern.size() <= 1024,
                      "a rule's pattern is 1 to 1024 bytes");
  }
  for (const auto kind : {PathKind::file, PathKind::directory}) {
    const auto verdict = ignore_verdict(rules, path, kind);
    std::optional<bool> last;
    for (const auto& rule : rules) {
      if (ignore_verdict({rule}, path, kind)) {
        last = !rule.negate;
      }
    }
    ROCDOC_FUZZ_CHECK(verdict == last, "the last matching rule decides");
  }
  ROCDOC_FUZZ_CHECK(gitignore_glob("*", path) == (path.find('/') == std::string_view::npos),
                    "* matches exactly the paths without a slash");
  return 0;
}
