// The source scan's matcher (src/scan/pattern_set.h) on hostile source text, with patterns of
// the scan's kind (a 32-bit mask to a _sync builtin, lane arithmetic, an NVIDIA base image, an
// empty-matching one). Whatever the text holds, every match lies inside it, on one line, in
// order, and its line and column point at it.
#include <algorithm>

#include "src/scan/pattern_set.h"
#include "tests/fuzz/fuzz.h"

namespace {

const rocdoc::PatternSet& patterns() {
  static const auto compiled = rocdoc::PatternSet::compile(
      {R"(\b__(?:shfl(?:_up|_down|_xor)?|ballot|all|any)_sync\s*\(\s*0[xX][fF]{8}[uU]?\b)",
       R"(\bthreadIdx\.[xyz]\s*(?:%\s*32\b|&\s*(?:31|0x1[fF])\b|>>\s*5\b))",
       R"((?i)^\s*FROM\s+(?:[\w.-]+(?::\d+)?/)?nvidia/cuda\b)",
       R"(asm\s*(?:volatile)?\s*\(\s*"[^"]*%laneid)", "x*"});
  return *compiled.set;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rocdoc;
  const std::string_view text = fuzz::text(data, size);
  const auto found = patterns().find_all(text, 1000);
  ROCDOC_FUZZ_CHECK(found.matches.size() <= 1000, "at most the limit");
  for (std::size_t i = 0; i < found.matches.size(); ++i) {
    const auto& match = found.matches[i];
    ROCDOC_FUZZ_CHECK(match.offset <= text.size() && match.length <= text.size() - match.offset,
                      "a match lies inside the text");
    ROCDOC_FUZZ_CHECK(text.substr(match.offset, match.length).find('\n') == std::string_view::npos,
                      "a match never spans a line end");
    ROCDOC_FUZZ_CHECK(i == 0 || found.matches[i - 1].offset <= match.offset, "matches in order");
    const auto at = position_of(text, match.offset);
    const auto line_start = match.offset - (at.column - 1);
    ROCDOC_FUZZ_CHECK(at.column >= 1 && (line_start == 0 || text[line_start - 1] == '\n'),
                      "the column counts from the line's start");
    ROCDOC_FUZZ_CHECK(
        static_cast<std::size_t>(std::count(
            text.begin(), text.begin() + static_cast<std::ptrdiff_t>(line_start), '\n')) +
                1 ==
            at.line,
        "the line counts the line ends before it");
  }
  return 0;
}
